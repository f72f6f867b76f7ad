"""Start-up stays fast: what every ``tsqe`` command and the window load first imports no heavy library.

``tsqe --help`` took 4-10 s because every command module imported matplotlib, pandas, scipy and alembic at
start (issue 16). The heavy libraries are imported inside the functions that use them; these tests keep it so,
each in a fresh interpreter (this one has imported everything long ago). ``bench/startup.py`` measures the times.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

HEAVY = ("matplotlib", "pandas", "scipy", "alembic", "torch", "sacrebleu", "sklearn", "transformers", "bert_score",
         "openpyxl", "joblib", "textblob", "nltk")
"""Libraries that cost a tenth of a second or more to import and that no command needs merely to start."""


def imported_heavy(statement: str, env: dict[str, str] | None = None) -> list[str]:
    """The heavy top-level packages a fresh interpreter holds after running ``statement``."""
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                            env={**os.environ, **(env or {})})
    loaded = set(json.loads(result.stdout.strip().splitlines()[-1]))
    return sorted(loaded & set(HEAVY))


def test_the_command_line_loads_no_heavy_library() -> None:
    """``tsqe --help`` loads cli.main and every command module (cli.commands)."""
    assert imported_heavy("import cli.main, cli.commands") == []


def test_the_command_line_starts_without_the_database_layer() -> None:
    """Nor SQLAlchemy and NumPy, most of what was left of a second: a command module imports the core inside its
    command functions (the values its options show at definition come from cli/choices.py)."""
    code = ("import json, sys\nimport cli.main, cli.commands\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'sqlalchemy', 'numpy'})))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == []


def test_the_command_lines_copies_of_core_values_are_the_cores() -> None:
    from cli import choices
    from filters.metrics.statistics import RESAMPLES, SEED
    from filters.systems import HUMAN
    from qe.accuracy import BY
    from store.models import CHALLENGE_FORMATS, STANDARD_REFERENCE
    from suite.assist.rule_health import SORTS as RULE_HEALTH_SORTS
    from suite.engine.preview import PREVIEW_TIMEOUT, SCOPES
    from suite.references import COMBINATIONS, KNOWN_GOOD

    assert (choices.PREVIEW_TIMEOUT, choices.PREVIEW_SCOPES, choices.HUMAN, choices.REFERENCE_COMBINATIONS,
            choices.KNOWN_GOOD, choices.ACCURACY_ROWS, choices.BOOTSTRAP_RESAMPLES, choices.BOOTSTRAP_SEED,
            choices.STANDARD_REFERENCE, choices.CHALLENGE_FORMATS, choices.RULE_HEALTH_SORTS) == (
        PREVIEW_TIMEOUT, SCOPES, HUMAN, COMBINATIONS, KNOWN_GOOD, BY, RESAMPLES, SEED, STANDARD_REFERENCE,
        CHALLENGE_FORMATS, RULE_HEALTH_SORTS)


def test_every_command_builds_its_help() -> None:
    """Options are built from what the command modules import at the top: every command's --help still works."""
    import typer.main
    from typer.testing import CliRunner

    from cli.main import app
    group = typer.main.get_group(app)
    runner = CliRunner()

    def paths(command: object, prefix: list[str]) -> list[list[str]]:
        sub = getattr(command, "commands", None)
        if not sub:
            return [prefix]
        return [path for name, child in sub.items() for path in paths(child, [*prefix, name])]

    every = paths(group, [])
    assert len(every) > 30
    for path in every:
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)


def test_opening_a_database_loads_no_heavy_library(tmp_path: Path) -> None:
    """``tsqe status`` opens (and so migrates) a database: alembic only when its schema is behind."""
    database = tmp_path / "tsqe.sqlite"
    setup = f"from store import open_database\nopen_database({str(database)!r}).close()"
    assert "alembic" in imported_heavy(setup)  # a new file is migrated from scratch
    assert imported_heavy(setup) == []  # an up-to-date one is only checked


def test_the_window_loads_no_heavy_library_before_it_is_used() -> None:
    """The window's screens import matplotlib when a chart is drawn, not when the window is built."""
    statement = ("from gui.app import application\nfrom gui.main_window import MainWindow\n"
                 "app = application()\nwindow = MainWindow()")
    assert imported_heavy(statement, {"QT_QPA_PLATFORM": "offscreen"}) == []


@pytest.mark.parametrize("command", [["--help"], ["status", "--help"], ["import", "--help"]])
def test_help_still_lists_the_commands(command: list[str]) -> None:
    result = subprocess.run([sys.executable, "-m", "cli", *command], cwd=ROOT, capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert "Usage" in result.stdout
