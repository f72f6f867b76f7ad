"""Where the database lives and how connections to it are configured.

``--db`` accepts a file path or any SQLAlchemy URL, so the same code serves a linguist's local SQLite file
and a team's PostgreSQL server.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from functools import partial
from pathlib import Path
from urllib.parse import quote, unquote

import platformdirs
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

DB_ENV = "TSQE_DB"


def default_database_path() -> Path:
    return Path(platformdirs.user_data_dir("tsqe", appauthor=False)) / "tsqe.sqlite"


def resolve_url(db: str | os.PathLike[str] | None = None) -> str:
    """Turn ``--db`` (path or URL), else ``$TSQE_DB``, else the per-user default file into a URL."""
    value = str(db) if db is not None else os.environ.get(DB_ENV) or str(default_database_path())
    if "://" in value:
        return value
    return f"sqlite:///{Path(value).expanduser().resolve()}"


SQLITE_MMAP_BYTES = 256 * 1024 * 1024
"""How much of a SQLite file is read through memory mapping: labelling reads every output of a million-output
suite, which through SQLite's default 2 MB page cache cost half as long again."""


SQLITE_BUSY_TIMEOUT = 60.0
"""Seconds a write waits for another writer's lock before giving up. A relabel holds the write lock for its
whole run (about 2 s for the DFKI de-en suite, 5 s for a million outputs); a reviewer's save made meanwhile
must wait for it and then be stored, not fail after sqlite3's default of 5 s."""


CONNECT_TIMEOUT_ENV = "TSQE_CONNECT_TIMEOUT"
DEFAULT_CONNECT_TIMEOUT = 10
"""Seconds to wait for a database server to answer a connection: a server that accepts it and never answers
(a firewall that drops packets, a hung server) would otherwise hold tsqe forever. ``$TSQE_CONNECT_TIMEOUT`` or
the URL's own ``connect_timeout`` parameter changes it."""


def _configure_sqlite(dbapi_connection, _record, read_only: bool = False) -> None:  # type: ignore[no-untyped-def]  # DB-API objects are untyped
    """A read-only file keeps the journal mode it has: switching to WAL is a write."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    if not read_only:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA mmap_size={SQLITE_MMAP_BYTES}")
    cursor.close()


def read_only_sqlite(path: Path) -> tuple[bool, bool]:
    """Whether an existing SQLite file must be opened read-only (it, or its folder, cannot be written), and
    whether it must also be opened as immutable: in a folder that cannot be written, SQLite cannot create the
    shared-memory file its write-ahead log needs even to read, so it must be told that nobody writes the file.

    ``os.access`` answers for the real user and sees a read-only file system, where root may write anything else.
    """
    if not path.is_file():
        return False, False
    folder_writable = os.access(path.parent, os.W_OK)
    return not (folder_writable and os.access(path, os.W_OK)), not folder_writable


@contextmanager
def reading_sqlite(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to the file that cannot change it and leaves nothing beside it.

    ``mode=ro`` alone is not enough: on a database in write-ahead-log mode that nobody has open (tsqe leaves its
    files so), a read-only connection creates the ``-wal`` and ``-shm`` files and, unable to write, cannot remove
    them when it closes. So a file with nothing beside it (no ``-wal`` or ``-journal``: nobody has it open, and no
    crashed writer left a log to recover or checkpoint) is opened as SQLite's writers open it, with ``query_only``
    set before the first read, which refuses every change; SQLite then removes what it made when the connection
    closes. A file with a log beside it, or that cannot be written, is opened ``mode=ro`` (``immutable`` in a
    folder that cannot be written, as ``make_engine`` opens it): the log is its owner's and stays as it is."""
    read_only, immutable = read_only_sqlite(path)
    beside = any(path.with_name(path.name + suffix).exists() for suffix in ("-wal", "-journal"))
    query = "mode=ro&immutable=1" if immutable else "mode=ro" if read_only or beside else "mode=rw"
    with closing(sqlite3.connect(f"file:{quote(str(path))}?{query}", uri=True)) as connection:
        connection.execute("PRAGMA query_only=ON")
        yield connection


def connect_timeout() -> int:
    value = os.environ.get(CONNECT_TIMEOUT_ENV, "")
    return int(value) if value.isdigit() and int(value) > 0 else DEFAULT_CONNECT_TIMEOUT


def missing_sqlite_file(url: str) -> Path | None:
    """The SQLite file ``url`` names when there is none yet (None: it exists, or the URL names a server, memory, or
    does not parse); opening it with ``create`` makes it, and its folder."""
    try:
        path = sqlite_path(make_url(url))
    except (ArgumentError, ValueError):
        return None
    return None if path is None or path.exists() else path


def sqlite_path(url: URL) -> Path | None:
    """The file of a SQLite URL (also of a read-only ``file:`` URI), None for another backend or in memory."""
    database = url.database
    if url.get_backend_name() != "sqlite" or database in (None, "", ":memory:") or url.query.get("mode") == "memory":
        return None
    assert database is not None
    return Path(unquote(database.removeprefix("file:"))) if database.startswith("file:") else Path(database)


def is_read_only(engine: Engine) -> bool:
    """Whether ``make_engine`` opened this SQLite file read-only."""
    return engine.url.query.get("mode") == "ro"


def make_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
            return create_engine(url, connect_args={"connect_timeout": connect_timeout()})
        return create_engine(url)
    path = Path(parsed.database) if parsed.database not in (None, "", ":memory:") else None
    read_only, immutable = read_only_sqlite(path) if path is not None else (False, False)
    if read_only and path is not None:
        query = "mode=ro&immutable=1&uri=true" if immutable else "mode=ro&uri=true"
        engine = create_engine(f"sqlite:///file:{quote(str(path))}?{query}",
                               connect_args={"timeout": SQLITE_BUSY_TIMEOUT})
        event.listen(engine, "connect", partial(_configure_sqlite, read_only=True))
        return engine
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT})
    event.listen(engine, "connect", _configure_sqlite)
    return engine
