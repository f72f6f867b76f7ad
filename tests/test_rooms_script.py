"""tools/rooms.py, the move of suite/ into rooms, on a small repository of the same shape: every kind of
reference it must rewrite, what it must leave alone, and a second run that changes nothing."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]

FILES = {
    "suite/__init__.py": '"""The core."""\n',
    "suite/tasks.py": "def step() -> None: ...\n",
    "suite/labelling.py": '"""Labelling; see ``suite.rules.describe``."""\nCHUNK = 200\n',
    "suite/rules.py": "def describe() -> str:\n    return ''\n",
    # the old facade re-exports item_detail, the function of the module that moves into its room
    "suite/editing.py": ('"""The API; an item read whole: ``suite.editing.item_detail``."""\n'
                         "from suite.item_detail import item_detail\nfrom suite.items import find_item\n\n"
                         '__all__ = ["find_item", "item_detail"]\n'),
    "suite/item_detail.py": "def item_detail() -> None: ...\n",
    "suite/items.py": "def find_item() -> None: ...\n",
    "suite/newcomer.py": "X = 1\n",  # a module the mapping does not know: left where it is
    "suite/engine/__init__.py": '"""Old words."""\n',
    "suite/importers/__init__.py": "",
    "suite/importers/tables.py": "from suite import labelling\n\ndef read_lines() -> None: ...\n",
    "cli/__init__.py": "",
    "cli/labels.py": (
        "from suite import editing, tasks\n"
        "from suite import labelling as lab  # noqa: F401\n"
        "from suite.editing import find_item, item_detail\n"
        "from suite.importers import tables\n\n\n"
        "def run() -> None:\n"
        "    import suite.items\n\n"
        "    suite.items.find_item()\n"
        "    editing.find_item(), find_item(), tasks.step(), tables.read_lines()\n"
    ),
    "tests/test_x.py": (
        "def test_x(monkeypatch, suite):\n"
        '    monkeypatch.setattr("suite.labelling.CHUNK", 1)\n'
        '    monkeypatch.setattr("suite.labelling.CHUNK", 2)  # a trailing comment that the longer name pushes '
        'to 120.\n'
        '    """A docstring line that the longer name of ``suite.labelling`` pushes past the line length, so it '
        'is to be wrapped.\n'
        '    Its paragraph goes on here."""\n'
        "    suite.items.append(1)  # a Suite row's items, not the module\n"
    ),
    "README.md": ("The engine is `suite/labelling.py`; edits go through `suite.editing` and "
                  "`suite.editing.find_item`.\n"),
}


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rooms", ROOT / "tools" / "rooms.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rooms"] = module  # its dataclass looks its module up while the class is made
    spec.loader.exec_module(module)
    return module


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "before")
    return tmp_path


def test_moves_modules_rewrites_references_and_a_second_run_changes_nothing(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rooms = load_script()
    assert rooms.main([str(repo), "--no-ruff"]) == 0
    said = capsys.readouterr().out
    assert "left at suite/ top (not in the mapping): suite/newcomer.py" in said

    for old, new in [("labelling", "engine/labelling"), ("rules", "engine/rules"), ("editing", "editing/api"),
                     ("items", "editing/items"), ("importers/tables", "importers/table_files")]:
        assert not (repo / f"suite/{old}.py").exists()
        assert (repo / f"suite/{new}.py").exists()
    assert (repo / "suite/newcomer.py").exists() and (repo / "suite/tasks.py").exists()
    assert "suite/labelling.py -> suite/engine/labelling.py" in git(repo, "status", "--short")  # git mv
    assert (repo / "suite/editing/__init__.py").read_text().startswith('"""Writes and their history')
    assert (repo / "suite/engine/__init__.py").read_text().startswith('"""The rule engine')

    cli = (repo / "cli/labels.py").read_text()
    assert "from suite.editing import api as editing\n" in cli
    assert "from suite import tasks\n" in cli
    assert "from suite.engine import labelling as lab  # noqa: F401\n" in cli
    assert "from suite.editing.api import find_item, item_detail\n" in cli
    assert "from suite.importers import table_files as tables\n" in cli
    assert "    import suite.editing.items\n\n    suite.editing.items.find_item()\n" in cli
    assert "editing.find_item(), find_item(), tasks.step(), tables.read_lines()" in cli
    assert (repo / "suite/importers/table_files.py").read_text().startswith("from suite.engine import labelling\n")
    assert (repo / "suite/editing/api.py").read_text().startswith(
        '"""The API; an item read whole: ``suite.editing.api.item_detail``."""\n'
        "from suite.editing.item_detail import item_detail\nfrom suite.editing.items import find_item\n")
    assert "``suite.engine.rules.describe``" in (repo / "suite/engine/labelling.py").read_text()
    test = (repo / "tests/test_x.py").read_text()
    assert '"suite.engine.labelling.CHUNK"' in test and "    suite.items.append(1)" in test
    assert '2)  # a trailing comment that the longer name pushes to 120.\n' in test  # code is never wrapped
    assert ('    """A docstring line that the longer name of ``suite.engine.labelling`` pushes past the line '
            'length, so it is to be\n    wrapped. Its paragraph goes on here."""\n') in test
    assert (repo / "README.md").read_text() == ("The engine is `suite/engine/labelling.py`; edits go through "
                                                "`suite.editing.api` and `suite.editing.api.find_item`.\n")
    for path in repo.rglob("*.py"):
        compile(path.read_text(), str(path), "exec")

    git(repo, "add", "-A")
    before = git(repo, "diff", "--cached", "HEAD")
    assert rooms.main([str(repo), "--no-ruff"]) == 0
    assert "0 modules moved, 0 files rewritten" in capsys.readouterr().out
    git(repo, "add", "-A")
    assert git(repo, "diff", "--cached", "HEAD") == before


def test_a_branch_merged_after_the_move_is_rewritten_too(repo: Path) -> None:
    """A late branch still says ``from suite.editing import find_item`` (the old facade) and ``suite.labelling``:
    running the script again moves nothing and points them at the rooms."""
    rooms = load_script()
    rooms.main([str(repo), "--no-ruff"])
    late = repo / "cli/late.py"
    late.write_text("from suite.editing import find_item, items\nfrom suite.labelling import CHUNK\n")
    git(repo, "add", "-A")
    rooms.main([str(repo), "--no-ruff"])
    assert late.read_text() == ("from suite.editing.api import find_item\nfrom suite.editing import items\n"
                                "from suite.engine.labelling import CHUNK\n")


def test_refuses_a_tree_with_both_the_old_and_the_new_module(repo: Path) -> None:
    (repo / "suite/engine/labelling.py").write_text("CHUNK = 1\n")
    assert load_script().main([str(repo), "--no-ruff"]) == 1
    assert (repo / "suite/labelling.py").exists()
