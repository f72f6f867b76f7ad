"""Bring a database schema to the newest revision whenever it is opened.

Opening a database file with a newer tsqe migrates it in place, so before changing an existing SQLite file
whose schema is behind, a copy is kept beside it: a migration that fails, or one that turns out wrong
later, must never cost a linguist their suite.
"""
from __future__ import annotations

import ast
import sqlite3
import sys
import threading
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from store.engine import is_read_only, reading_sqlite, sqlite_path
from store.errors import TsqeError
from store.faults import DatabaseReadOnlyError, database_fault, display_url

if TYPE_CHECKING:
    from alembic.config import Config

_HERE = Path(__file__).resolve().parent


class MigrationFailed(TsqeError):
    """Migrating an existing database failed; its transaction was rolled back and ``backup`` (when one was
    taken) holds the file as it was before."""

    def __init__(self, message: str, backup: Path | None) -> None:
        self.backup = backup
        super().__init__(message)


class NewerDatabaseError(TsqeError):
    """The database's schema is of a revision this tsqe does not know: a newer tsqe wrote it."""


class ForeignDatabaseError(TsqeError):
    """The database holds another program's tables: tsqe never migrates it (which would add its own tables to
    it) and changes nothing."""


TSQE_MARKS = frozenset({"alembic_version", "suites", "items"})
"""Tables every tsqe database has had since its first revision: a database holding tables but not these is
another program's (a database of another alembic project has ``alembic_version`` but not tsqe's tables)."""
SHOWN_TABLES = 8


def refuse_foreign(tables: Iterable[str], where: str) -> None:
    """Raise ``ForeignDatabaseError`` unless the database (its ``tables``) is empty or tsqe's."""
    found = sorted(name for name in tables if not name.startswith("sqlite_"))
    if not found or TSQE_MARKS <= set(found):
        return
    shown = ", ".join(found[:SHOWN_TABLES]) + (f" and {len(found) - SHOWN_TABLES} more"
                                               if len(found) > SHOWN_TABLES else "")
    raise ForeignDatabaseError(f"{where} is not a tsqe database (it holds table{'s' if len(found) > 1 else ''} "
                               f"{shown}); nothing was changed")


