"""A database that is not tsqe's is never changed (issue 27): opening migrates only an empty database or one that
is already tsqe's; another program's SQLite file or PostgreSQL database is refused, byte for byte as it was; and
``tsqe check`` never migrates, never turns an empty file into a database and leaves no journal."""
from __future__ import annotations

import hashlib
import os
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from cli.main import app
from store import open_database
from store.errors import TsqeError


def tsqe(db: Path | str, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    return result.exit_code, result.stdout, result.stderr


def files_of(folder: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())}


def foreign_sqlite(path: Path, *, alembic: bool = False) -> Path:
    """Another program's SQLite file (in the rollback-journal mode SQLite files start in); ``alembic``: another
    alembic project's, with its own ``alembic_version``."""
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
        connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer INTEGER, total REAL)")
        connection.execute("INSERT INTO customers VALUES (1, 'Ada')")
        if alembic:
            connection.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
            connection.execute("INSERT INTO alembic_version VALUES ('ae1027a6acf')")
        connection.commit()
    return path


@pytest.mark.parametrize("alembic", [False, True])
@pytest.mark.parametrize("command", [("status",), ("check",), ("outputs",)])
def test_another_programs_sqlite_file_is_refused_byte_for_byte(tmp_path: Path, command: tuple[str, ...],
                                                               alembic: bool) -> None:
    path = foreign_sqlite(tmp_path / "books.db", alembic=alembic)
    before = files_of(tmp_path)
    code, _, stderr = tsqe(path, *command)
    assert code == 2, stderr
    assert stderr.startswith(f"error: {path} is not a tsqe database (it holds tables ")
    assert "customers" in stderr and "invoices" in stderr and stderr.strip().endswith("; nothing was changed")
    assert files_of(tmp_path) == before  # no tsqe table, no WAL switch, no journal, no backup copy


def test_opening_refuses_it_in_the_core_too(tmp_path: Path) -> None:
    path = foreign_sqlite(tmp_path / "books.db")
    before = files_of(tmp_path)
    with pytest.raises(TsqeError, match=r"holds tables customers, invoices\); nothing was changed"):
        open_database(path)
    assert files_of(tmp_path) == before


