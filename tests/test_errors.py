"""Core errors speak of the data; the command line adds its own hints, and bad options or files are no traceback."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hostile_helpers import demo_copy, make_demo_file
from typer.testing import CliRunner

from cli.main import app
from store import Database
from suite.engine.labelling import label_counts
from suite.errors import SuiteChoiceError
from suite.importers import import_suite


def tsqe(db: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    return result.exit_code, result.stderr


def test_choosing_a_suite_speaks_of_the_data_and_the_cli_adds_the_flag(db: Database, tmp_path: Path) -> None:
    with pytest.raises(SuiteChoiceError) as empty:
        label_counts(db)
    assert "--" not in str(empty.value) and "tsqe" not in str(empty.value)
    for name in ("de-en", "en-de"):
        path = tmp_path / name / "suite.tsv"
        path.parent.mkdir()
        path.write_text("id\tcategory\tphenomenon\tsource\tpositive_regex\nx\tC\tP\tEin Satz.\tsentence\n",
                        encoding="utf-8")
        import_suite(db, path, source_lang=name[:2], target_lang=name[3:])
    with pytest.raises(SuiteChoiceError, match="the database holds several suites: de-en, en-de"):
        label_counts(db)
    code, stderr = tsqe(tmp_path / "tsqe.sqlite", "status")
    assert code == 2
    assert stderr.strip() == ("error: the database holds several suites: de-en, en-de; name the one to work on "
                              "(name one with --suite NAME; add one with `tsqe import suite FILE` or `tsqe demo`)")


def test_bad_option_combinations_and_unwritable_files_are_user_errors(tmp_path: Path) -> None:
    path = tmp_path / "demo.sqlite"
    assert tsqe(path, "demo")[0] == 0
    code, stderr = tsqe(path, "score", "--metric", "bleu", "--model", "X")
    assert (code, stderr.strip()) == (2, "error: bleu compares words with references: it takes no embedding model, "
                                         "layers, device or embedding storage")
    code, stderr = tsqe(path, "export", "labels", str(tmp_path / "missing" / "labels.tsv"))
    assert code == 2 and stderr.startswith("error: ") and "No such file or directory" in stderr



def test_a_reader_that_stops_reading_is_no_error(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    """``tsqe status | head -1``: the closed pipe is the reader's choice; it said "error: Broken pipe" (status 2)
    where click, and ``tsqe outputs``, end quietly with status 1."""
    db = demo_copy(make_demo_file(tmp_path_factory), tmp_path / "t.sqlite")
    for command in ("status", "outputs"):
        process = subprocess.Popen([sys.executable, "-m", "cli", "--db", str(db), command], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, cwd=Path(__file__).parents[1])
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # before the command writes its first line
        stderr = process.stderr.read()
        assert (process.wait(timeout=120), stderr) == (1, b""), command