def sqlite_tables(path: Path) -> list[str] | None:
    """The tables of an existing SQLite file, read through a connection that writes nothing (no journal mode
    switched, no journal or log left: ``reading_sqlite``); None when SQLite cannot read it (``store.faults`` then
    names the fault)."""
    try:
        with reading_sqlite(path) as connection:
            return [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    except sqlite3.DatabaseError:
        return None


def script_location() -> Path:
    """The alembic environment: top-level ``alembic/`` in a checkout, ``store/migrations`` in a wheel."""
    for candidate in (_HERE / "migrations", _HERE.parent / "alembic"):
        if (candidate / "env.py").is_file():
            return candidate
    raise FileNotFoundError("tsqe's alembic migration environment is missing from this installation")


def alembic_config() -> Config:
    from alembic.config import Config  # alembic costs 0.15 s to import; opening an up-to-date database needs none

    # The stream now: alembic's default is sys.stdout as it was when alembic.config was first imported, which under
    # a test's CliRunner is a stream closed since (alembic's check then failed, "I/O operation on closed file").
    config = Config(stdout=sys.stdout)
    config.set_main_option("script_location", str(script_location()))
    return config


def backup_path(database: Path, revision: str | None) -> Path:
    """Where the copy of ``database`` taken before migrating it from ``revision`` is kept."""
    return database.with_name(f"{database.name}.bak-{revision or 'base'}")


def _back_up(source: Path, target: Path) -> None:
    """Copy through SQLite's backup API: a plain file copy would miss what still sits in the WAL file and
    could catch a page half-written by another process."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def upgrade_to_head(engine: Engine) -> Path | None:
    """Migrate ``engine``'s database to the newest revision in one transaction.

    Returns the backup taken of an existing SQLite file whose schema was behind, else None. A failed
    migration rolls back and raises ``MigrationFailed`` naming that backup.
    """
    with engine.connect() as connection:
        stored = _stored_revisions(connection)
        if stored and stored == newest_revisions():
            return None  # no write lock taken: opening must not wait for another process's long transaction
        tables = inspect(connection).get_table_names()
    path = sqlite_path(engine.url)
    where = str(path) if path is not None else display_url(engine.url)
    refuse_foreign(tables, where)
    has_tables = bool(tables)
    from alembic.script import ScriptDirectory

    config = alembic_config()
    script = ScriptDirectory.from_config(config)
    head = script.get_current_head()
    revision = next(iter(stored)) if len(stored) == 1 else None
    if revision == head:
        return None
    if revision is not None and revision not in {known.revision for known in script.walk_revisions()}:
        # before any backup: a copy on every failed try would only fill the disk
        raise NewerDatabaseError(f"{where} was written by a newer tsqe (schema revision {revision}; this tsqe knows "
                                 f"up to {head}): upgrade tsqe to open it")
    if is_read_only(engine):
        raise DatabaseReadOnlyError(f"{where} is read-only and was written by an older tsqe (schema revision "
                                    f"{revision or 'none'}): it must be migrated to {head} before use, which needs "
                                    f"write access; copy it somewhere writable")
    backup: Path | None = None
    if path is not None and path.is_file() and has_tables:
        backup = backup_path(path, revision)
        _back_up(path, backup)
    try:
        _upgrade(engine, config)
    except Exception as error:
        fault = database_fault(error, where)
        if fault is not None:  # a damaged file, a full disk: the copy is of no use, and a retry would make another
            if backup is not None:
                backup.unlink(missing_ok=True)
            raise fault from error
        if backup is None:
            raise
        reason = (str(getattr(error, "orig", None) or error).strip().splitlines() or [type(error).__name__])[0]
        raise MigrationFailed(f"migrating {path} from revision {revision or 'base'} to {head} failed ({reason}); "
                              f"the database was left as it was and a copy of it is kept in {backup}",
                              backup) from error
    return backup


def is_up_to_date(connection: Connection) -> bool:
    """Whether the database is tsqe's at the newest revision, so that using it migrates nothing."""
    stored = _stored_revisions(connection)
    return bool(stored) and stored == newest_revisions()


def _stored_revisions(connection: Connection) -> frozenset[str]:
    """The revisions the database says it is at (alembic's own table; none for a new database)."""
    if not inspect(connection).has_table("alembic_version"):
        return frozenset()
    return frozenset(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())


_PARSING = threading.Lock()
"""One ``ast.parse`` at a time in this process: CPython 3.11 (3.11.7 here) raises "SystemError: AST constructor
recursion depth mismatch" when threads parse at once, which three reviewers' threads opening one database hit on
every run while the machine was loaded (tests/test_double_review.py)."""


def newest_revisions() -> frozenset[str] | None:
    """The heads of the migration scripts, read from their ``revision`` and ``down_revision`` lines without
    importing alembic (every command opens a database, and most find it up to date); None when a script does not
    spell them as plain literals, and alembic has to read them."""
    revisions: set[str] = set()
    replaced: set[str] = set()
    for script in (script_location() / "versions").glob("*.py"):
        found: dict[str, object] = {}
        with _PARSING:
            body = ast.parse(script.read_text(encoding="utf-8")).body
        for node in body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                target, value = node.target, node.value
            else:
                continue
            if isinstance(target, ast.Name) and target.id in ("revision", "down_revision"):
                try:
                    found[target.id] = ast.literal_eval(value)
                except ValueError:
                    return None
        revision, down = found.get("revision"), found.get("down_revision")
        if not isinstance(revision, str):
            return None
        revisions.add(revision)
        replaced.update([down] if isinstance(down, str) else down if isinstance(down, tuple | list) else [])
    return frozenset(revisions - replaced) or None


def _upgrade(engine: Engine, config: Config) -> None:
    """Run every pending migration in one transaction.

    Python's sqlite3 module starts a transaction only before a data change, so a migration's first
    CREATE or ALTER would commit on its own and a failure would leave the schema half changed; on SQLite the
    transaction is therefore begun explicitly, and IMMEDIATE keeps a second process from migrating at once.
    """
    from alembic import command

    if engine.dialect.name != "sqlite":
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
        return
    with engine.connect() as connection:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
        try:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            connection.commit()
        except BaseException:
            connection.rollback()
            raise
