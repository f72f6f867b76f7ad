"""Faults of the database and its disk end in one sentence, exit status 2 and nothing changed.

Before, only ``TsqeError`` and ``OSError`` were caught: a full disk, a read-only or damaged file, a database of a
newer tsqe and an unreachable PostgreSQL server reached the user as 90-146-line SQLAlchemy tracebacks (one of
them printed ten rows of the user's data). The disks here are small tmpfs mounts (root only, as CI runs).
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_helpers import REPOSITORY, demo_copy, fill, make_demo_file, mounted_tmpfs, read_only_mount
from import_helpers import snapshot
from sqlalchemy import text
from typer.testing import CliRunner

from cli.main import app
from store import open_database
from store.migrations import upgrade_to_head


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_file(tmp_path_factory)


def tsqe(db: Path | str, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args], env=env)
    return result.exit_code, result.stdout, result.stderr


def one_line_error(stderr: str) -> str:
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    assert "Traceback" not in stderr and "[SQL:" not in stderr and "sqlalche.me" not in stderr
    return stderr.strip()


def rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    database = open_database(path)
    try:
        return snapshot(database)
    finally:
        database.close()


def _changed(db: Path, statement: str) -> Path:
    """``db`` after one SQL statement, as another program (or another tsqe) might have left it."""
    database = open_database(db)
    try:
        with database.transaction() as session:
            session.execute(text(statement))
    finally:
        database.close()
    return db


# --- a full disk ---------------------------------------------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with mounted_tmpfs(tmp_path / "disk", "3m") as disk:
        yield disk


def _outputs(path: Path, systems: int) -> Path:
    items = [f"amb-{n:02d}" for n in range(1, 8)] + [f"vt-{n:02d}" for n in range(1, 11)]
    path.write_text("item_id\tsystem\toutput\n" + "".join(
        f"{item}\tS{system}\t{item} {system} " + "a long output that takes room on the disk " * 20 + "\n"
        for system in range(systems) for item in items), encoding="utf-8")
    return path


def test_an_import_on_a_full_disk_says_so_and_changes_nothing(small_disk: Path, demo_file: Path,
                                                             tmp_path: Path) -> None:
    db = demo_copy(demo_file, small_disk / "t.sqlite")
    before = rows(db)
    code, _, stderr = tsqe(db, "import", "outputs", str(_outputs(tmp_path / "big.tsv", 400)))
    assert code == 2
    assert one_line_error(stderr) == (f"error: the disk holding {db} is full: nothing was changed; free some space "
                                      f"and try again")
    assert rows(db) == before


def test_a_review_and_a_relabel_on_a_full_disk_say_so_and_change_nothing(small_disk: Path, demo_file: Path,
                                                                        tmp_path: Path) -> None:
    db = demo_copy(demo_file, small_disk / "t.sqlite")
    assert tsqe(db, "import", "outputs", str(_outputs(tmp_path / "some.tsv", 40)))[0] == 0
    before = rows(db)
    fill(small_disk)
    for args in (("review", "1", "fail", "--comment", "x" * 100_000), ("label",)):
        code, _, stderr = tsqe(db, *args)
        assert code == 2 and "is full: nothing was changed" in one_line_error(stderr)
    (small_disk / "filler").unlink()
    assert rows(db) == before


# --- read-only, damaged, newer ---------------------------------------------------------------------------------

def test_a_read_only_database_is_read_and_a_write_is_refused_in_words(tmp_path: Path, demo_file: Path) -> None:
    with mounted_tmpfs(tmp_path / "ro", "5m") as folder:
        db = demo_copy(demo_file, folder / "t.sqlite")
        before = rows(db)
        read_only_mount(folder)
        code, stdout, _ = tsqe(db, "status")
        assert code == 0 and f"items{len(before['items']):>20}" in stdout  # read: the demo's item count
        code, _, stderr = tsqe(db, "review", "1", "fail")
        assert code == 2
        assert one_line_error(stderr) == (f"error: {db} is read-only (the file or its folder cannot be written): "
                                          f"nothing was changed; reading it works")
        assert rows(db) == before


def _damaged(kind: str, source: Path, target: Path) -> Path:
    data = bytearray(source.read_bytes())
    if kind == "cut in half":
        data = data[: len(data) // 2]
    elif kind == "smashed header":
        data[:100] = b"X" * 100
    elif kind == "flipped bytes":
        for offset in range(4096, len(data), 4096):  # every page's header but the first's
            data[offset: offset + 8] = b"\xff\x00\xff\x13" * 2
    else:
        data = bytearray(b"item_id\tsystem\toutput\nthis is a text file\n")
    target.write_bytes(bytes(data))
    return target


@pytest.mark.parametrize("kind", ["cut in half", "smashed header", "flipped bytes", "text file"])
def test_a_damaged_database_is_named_and_tsqe_check_lists_the_damage(kind: str, demo_file: Path,
                                                                     tmp_path: Path) -> None:
    db = _damaged(kind, demo_file, tmp_path / "t.sqlite")
    for args in (("status",), ("outputs",), ("review", "1", "fail")):
        code, _, stderr = tsqe(db, *args)
        assert code == 2
        message = one_line_error(stderr)
        assert f"{db} is damaged" in message or f"{db} is not a tsqe database" in message
        assert message.endswith("(`tsqe check` lists what is damaged)")
    code, _, stderr = tsqe(db, "check")
    assert code == 2 and stderr.startswith(f"error: {db} is damaged (integrity_check found ")
    assert not list(tmp_path.glob("*.bak*"))  # no backup copy of a damaged file


def test_tsqe_check_of_an_intact_old_database_writes_nothing_and_status_asks_for_no_check(demo_file: Path,
                                                                                        tmp_path: Path) -> None:
    """A check keeps no record (issue 27: it never writes), so ``status`` has no date of a last check to warn
    about: it used to warn about databases made more than 30 days ago and never checked."""
    db = _changed(demo_copy(demo_file, tmp_path / "t.sqlite"), "UPDATE suites SET created_at = '2020-01-01 00:00:00'")
    before = db.read_bytes()
    code, stdout, stderr = tsqe(db, "check", "--quick")
    assert (code, stdout.strip(), stderr) == (0, f"{db}: intact (quick_check)", "")
    assert db.read_bytes() == before
    code, _, stderr = tsqe(db, "status")
    assert code == 0 and stderr == ""


def test_a_database_of_a_newer_tsqe_asks_for_an_upgrade_and_takes_no_backup(demo_file: Path,
                                                                           tmp_path: Path) -> None:
    db = _changed(demo_copy(demo_file, tmp_path / "t.sqlite"), "UPDATE alembic_version SET version_num = '0999'")
    for _ in range(2):
        code, _, stderr = tsqe(db, "status")
        assert code == 2
        assert one_line_error(stderr).startswith(f"error: {db} was written by a newer tsqe (schema revision 0999; "
                                                 f"this tsqe knows up to ")
        assert stderr.strip().endswith("upgrade tsqe to open it")
    assert not list(tmp_path.glob("*.bak*"))


def test_an_unparsable_database_url_says_so_without_repeating_it() -> None:
    code, _, stderr = tsqe("postgresql+psycopg://ann:s3cret word@[::1", "status")
    assert code == 2 and "s3cret" not in stderr
    assert one_line_error(stderr) == ("error: the database URL is malformed: expected a file path or a URL such as "
                                      "postgresql+psycopg://USER@HOST/DATABASE")


# --- PostgreSQL --------------------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_nothing_listening_and_a_missing_driver_are_said_without_the_password() -> None:
    port = _free_port()
    code, _, stderr = tsqe(f"postgresql+psycopg://ann:s3cret@127.0.0.1:{port}/tsqe", "status")
    assert code == 2 and "s3cret" not in stderr
    assert one_line_error(stderr) == (f"error: cannot connect to postgresql+psycopg://ann:***@127.0.0.1:{port}/tsqe: "
                                      f"nothing is listening there (is the server running, on that port?)")
    code, _, stderr = tsqe("postgresql+pg8000://ann:s3cret@127.0.0.1/tsqe", "status")
    assert code == 2 and "s3cret" not in stderr
    assert "its database driver is not installed (pg8000)" in one_line_error(stderr)


def test_a_server_that_never_answers_is_given_up_after_the_connect_timeout() -> None:
    """A listener that accepts the connection and says nothing, as a hung server or a half-open firewall does."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    port = server.getsockname()[1]
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        started = time.monotonic()
        code, _, stderr = tsqe(f"postgresql+psycopg://ann:s3cret@127.0.0.1:{port}/tsqe", "status",
                               env={"TSQE_CONNECT_TIMEOUT": "2"})
        elapsed = time.monotonic() - started
    finally:
        stop.set()
        thread.join()
        for connection in accepted:
            connection.close()
        server.close()
    assert code == 2 and "s3cret" not in stderr and accepted
    assert "did not answer in time (connect_timeout)" in one_line_error(stderr)
    assert elapsed < 15


