"""Copying a whole tsqe database to another, such as a linguist's SQLite file to the team's PostgreSQL server.

Everything is copied: every suite with its items, rules, outputs, labels, reviews and history, the QE systems,
cached scores and embeddings, and the labels' fingerprints. Ids are kept, because rows refer to each other by
them and because label coverage is kept as an output id (``LabelFingerprint.labelled_through``): renumbered
outputs would make labelled ones look new and new ones look labelled.

Tables go in foreign-key order, read in primary-key order in chunks and written with Core bulk inserts (COPY
into PostgreSQL), so memory stays flat whatever the size. The source is read in one snapshot (REPEATABLE READ
on PostgreSQL, one read transaction on SQLite), so a team that keeps working during the copy cannot make it
inconsistent, and the target is written in one transaction: a failed copy leaves it empty. PostgreSQL's id
sequences are then moved past the copied ids, or the next new row would collide with a copied one. The target
must be empty: merging two databases would need ids renumbered.
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Connection, Engine, Row, Table, func, insert, select
from sqlalchemy.engine import make_url

from store.database import Database, open_database
from store.engine import missing_sqlite_file, resolve_url
from store.errors import TsqeError
from store.models import Base

CHUNK = 5_000
"""Rows per read and per insert: large enough that round trips do not dominate, small enough for flat memory."""


class CopyRefused(TsqeError):
    """The copy was not started (the message says why) and nothing was written."""


class CopyProgress(Protocol):
    """Where a copy reports rows done; ``suite.tasks.TaskState`` is one, and may cancel by raising."""

    def progress(self, done: int, total: int, message: str = "") -> None: ...


@dataclass(frozen=True)
class CopiedTable:
    name: str
    rows: int


@dataclass(frozen=True)
class CopyResult:
    source: str
    target: str
    """The databases' URLs, passwords hidden."""
    tables: tuple[CopiedTable, ...]
    """Every table of the schema, in the order copied."""

    @property
    def rows(self) -> int:
        return sum(table.rows for table in self.tables)


def copy_database(source: str | os.PathLike[str], target: str | os.PathLike[str],
                  progress: CopyProgress | None = None) -> CopyResult:
    """Copy every row of the database ``source`` (a path or URL) into the empty database ``target``, which is
    created (as a SQLite file) or migrated first; refused with ``CopyRefused`` when the source does not exist,
    is the target, or the target holds any row."""
    if "://" not in str(source) and not Path(source).expanduser().is_file():
        raise CopyRefused(f"there is no database at {source}")
    source_url, target_url = resolve_url(source), resolve_url(target)
    if _same(source_url, target_url):
        raise CopyRefused(f"{_shown(source_url)} is both the source and the target of the copy")
    created = missing_sqlite_file(target_url)
    source_db = open_database(source_url)
    try:
        target_db = open_database(target_url)
        try:
            return _copy(source_db, target_db, progress)
        finally:
            target_db.close()
    except BaseException:
        if created is not None:  # a file this copy created is removed again, so a failed copy changes nothing
            for suffix in ("", "-wal", "-shm"):
                Path(f"{created}{suffix}").unlink(missing_ok=True)
        raise
    finally:
        source_db.close()


def _copy(source: Database, target: Database, progress: CopyProgress | None) -> CopyResult:
    tables = Base.metadata.sorted_tables
    with _snapshot(source.engine) as reading, target.engine.begin() as writing:
        occupied = [table.name for table in tables if writing.scalar(select(func.count()).select_from(table))]
        if occupied:
            raise CopyRefused(f"{target.url} is not empty (it holds rows in {', '.join(occupied)}); "
                              f"a database is only copied into an empty one")
        sizes = [reading.scalar(select(func.count()).select_from(table)) or 0 for table in tables]
        total, done = sum(sizes), 0
        write = _copy_in if writing.dialect.name == "postgresql" else _insert
        for table in tables:
            for rows in _chunks(reading, table):
                write(writing, table, rows)
                done += len(rows)
                if progress is not None:
                    progress.progress(done, total, f"copying {table.name}: {done:,} of {total:,} rows")
        if writing.dialect.name == "postgresql":
            _move_sequences(writing, tables)
    return CopyResult(source.url, target.url, tuple(CopiedTable(table.name, size)
                                                    for table, size in zip(tables, sizes)))


@contextmanager
def _snapshot(engine: Engine) -> Iterator[Connection]:
    """A connection that reads the whole database as of one moment."""
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="REPEATABLE READ") as connection, \
                connection.begin():
            connection.exec_driver_sql("SET TRANSACTION READ ONLY")
            yield connection
        return
    with engine.connect() as connection:
        # The sqlite3 driver begins transactions only before writes; a read transaction keeps WAL's snapshot.
        connection.exec_driver_sql("BEGIN")
        try:
            yield connection
        finally:
            connection.rollback()


def _chunks(connection: Connection, table: Table) -> Iterator[Sequence[Row[Any]]]:
    """The table's rows in primary-key order, their columns in the table's order, ``CHUNK`` at a time."""
    result = connection.execution_options(yield_per=CHUNK).execute(select(table).order_by(*table.primary_key))
    yield from result.partitions()


def _insert(connection: Connection, table: Table, rows: Sequence[Row[Any]]) -> None:
    connection.execute(insert(table), [row._asdict() for row in rows])


def _copy_in(connection: Connection, table: Table, rows: Sequence[Row[Any]]) -> None:
    """Write rows to PostgreSQL with COPY, in the connection's transaction: an INSERT per row, even pipelined,
    took three quarters of a copy's time. The values were read through the columns' types (timestamps as aware
    UTC datetimes), which psycopg writes as they are."""
    from psycopg import sql  # only PostgreSQL's driver has it

    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(table.name), sql.SQL(", ").join(sql.Identifier(column.name) for column in table.columns))
    driver = connection.connection.driver_connection
    assert driver is not None
    with driver.cursor() as cursor, cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)


def _move_sequences(connection: Connection, tables: list[Table]) -> None:
    """Set every id sequence to the largest copied id, so that the next row gets the one after it (an empty
    table's sequence starts again at 1)."""
    for table in tables:
        column = table.autoincrement_column
        if column is None:
            continue
        connection.execute(select(func.setval(func.pg_get_serial_sequence(f'"{table.name}"', column.name),
                                              func.coalesce(func.max(column), 1), func.max(column).is_not(None))))


def _same(first: str, second: str) -> bool:
    a, b = make_url(first), make_url(second)
    return (a.get_backend_name(), a.host, a.port, a.database) == (b.get_backend_name(), b.host, b.port, b.database)


def _shown(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)
