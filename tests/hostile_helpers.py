"""What the hostile-input and fault tests share: a tsqe run under a memory limit, a small disk, a demo database.

A hostile pattern or file is always run in a child process with a bound on its address space: on code without
the protections under test it fails there with ``MemoryError`` instead of taking the machine's memory (the 19
characters of ``(?:a{65535}){65535}`` grew to 21.7 GB). A full disk is a small tmpfs mounted for the test (root
only, as CI runs; skipped with the reason otherwise).
"""
from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from import_helpers import snapshot
from typer.testing import CliRunner

from cli.main import app
from store import open_database
from suite.demo import create_demo

MEMORY_LIMIT = 2 * 1024 ** 3
"""Bytes of address space a hostile run may take: tsqe's imports need a few hundred megabytes."""
REPOSITORY = Path(__file__).resolve().parents[1]


def tsqe(db: Path, *args: str) -> tuple[int, str]:
    """``tsqe --db DB ARGS`` in this process: its exit status and what it printed on standard error."""
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    return result.exit_code, result.stderr


def rows_of(db: Path) -> dict[str, list[tuple[object, ...]]]:
    database = open_database(db)
    try:
        return snapshot(database)
    finally:
        database.close()


def unchanged(db: Path, run: tuple[int, str], before: dict[str, list[tuple[object, ...]]]) -> str:
    """The error ``run`` printed, after checking that it refused (exit status 2, one error, no traceback) and that
    the database holds what it held ``before``."""
    code, stderr = run
    assert code == 2 and stderr.startswith("error: ") and "Traceback" not in stderr, stderr
    assert rows_of(db) == before
    return stderr


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def bounded_tsqe(db: Path | str, *args: str, timeout: float = 120,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``tsqe --db DB ARGS`` in a child process whose memory is bounded by :data:`MEMORY_LIMIT`."""
    return subprocess.run([sys.executable, "-m", "cli", "--db", str(db), *args], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=_limit_memory, cwd=REPOSITORY, env=env, check=False)


def bounded_python(code: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Python ``code`` in a child process whose memory is bounded by :data:`MEMORY_LIMIT`."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limit_memory, cwd=REPOSITORY, check=False)


def demo_copy(source: Path, target: Path) -> Path:
    shutil.copy(source, target)
    return target


def make_demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database file holding the demo suite, labelled (a module's fixture); ``demo_copy`` it before changing it."""
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    database = open_database(path)
    create_demo(database)
    database.close()
    return path


@contextmanager
def mounted_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (e.g. ``"2m"``) at ``where``, unmounted afterwards; skips the test when it cannot be
    mounted (not root, or no mount permission in this sandbox)."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to fill up ({mounted.stderr.strip() or 'mount failed'}): "
                    f"run the tests as root")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def read_only_mount(where: Path) -> None:
    """Remount the tmpfs at ``where`` read-only (root ignores file permissions, not a read-only file system)."""
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)


def fill(where: Path) -> None:
    """Fill the file system at ``where`` to its last byte (file ``filler``; remove it to free the space)."""
    descriptor = os.open(where / "filler", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        for size in (1 << 16, 1 << 10, 1):
            try:
                while os.write(descriptor, b"\0" * size):
                    pass
            except OSError:
                continue
    finally:
        os.close(descriptor)


@contextmanager
def bounded_address_space(headroom: int = MEMORY_LIMIT) -> Iterator[None]:
    """This very process may grow by ``headroom`` bytes of address space inside the block (for a test that must
    run in the process, as a window's does)."""
    with open("/proc/self/status", encoding="ascii") as status:
        size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (size + headroom, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
