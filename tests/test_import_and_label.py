"""Importing outputs and labelling them is one transaction (issue 21: the window ran them as two, and a failure or
a Cancel between them left outputs imported and unlabelled), with the same flag on the command line; and a job
says what it did when it ends (issue 16: "labelling: 7 new outputs labelled · pass +3 …", not "done")."""
from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import OUTPUTS_TSV, small_suite, snapshot, write
from typer.testing import CliRunner

from cli.main import app
from store import Database, open_database
from suite.changes import Where
from suite.engine.labelling import label_counts, label_suite
from suite.importers import import_outputs
from suite.importers import outputs as outputs_importer
from suite.tasks import Cancelled, Progress, TaskState

LABELLED = "7 new outputs labelled · pass +3 · fail +1 · unknown +3 · in 3 items"


@pytest.fixture
def db(any_db: Database) -> Database:
    return any_db


def test_outputs_imported_with_label_are_labelled_in_the_same_transaction(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path, outputs=False)
    result = import_outputs(db, write(tmp_path / "o.tsv", OUTPUTS_TSV), label=True)
    assert label_counts(db) == {"pass": 3, "fail": 1, "conflict": 0, "unknown": 3, "error": 0}
    assert result.labelled is not None and result.labelled.summary() == LABELLED
    assert result.summary[-1] == f"labelling: {LABELLED}"
    assert result.summary[0].startswith("9 system outputs of 3 systems (3 new)")
    assert result.changes.outputs == result.changes.labels and len(result.changes.outputs.ids) == 3


def test_an_import_labels_its_items_a_few_thousand_at_a_time(db: Database, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Each labelling call lists its items in one statement, which PostgreSQL takes with at most 65,535 parameters:
    an import of 70,000 items' outputs with --label failed there (tried by hand: 57 s once labelled in parts of
    20,000). Parts of one item here, with the counts read for the whole suite, say the same as one call."""
    monkeypatch.setattr(outputs_importer, "LABEL_ITEMS", 1)
    small_suite(db, tmp_path, outputs=False)
    result = import_outputs(db, write(tmp_path / "o.tsv", OUTPUTS_TSV), label=True)
    assert label_counts(db) == {"pass": 3, "fail": 1, "conflict": 0, "unknown": 3, "error": 0}
    assert result.labelled is not None and result.labelled.summary() == LABELLED


@pytest.mark.parametrize("how", ["failure", "cancel"])
def test_a_failed_or_cancelled_labelling_leaves_nothing_imported(db: Database, tmp_path: Path, how: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    small_suite(db, tmp_path, outputs=False)
    before = snapshot(db)
    path = write(tmp_path / "o.tsv", OUTPUTS_TSV)
    if how == "failure":
        def broken(*args: object, **kwargs: object) -> None:
            raise RuntimeError("a worker died")

        monkeypatch.setattr(outputs_importer, "relabel_items", broken)
        with pytest.raises(RuntimeError, match="a worker died"):
            import_outputs(db, path, label=True)
    else:
        def cancel_while_labelling(progress: Progress) -> None:
            if progress.message.startswith("labelling item"):
                task.cancel()

        task = TaskState(cancel_while_labelling)
        with pytest.raises(Cancelled):
            import_outputs(db, path, label=True, task=task)
    assert snapshot(db) == before


def test_labelling_says_what_it_changed(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path, outputs=False)
    import_outputs(db, write(tmp_path / "o.tsv", OUTPUTS_TSV))
    run = label_suite(db)
    assert run.summary() == LABELLED and run.newly_labelled == 7
    assert run.changes.labels == Where(anywhere=True)
    assert label_suite(db).summary() == "every label was up to date: nothing changed"


def test_tsqe_import_outputs_label(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    db = open_database(path)
    small_suite(db, tmp_path, outputs=False)
    result = CliRunner().invoke(app, ["--db", str(path), "import", "outputs", str(write(tmp_path / "o.tsv",
                                                                                        OUTPUTS_TSV)), "--label"])
    assert result.exit_code == 0, result.output
    assert f"labelling: {LABELLED}" in result.stdout
    assert label_counts(db)["pass"] == 3
    db.close()