def test_an_unknown_database_is_said(postgresql_url: str) -> None:
    from sqlalchemy.engine import make_url

    wrong = make_url(postgresql_url).set(database="tsqe_no_such_database", password="s3cret")
    code, _, stderr = tsqe(wrong.render_as_string(hide_password=False), "status")
    assert code == 2 and "s3cret" not in stderr
    assert one_line_error(stderr).startswith("error: cannot connect to ")
    assert 'database "tsqe_no_such_database" does not exist' in stderr


def test_a_refused_password_is_said_without_it() -> None:
    """The test cluster trusts local connections, so psycopg's own message stands for a server that refuses."""
    psycopg = pytest.importorskip("psycopg")
    from store.faults import database_fault

    refused = psycopg.OperationalError('connection failed: connection to server at "10.1.2.3", port 5432 failed: '
                                       'FATAL:  password authentication failed for user "ann"')
    fault = database_fault(refused, "postgresql+psycopg://ann:***@10.1.2.3/tsqe")
    assert str(fault) == ("cannot connect to postgresql+psycopg://ann:***@10.1.2.3/tsqe: the server refused the "
                          "user's password")


# --- Ctrl+C, and what is no fault of the user ------------------------------------------------------------------

def test_ctrl_c_during_an_import_rolls_back_and_says_so(demo_file: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    db = demo_copy(demo_file, tmp_path / "t.sqlite")
    before = rows(db)
    from suite.importers import outputs

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(outputs, "add_unlabelled", interrupted)
    code, _, stderr = tsqe(db, "import", "outputs", str(_outputs(tmp_path / "o.tsv", 2)))
    assert (code, stderr) == (130, "interrupted: nothing was changed\n")
    assert rows(db) == before


def test_a_real_ctrl_c_in_the_middle_of_an_import_rolls_back_and_says_so(demo_file: Path, tmp_path: Path) -> None:
    """SIGINT to the whole process group, as a terminal's Ctrl+C sends it, while 200,000 rows are read."""
    db = demo_copy(demo_file, tmp_path / "t.sqlite")
    before = rows(db)
    items = [item for item, in _items(db)]
    big = tmp_path / "big.tsv"
    big.write_text("item_id\tsystem\toutput\n" + "".join(f"{item}\tS{n}\tOutput {n} of {item}.\n"
                                                          for n in range(200_000 // len(items)) for item in items),
                   encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "cli", "--db", str(db), "import", "outputs", str(big)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               cwd=REPOSITORY)
    time.sleep(3)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert (process.returncode, stderr) == (130, "interrupted: nothing was changed\n")
    assert rows(db) == before


def _items(db: Path) -> list[tuple[str]]:
    database = open_database(db)
    try:
        with database.session() as session:
            return [tuple(row) for row in session.execute(text("SELECT external_id FROM items"))]
    finally:
        database.close()


@pytest.mark.parametrize(("error", "message"), [
    (MemoryError(), "error: tsqe ran out of memory: nothing was changed; close other programs or split the input"),
    (RecursionError("maximum recursion depth exceeded"),
     "error: the input is nested too deeply to be read: nothing was changed"),
    (TypeError("unsupported operand"), "error: tsqe failed unexpectedly (TypeError: unsupported operand); this is a "
                                       "bug: run the command again with TSQE_DEBUG=1 to see where, and report it"),
])
def test_memory_recursion_and_bugs_are_one_line(error: BaseException, message: str, demo_file: Path,
                                                tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = demo_copy(demo_file, tmp_path / "t.sqlite")
    from suite.reading import status

    def failing(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(status, "_count", failing)
    code, _, stderr = tsqe(db, "status")
    assert code == 2 and one_line_error(stderr) == message


def test_a_database_error_that_is_no_fault_prints_no_rows_of_data(demo_file: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLAlchemy's message of a failed statement holds the statement and its parameters (the user's texts)."""
    db = _changed(demo_copy(demo_file, tmp_path / "t.sqlite"), "CREATE TRIGGER refuse BEFORE INSERT ON outputs BEGIN "
                                                              "SELECT RAISE(ABORT, 'refused by a trigger'); END")
    code, _, stderr = tsqe(db, "import", "outputs", str(_outputs(tmp_path / "o.tsv", 2)))
    assert code == 2
    message = one_line_error(stderr)
    assert "refused by a trigger" in message and "a long output" not in message


def test_upgrading_a_read_only_database_of_an_older_tsqe_says_what_to_do(tmp_path: Path, demo_file: Path) -> None:
    with mounted_tmpfs(tmp_path / "ro", "5m") as folder:
        db = _changed(demo_copy(demo_file, folder / "t.sqlite"), "UPDATE alembic_version SET version_num = '0005'")
        read_only_mount(folder)
        code, _, stderr = tsqe(db, "status")
        assert code == 2 and "is read-only and was written by an older tsqe (schema revision 0005)" in stderr
    assert callable(upgrade_to_head)  # the same check guards every open: store.migrations
