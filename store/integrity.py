"""Checking a database file's pages, without writing anything.

A SQLite file damaged by a full disk, a crash of the machine during a copy or a failing drive can go unnoticed
for months, until the one page that holds a reviewer's decisions is read. ``check_database`` runs SQLite's
``integrity_check`` (every page, every index against its table) or ``quick_check`` (pages only, faster) on the
file as it is, through a connection that cannot change it (``store.engine.reading_sqlite``), without migrating
or opening it through the store (which a damaged file may not survive). A file that is not tsqe's (empty, or
another program's tables) is refused. A PostgreSQL server checks its own pages (with checksums and ``amcheck``):
there the check confirms, in one read-only transaction, that the server answers and the database is tsqe's.

A check writes nothing, not even its result (issue 27: "check never writes, migrates or leaves a journal"): a
check is run on a backup copy, on a file another process has open, on a read-only mount, and a clean result
recorded in the file was the one write it made. ``tsqe status`` therefore no longer says when the last check was
(``docs/bad-input.md`` says why it is not kept anywhere else).
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url

from store.database import faults_as_user_errors, refuse_unopenable
from store.engine import make_engine, reading_sqlite, resolve_url, sqlite_path
from store.errors import TsqeError
from store.faults import checked_url, display_url
from store.migrations import refuse_foreign

SHOWN_PROBLEMS = 100
"""SQLite's own default for how many problems ``integrity_check`` reports."""


@dataclass(frozen=True)
class IntegrityReport:
    database: str
    kind: str  # "integrity_check", "quick_check" or "connection" (PostgreSQL)
    problems: tuple[str, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_database(db: str | None, *, quick: bool = False) -> IntegrityReport:
    """Check the pages of the database ``db`` names (a path, a URL, ``$TSQE_DB`` or the default file)."""
    url = resolve_url(db)
    path = sqlite_path(make_url(url))
    if path is None:
        return _check_server(url)
    refuse_unopenable(url)
    if not path.is_file():
        raise TsqeError(f"{path}: no such database file")
    kind = "quick_check" if quick else "integrity_check"
    try:
        with reading_sqlite(path) as connection:
            rows = connection.execute(f"PRAGMA {kind}({SHOWN_PROBLEMS})").fetchall()
            tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except sqlite3.DatabaseError as error:  # a file that is no SQLite database at all is one problem
        return IntegrityReport(str(path), kind, (
            f"{error} (SQLite cannot read the file's {'header' if 'not a database' in str(error) else 'pages'})",))
    reported = tuple(line for row in rows for line in str(row[0]).splitlines() if line.strip())
    if reported != ("ok",):
        return IntegrityReport(str(path), kind, reported)
    _refuse_not_tsqe(tables, str(path))
    return IntegrityReport(str(path), kind)


def _refuse_not_tsqe(tables: list[str], where: str) -> None:
    if not [name for name in tables if not name.startswith("sqlite_")]:
        raise TsqeError(f"{where} is not a tsqe database (it holds no tables); nothing was changed")
    refuse_foreign(tables, where)


def _check_server(url: str) -> IntegrityReport:
    """A server checks its own pages: the check confirms, in a read-only transaction, that it answers and holds
    tsqe's tables (an empty or foreign database is refused and left as it is)."""
    where = display_url(url)
    with faults_as_user_errors(where):
        engine = make_engine(checked_url(url))
        try:
            with engine.connect() as connection:
                connection.execute(text("SET TRANSACTION READ ONLY"))
                _refuse_not_tsqe(inspect(connection).get_table_names(), where)
                connection.rollback()
        finally:
            engine.dispose()
    return IntegrityReport(where, "connection")
