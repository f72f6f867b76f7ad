"""Checking a database file's pages, and remembering when that was last done.

A SQLite file damaged by a full disk, a crash of the machine during a copy or a failing drive can go unnoticed
for months, until the one page that holds a reviewer's decisions is read. ``check_database`` runs SQLite's
``integrity_check`` (every page, every index against its table) or ``quick_check`` (pages only, faster) on the
file as it is, through a read-only connection, without migrating or opening it through the store (which a damaged
file may not survive). A file that is not tsqe's (empty, or another program's tables) is refused and never written;
a clean result is recorded only in a tsqe database that is already at the newest schema (so checking never
migrates; an older one is checked and not recorded); ``status`` warns when the last check (or the database's
creation, when it never had one) is older than :data:`CHECK_AGE`. A damaged file is never written to. A PostgreSQL
server checks its own pages (with checksums and ``amcheck``): there the check confirms that the server answers and
the schema is one this tsqe reads.
"""
from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import create_engine, func, inspect, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import StaticPool

from store.database import Database, faults_as_user_errors, open_database, refuse_unopenable
from store.engine import make_engine, resolve_url, sqlite_path
from store.errors import TsqeError
from store.faults import checked_url, display_url
from store.migrations import is_up_to_date, refuse_foreign, sqlite_tables
from store.models import IntegrityCheck, Suite, utcnow

CHECK_AGE = timedelta(days=30)
"""How old the last check may be before ``status`` suggests another."""
OLDER_SCHEMA = "the database is of an older schema, and checking never migrates it; any other command does"
SHOWN_PROBLEMS = 100
"""SQLite's own default for how many problems ``integrity_check`` reports."""


@dataclass(frozen=True)
class IntegrityReport:
    database: str
    kind: str  # "integrity_check", "quick_check" or "connection" (PostgreSQL)
    problems: tuple[str, ...] = field(default_factory=tuple)
    recorded: bool = False
    """Whether the result was stored in the database (a damaged or read-only file is not written to)."""
    why_not_recorded: str = "the file cannot be written"
    """When ``recorded`` is False and the pages are intact: why the result was not kept."""

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
    problems = _sqlite_problems(path, kind)
    if problems:
        return IntegrityReport(str(path), kind, problems)
    _refuse_not_tsqe(sqlite_tables(path) or [], str(path))
    if not _sqlite_up_to_date(path):  # an older schema: checking must not migrate it to record the result
        return IntegrityReport(str(path), kind, why_not_recorded=OLDER_SCHEMA)
    try:
        database = open_database(path)
    except TsqeError:  # read-only: the pages are fine, the result cannot be kept
        return IntegrityReport(str(path), kind)
    try:
        with database.transaction() as session:
            session.add(IntegrityCheck(kind=kind, ok=True, problems=""))
    except TsqeError:
        return IntegrityReport(str(path), kind)
    finally:
        database.close()
    return IntegrityReport(str(path), kind, recorded=True)


def _refuse_not_tsqe(tables: list[str], where: str) -> None:
    if not [name for name in tables if not name.startswith("sqlite_")]:
        raise TsqeError(f"{where} is not a tsqe database (it holds no tables); nothing was changed")
    refuse_foreign(tables, where)


def _sqlite_up_to_date(path: Path) -> bool:
    with closing(sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)) as raw:
        engine = create_engine("sqlite://", creator=lambda: raw, poolclass=StaticPool)
        try:
            with engine.connect() as connection:
                return is_up_to_date(connection)
        finally:
            engine.dispose()


def _check_server(url: str) -> IntegrityReport:
    """A server checks its own pages: the check confirms it answers and holds tsqe's schema at the newest
    revision (an empty, foreign or older database is left as it is), and records the result."""
    where = display_url(url)
    with faults_as_user_errors(where):
        engine = make_engine(checked_url(url))
        try:
            with engine.connect() as connection:
                _refuse_not_tsqe(inspect(connection).get_table_names(), where)
                up_to_date = is_up_to_date(connection)
        finally:
            engine.dispose()
    if not up_to_date:
        return IntegrityReport(where, "connection", why_not_recorded=OLDER_SCHEMA)
    database = open_database(url)
    try:
        with database.transaction() as session:
            session.execute(text("SELECT 1"))
            session.add(IntegrityCheck(kind="connection", ok=True, problems=""))
    finally:
        database.close()
    return IntegrityReport(where, "connection", recorded=True)


def _sqlite_problems(path: Path, kind: str) -> tuple[str, ...]:
    """What SQLite's check reports on the file, read-only; a file that is no SQLite database at all is one problem."""
    try:
        with closing(sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)) as connection:
            rows = connection.execute(f"PRAGMA {kind}({SHOWN_PROBLEMS})").fetchall()
    except sqlite3.DatabaseError as error:
        return (f"{error} (SQLite cannot read the file's {'header' if 'not a database' in str(error) else 'pages'})",)
    reported = tuple(line for row in rows for line in str(row[0]).splitlines() if line.strip())
    return () if reported == ("ok",) else reported


@dataclass(frozen=True)
class CheckAge:
    """When the database's pages were last checked (None: never) and whether that is too long ago."""

    last: datetime | None
    overdue: bool


def check_age(database: Database) -> CheckAge:
    """``overdue`` when the last check, or the database's first suite when it never had one, is older than
    :data:`CHECK_AGE` (a database made today needs no check yet)."""
    with database.session() as session:
        last = session.scalar(select(func.max(IntegrityCheck.checked_at)).where(IntegrityCheck.ok.is_(True)))
        since = last or session.scalar(select(func.min(Suite.created_at)))
    if isinstance(since, datetime) and since.tzinfo is None:
        since = since.replace(tzinfo=utcnow().tzinfo)
    return CheckAge(last, since is not None and utcnow() - since > CHECK_AGE)
