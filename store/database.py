"""An open tsqe database: the engine, its migrated schema and a session factory."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from store.engine import make_engine, missing_sqlite_file, resolve_url, sqlite_path
from store.errors import DatabaseBusyError, NoDatabase, TsqeError
from store.faults import checked_url, database_fault, display_url
from store.migrations import refuse_foreign, sqlite_tables, upgrade_to_head


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


@contextmanager
def faults_as_user_errors(database: str) -> Iterator[None]:
    """A full disk, a read-only or damaged file, an unreachable server: the user's error that names the database
    and what to do (``store.faults``), in place of SQLAlchemy's traceback."""
    try:
        yield
    except (SQLAlchemyError, ModuleNotFoundError) as error:
        fault = database_fault(error, database)
        if fault is None:
            raise
        raise fault from error


class Database:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def name_in_messages(self) -> str:
        """A SQLite file's path, else the URL without its password."""
        return display_url(self.engine.url)

    @property
    def display_name(self) -> str:
        """What a window title calls the database: a SQLite file's name, else the URL without its password."""
        path = sqlite_path(self.engine.url)
        return path.name if path is not None else self.url

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
            with faults_as_user_errors(self.name_in_messages), _stopped_as_user_error(), self._sessions() as session, \
                    session.begin():
                yield session
            return
        with faults_as_user_errors(self.name_in_messages), self.engine.connect() as connection, _busy_as_user_error():
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
        with faults_as_user_errors(self.name_in_messages), self.engine.connect() as connection, _busy_as_user_error():
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


def refuse_unopenable(url: str) -> None:
    """Refuse, before anything connects, a SQLite path that is not a regular file (``/dev/null``: SQLite would
    leave a ``/dev/null-journal`` beside it) or a file of another program's tables (connecting switches its
    journal mode, a write)."""
    path = sqlite_path(make_url(url))
    if path is None or not path.exists():
        return
    if not path.is_file():
        raise TsqeError(f"{path} is not a database file (it is a {'folder' if path.is_dir() else 'device or pipe'}); "
                        "nothing was changed")
    tables = sqlite_tables(path)
    if tables is not None:
        refuse_foreign(tables, str(path))


def _make_folder(folder: Path) -> None:
    """The folder a new database file goes into (the user data folder of the default one, on first use)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise TsqeError(f"{folder}: the folder for the database cannot be made ({error.strerror}); nothing was "
                        f"created") from None


def open_database(db: str | os.PathLike[str] | None = None, *, create: bool = True) -> Database:
    """Open and migrate the database named by a path, URL, ``$TSQE_DB`` or the default; ``create``: a SQLite file
    that does not exist yet is created, else refused with ``NoDatabase`` (what reads a database, or adds to one that
    should be there, does not leave a new empty file, or a folder for it, behind a mistyped or moved path).

    A server that refuses or does not answer, a missing driver, a malformed URL, a damaged file: each is a
    ``TsqeError`` naming the database without its password (``store.faults``)."""
    url = resolve_url(db)
    with faults_as_user_errors(display_url(url)):
        checked = checked_url(url)
        missing = missing_sqlite_file(checked)
        if missing is not None:
            if not create:
                raise NoDatabase(f"there is no database at {missing}; nothing was created")
            _make_folder(missing.parent)
        refuse_unopenable(checked)
        engine = make_engine(checked)
        try:
            upgrade_to_head(engine)
        except BaseException:
            engine.dispose()
            raise
    return Database(engine)
