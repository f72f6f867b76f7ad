"""An open tsqe database: the engine, its migrated schema and a session factory."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from store.engine import make_engine, resolve_url
from store.migrations import upgrade_to_head


class Database:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    def session(self) -> Session:
        return self._sessions()

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session whose work is committed together or, on any exception, not at all."""
        with self._sessions() as session, session.begin():
            yield session

    @property
    def shareable(self) -> bool:
        """Whether another process can open this same database (an in-memory SQLite one is private)."""
        url = self.engine.url
        if url.get_backend_name() != "sqlite":
            return True
        return url.database not in (None, "", ":memory:") and url.query.get("mode") != "memory"

    def reopen(self) -> Database:
        """The same database through a new engine, for a forked worker process.

        A connection must never be used on both sides of a fork; the worker gets its own, already migrated.
        """
        return Database(make_engine(self.engine.url.render_as_string(hide_password=False)))

    def close(self) -> None:
        self.engine.dispose()


def open_database(db: str | os.PathLike[str] | None = None) -> Database:
    """Open (creating if needed) and migrate the database named by a path, URL, ``$TSQE_DB`` or the default."""
    engine = make_engine(resolve_url(db))
    upgrade_to_head(engine)
    return Database(engine)
