"""Where the database lives and how connections to it are configured.

``--db`` accepts a file path or any SQLAlchemy URL, so the same code serves a linguist's local SQLite file
and a team's PostgreSQL server.
"""
from __future__ import annotations

import os
from pathlib import Path

import platformdirs
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

DB_ENV = "TSQE_DB"


def default_database_path() -> Path:
    return Path(platformdirs.user_data_dir("tsqe", appauthor=False)) / "tsqe.sqlite"


def resolve_url(db: str | os.PathLike[str] | None = None) -> str:
    """Turn ``--db`` (path or URL), else ``$TSQE_DB``, else the per-user default file into a URL."""
    value = str(db) if db is not None else os.environ.get(DB_ENV) or str(default_database_path())
    if "://" in value:
        return value
    path = Path(value).expanduser().resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


SQLITE_MMAP_BYTES = 256 * 1024 * 1024
"""How much of a SQLite file is read through memory mapping: labelling reads every output of a million-output
suite, which through SQLite's default 2 MB page cache cost half as long again."""


SQLITE_BUSY_TIMEOUT = 60.0
"""Seconds a write waits for another writer's lock before giving up. A relabel holds the write lock for its
whole run (about 2 s for the DFKI de-en suite, 5 s for a million outputs); a reviewer's save made meanwhile
must wait for it and then be stored, not fail after sqlite3's default of 5 s."""


def _configure_sqlite(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]  # DB-API objects are untyped
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA mmap_size={SQLITE_MMAP_BYTES}")
    cursor.close()


def make_engine(url: str) -> Engine:
    if make_url(url).get_backend_name() != "sqlite":
        return create_engine(url)
    engine = create_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT})
    event.listen(engine, "connect", _configure_sqlite)
    return engine