def test_tsqe_check_leaves_an_empty_file_empty(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    path.write_bytes(b"")
    code, _, stderr = tsqe(path, "check")
    assert code == 2 and stderr.strip() == f"error: {path} is not a tsqe database (it holds no tables); nothing was " \
                                           "changed"
    assert files_of(tmp_path) == {"empty.sqlite": hashlib.sha256(b"").hexdigest()}
    # opening it for work makes it a tsqe database: an empty file is a new database
    assert tsqe(path, "init")[0] == 0 and path.stat().st_size > 0


def test_tsqe_check_on_dev_null_leaves_no_journal() -> None:
    if os.path.exists("/dev/null-journal"):
        pytest.skip("a /dev/null-journal is already there (left by another program)")
    for command in ("check", "status"):
        code, _, stderr = tsqe("/dev/null", command)
        assert code == 2 and stderr.strip() == ("error: /dev/null is not a database file (it is a device or pipe); "
                                                "nothing was changed")
        assert not os.path.exists("/dev/null-journal")


def test_tsqe_check_never_migrates_an_older_database(tmp_path: Path) -> None:
    from migration_helpers import at_revision

    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    with at_revision(url, "0004"):
        pass
    before = files_of(tmp_path)["old.sqlite"]
    code, stdout, stderr = tsqe(tmp_path / "old.sqlite", "check")
    assert (code, stdout.strip()) == (0, f"{tmp_path / 'old.sqlite'}: intact (integrity_check)"), stderr
    after = files_of(tmp_path)
    assert after["old.sqlite"] == before and not [name for name in after if ".bak" in name]  # still at 0004


@pytest.mark.parametrize("quick", [False, True])
def test_tsqe_check_writes_nothing_in_a_tsqe_database(tmp_path: Path, quick: bool) -> None:
    """A tsqe database at the newest schema, with a suite, in the write-ahead-log mode tsqe leaves its files in:
    the check reads it through a read-only connection, and the file is byte for byte as it was, with no journal,
    write-ahead log or shared-memory file beside it (a clean check used to be recorded in the file)."""
    from suite.demo import create_demo

    database = open_database(tmp_path / "t.sqlite")
    create_demo(database)
    database.close()
    with closing(sqlite3.connect(tmp_path / "t.sqlite")) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    before = files_of(tmp_path)
    assert list(before) == ["t.sqlite"]
    kind = "quick_check" if quick else "integrity_check"
    code, stdout, stderr = tsqe(tmp_path / "t.sqlite", "check", *(["--quick"] if quick else []))
    assert (code, stdout.strip(), stderr) == (0, f"{tmp_path / 't.sqlite'}: intact ({kind})", "")
    assert files_of(tmp_path) == before


def test_tsqe_check_reads_a_database_another_connection_is_writing(tmp_path: Path) -> None:
    """A check while another process holds the file open with a write-ahead log of its own: the check reads
    through it and leaves the log and the file to their owner."""
    database = open_database(tmp_path / "t.sqlite")
    with closing(sqlite3.connect(tmp_path / "t.sqlite")) as writer:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("INSERT INTO suites (name, source_lang, target_lang, created_at) "
                       "VALUES ('held', 'de', 'en', '2026-01-01 00:00:00')")
        writer.commit()
        before = files_of(tmp_path)
        assert "t.sqlite-wal" in before
        code, stdout, stderr = tsqe(tmp_path / "t.sqlite", "check")
        assert (code, stdout.strip()) == (0, f"{tmp_path / 't.sqlite'}: intact (integrity_check)"), stderr
        assert {name: digest for name, digest in files_of(tmp_path).items() if name != "t.sqlite-shm"} == {
            name: digest for name, digest in before.items() if name != "t.sqlite-shm"}
    database.close()


@pytest.fixture
def foreign_postgresql(postgresql_url: str) -> Iterator[str]:
    """A database on the test run's server holding another program's tables."""
    name = f"tsqe_foreign_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgresql_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = make_url(postgresql_url).set(database=name).render_as_string(hide_password=False)
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
        connection.exec_driver_sql("CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer INTEGER, total REAL)")
        connection.exec_driver_sql("INSERT INTO customers VALUES (1, 'Ada')")
    engine.dispose()
    try:
        yield url
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.dispose()


def postgresql_tables(url: str) -> list[str]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return sorted(inspect(connection).get_table_names())
    finally:
        engine.dispose()


@pytest.mark.parametrize("command", ["status", "check"])
def test_a_postgresql_database_of_another_program_is_refused(foreign_postgresql: str, command: str) -> None:
    code, _, stderr = tsqe(foreign_postgresql, command)
    assert code == 2, stderr
    assert "is not a tsqe database (it holds tables customers, invoices); nothing was changed" in stderr
    assert postgresql_tables(foreign_postgresql) == ["customers", "invoices"]


def test_tsqe_check_writes_nothing_on_postgresql(postgresql_url: str) -> None:
    """A tsqe database whose sessions are read-only (``default_transaction_read_only``): the check runs in a
    read-only transaction and succeeds, where recording its result failed; every table holds what it held."""
    from import_helpers import snapshot

    from suite.demo import create_demo

    name = f"tsqe_checked_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgresql_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = make_url(postgresql_url).set(database=name).render_as_string(hide_password=False)
    try:
        database = open_database(url)
        create_demo(database)
        before = snapshot(database)
        database.close()
        with admin.connect() as connection:
            connection.exec_driver_sql(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
        code, stdout, stderr = tsqe(url, "check")
        assert code == 0 and stdout.strip().endswith(": intact (connection)"), stderr
        with admin.connect() as connection:
            connection.exec_driver_sql(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
        database = open_database(url)
        assert snapshot(database) == before
        database.close()
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.dispose()


def test_tsqe_check_leaves_an_empty_postgresql_database_empty(foreign_postgresql: str) -> None:
    engine = create_engine(foreign_postgresql)
    with engine.begin() as connection:
        connection.exec_driver_sql("DROP TABLE customers, invoices")
    engine.dispose()
    code, _, stderr = tsqe(foreign_postgresql, "check")
    assert code == 2 and "is not a tsqe database (it holds no tables); nothing was changed" in stderr
    assert postgresql_tables(foreign_postgresql) == []


@pytest.mark.parametrize("command", [("status",), ("outputs",), ("tree",), ("label",), ("report", "systems"),
                                     ("review", "1", "pass", "--reviewer", "ann")])
@pytest.mark.parametrize("where", ["dfki.sqllite", "typo/dfki.sqlite"])
def test_a_missing_database_file_is_not_created_by_a_command_that_reads_or_adds_to_one(
        tmp_path: Path, command: tuple[str, ...], where: str) -> None:
    """A mistyped or moved ``--db`` path: one sentence, exit 2, and no empty database left behind, nor a folder for
    it (the old code created both, and then said that the database held no suite)."""
    missing = tmp_path / where
    code, _, stderr = tsqe(missing, *command)
    assert code == 2, stderr
    assert stderr.startswith(f"error: there is no database at {missing}; nothing was created (`tsqe init` creates")
    assert list(tmp_path.iterdir()) == []


def test_check_of_a_missing_file_makes_no_folder_for_it(tmp_path: Path) -> None:
    missing = tmp_path / "typo" / "dfki.sqlite"
    code, _, stderr = tsqe(missing, "check")
    assert code == 2 and stderr == f"error: {missing}: no such database file\n"
    assert list(tmp_path.iterdir()) == []


def test_init_demo_and_imports_create_the_database_file(tmp_path: Path) -> None:
    suite = tmp_path / "suite.tsv"
    suite.write_text("id\tcategory\tphenomenon\tsource\tpositive_regex\nx-1\tc\tp\tDer Hund.\t\\bdog\\b\n",
                     encoding="utf-8")
    for name, command in (("new/a.sqlite", ("init",)), ("b.sqlite", ("import", "suite", str(suite), "--source-lang",
                                                                    "de", "--target-lang", "en"))):
        code, _, stderr = tsqe(tmp_path / name, *command)
        assert code == 0, stderr
        assert (tmp_path / name).is_file()
    with pytest.raises(TsqeError, match="there is no database at"):
        open_database(tmp_path / "c.sqlite", create=False)
    assert not (tmp_path / "c.sqlite").exists()
