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

    @contextmanager
    def derived_rows_transaction(self) -> Iterator[Session]:
        """``transaction`` for writing many rows derived from what it reads, such as a suite's labels.

        On SQLite it takes the write lock before its first read, so nothing it read can change before it
        commits, and it does not check foreign keys: its rows refer to what it read under that lock, and
        the checks were nearly half the cost of writing a million label rows. Other backends check as usual.
        """
        if self.engine.dialect.name != "sqlite":
            with self.transaction() as session:
                yield session
            return
        with self.engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")  # only outside a transaction
            try:
                connection.exec_driver_sql("BEGIN IMMEDIATE")
                with Session(bind=connection, expire_on_commit=False) as session:
                    yield session
                    session.flush()
                connection.commit()
            except BaseException:
                connection.rollback()
                raise
            finally:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()

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
