"""An open tsqe database: the engine, its migrated schema and a session factory."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from store.engine import make_engine, resolve_url
from store.errors import DatabaseBusyError
from store.migrations import upgrade_to_head


@contextmanager
def _busy_as_user_error() -> Iterator[None]:
    """A write that waited the whole busy timeout (``store.engine.SQLITE_BUSY_TIMEOUT``) for another writer
    is a user's problem to retry, not a crash: the message says what held the database."""
    try:
        yield
    except OperationalError as error:
        if "locked" in str(error.orig) or "busy" in str(error.orig):
            raise DatabaseBusyError("the database stayed locked by another writer (another tsqe process, or a long "
                                    "relabel) for longer than a write waits; nothing was changed: try again when "
                                    "it has finished") from error
        raise


_GAVE_WAY = {"40P01": "a deadlock", "40001": "a serialization failure"}
"""PostgreSQL's codes for a transaction it stopped because another one needed the same rows at the same time."""


@contextmanager
def _stopped_as_user_error() -> Iterator[None]:
    """A transaction PostgreSQL stopped for another writer's sake (two imports changing the same items in
    another order, say) is rolled back whole: a user's problem to retry, not a crash."""
    try:
        yield
    except DBAPIError as error:
        reason = _GAVE_WAY.get(str(getattr(error.orig, "sqlstate", "")))
        if reason is None:
            raise
        raise DatabaseBusyError(f"another writer changed the same rows at the same moment and the database stopped "
                                f"this change ({reason}); nothing was changed: try again") from error


class Database:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def display_name(self) -> str:
        """What a window title calls the database: a SQLite file's name, else the URL without its password."""
        url = self.engine.url
        if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
            return Path(str(url.database)).name
        return self.url

    def session(self) -> Session:
        return self._sessions()

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session whose work is committed together or, on any exception, not at all.

        On SQLite it takes the write lock before its first read (``BEGIN IMMEDIATE``), waiting for another
        writer (a relabel) as long as the busy timeout allows. A transaction that read first and wrote later
        would instead fail at once when the other writer committed in between (its snapshot is then stale,
        and SQLite does not wait in that case), and a reviewer's label would be lost.
        """
        if self.engine.dialect.name != "sqlite":
            with _stopped_as_user_error(), self._sessions() as session, session.begin():
                yield session
            return
        with self.engine.connect() as connection, _busy_as_user_error():
            yield from self._immediate(connection)

    @contextmanager
    def derived_rows_transaction(self) -> Iterator[Session]:
        """``transaction`` for writing many rows derived from what it reads, such as a suite's labels.

        On SQLite it does not check foreign keys: its rows refer to what it read under the write lock, and
        the checks were nearly half the cost of writing a million label rows. Foreign keys are back on when it
        ends, however it ends. Other backends check as usual.
        """
        if self.engine.dialect.name != "sqlite":
            with self.transaction() as session:
                yield session
            return
        with self.engine.connect() as connection, _busy_as_user_error():
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")  # only outside a transaction
            try:
                yield from self._immediate(connection)
            finally:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")
                connection.commit()

    @staticmethod
    def _immediate(connection: Connection) -> Iterator[Session]:
        """A session on ``connection`` inside ``BEGIN IMMEDIATE``, committed when the caller's block ends."""
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
            with Session(bind=connection, expire_on_commit=False) as session:
                yield session
                session.flush()
            connection.commit()
        except BaseException:
            connection.rollback()
            raise

    @property
    def shareable(self) -> bool:
        """Whether another process can open this same database (an in-memory SQLite one is private)."""
        url = self.engine.url
        if url.get_backend_name() != "sqlite":
            return True
        return url.database not in (None, "", ":memory:") and url.query.get("mode") != "memory"

    def close(self) -> None:
        self.engine.dispose()


def open_database(db: str | os.PathLike[str] | None = None) -> Database:
    """Open (creating if needed) and migrate the database named by a path, URL, ``$TSQE_DB`` or the default."""
    engine = make_engine(resolve_url(db))
    upgrade_to_head(engine)
    return Database(engine)
