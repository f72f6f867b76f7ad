"""The distribution (issue 31): ``python -m build`` makes an sdist and, from it, a wheel that works installed.

A new user installs tsqe with pip or pipx, not from a checkout: the wheel must carry the migrations (``tsqe``
creates its database with them) and the demo suite's files, and the command must run from any folder. The wheel
goes into a new venv without its dependencies (``--no-deps``); the venv sees this environment's site-packages
(where they are installed) behind its own, through a ``.pth`` line, which adds that folder alone: an editable
install of a checkout there (its own ``.pth``) is not read, so what runs is the wheel's code. Built without
isolation (hatchling from the test extras), so no network is needed.
"""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("hatchling", reason="the build backend (test extras) builds without network")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)], check=True,
                   capture_output=True)
    wheels = list(out.glob("tsqe-*.whl"))
    assert len(wheels) == 1 and len(list(out.glob("tsqe-*.tar.gz"))) == 1
    return wheels[0]


def test_the_wheel_carries_the_migrations_and_the_demo(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    migrations = {p.name for p in (ROOT / "alembic" / "versions").glob("*.py")}
    assert migrations and {f"store/migrations/versions/{name}" for name in migrations} <= names
    assert "store/migrations/env.py" in names
    assert {f"suite/demo/{p.name}" for p in (ROOT / "suite" / "demo").iterdir() if p.is_file()} <= names
    assert {"tsqe/__init__.py", "cli/entry.py", "gui/app.py"} <= names
    assert not any(name.startswith(("tests/", "bench/")) for name in names)


def test_the_installed_wheel_runs_from_another_folder(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    Path(purelib, "shared-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "--no-index", str(wheel)], check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "TSQE_DB", "VIRTUAL_ENV")}
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "data"), HF_HUB_OFFLINE="1")

    def tsqe(*args: str) -> str:
        result = subprocess.run([str(venv / "bin" / "tsqe"), *args], cwd=elsewhere, env=env, capture_output=True,
                                text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert tsqe("--version") == f"tsqe {VERSION}\n"
    assert "Created suite 'tsqe-demo-de-en'" in tsqe("--db", "demo.sqlite", "demo")
    assert "items" in tsqe("--db", "demo.sqlite", "status")
    where = subprocess.run([str(python), "-c", "import suite, tsqe; print(suite.__file__, tsqe.__version__)"],
                           cwd=elsewhere, env=env, check=True, capture_output=True, text=True).stdout.split()
    assert where == [str(Path(purelib, "suite", "__init__.py")), VERSION]
