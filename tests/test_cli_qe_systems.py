from __future__ import annotations

from pathlib import Path

import pytest
from qe_testdata import stored_scores, toy_suite
from test_qe_models import dropped_words_data, learnable_suite, write_mlqe
from typer.testing import CliRunner, Result

from cli.main import app
from store import open_database
from store.models import Item, Reference


def tsqe(db: Path, *args: object) -> Result:
    return CliRunner().invoke(app, ["--db", str(db), *map(str, args)])


@pytest.fixture
def suite_db(tmp_path: Path) -> Path:
    path = tmp_path / "t.sqlite"
    database = open_database(path)
    toy_suite(database, learnable_suite())
    database.close()
    return path


def test_train_predict_evaluate_list_and_remove(suite_db: Path, tmp_path: Path) -> None:
    prefix = write_mlqe(tmp_path / "mlqe", dropped_words_data(60))
    result = tsqe(suite_db, "qe", "train", "--name", "svr", "--kind", "features-svr", "--data", prefix, "--folds", 3)
    assert result.exit_code == 0, result.output
    assert "trained svr (features-svr, target hter) on 60 sentences; 3-fold CV Pearson r = 0.9" in result.stdout

    result = tsqe(suite_db, "qe", "predict", "--name", "svr")
    assert result.exit_code == 0, result.output
    assert "svr: scored 160 outputs" in result.stdout

    result = tsqe(suite_db, "qe", "evaluate", "--name", "svr", "--data", prefix)
    assert result.exit_code == 0 and "svr on 60 sentences: Pearson r = 0.9" in result.stdout

    result = tsqe(suite_db, "qe", "train", "--name", "gb", "--kind", "pairwise-gb", "--folds", 4)
    assert result.exit_code == 0, result.output
    assert "trained gb (pairwise-gb) on 160 pass/fail pairs of 40 items; 4-fold CV grouped by item" in result.stdout
    assert "stored 160 out-of-fold output scores" in result.stdout

    result = tsqe(suite_db, "qe", "list")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    gb = next(line for line in lines if line.startswith("gb "))
    svr = next(line for line in lines if line.startswith("svr "))
    assert "pairwise-gb" in gb and "higher is better" in gb and " 160 " in gb and "suite toy" in gb
    assert "features-svr" in svr and "lower is better" in svr and "target hter on 60 sentences" in svr

    result = tsqe(suite_db, "qe", "predict", "--name", "gb")
    assert result.exit_code == 2 and "error: QE system 'gb' was trained on suite 'toy'" in result.stderr

    result = tsqe(suite_db, "qe", "train", "--name", "svr", "--kind", "features-svr", "--data", prefix)
    assert result.exit_code == 2 and "error: a QE system named 'svr' already exists" in result.stderr

    result = tsqe(suite_db, "qe", "remove", "svr")
    assert result.exit_code == 0 and "removed svr and its 160 scores" in result.stdout
    database = open_database(suite_db)
    assert list(stored_scores(database)) == ["gb"]
    database.close()


def test_bad_options_and_bad_data(suite_db: Path, tmp_path: Path) -> None:
    result = tsqe(suite_db, "qe", "train", "--name", "x", "--kind", "magic")
    assert result.exit_code == 2 and "'magic' is not one of features-svr, pairwise-gb" in result.output
    result = tsqe(suite_db, "qe", "train", "--name", "x", "--kind", "features-svr")
    assert result.exit_code == 2 and "features-svr trains on a QE dataset: name one" in result.stderr
    mlqe = tmp_path / "bad"
    mlqe.mkdir()
    (mlqe / "train.src").write_text("a\nb\n", encoding="utf-8")
    (mlqe / "train.mt").write_text("a\n", encoding="utf-8")
    (mlqe / "train.hter").write_text("0.1\n0.2\n", encoding="utf-8")
    result = tsqe(suite_db, "qe", "train", "--name", "x", "--kind", "features-svr", "--data", mlqe / "train")
    assert result.exit_code == 2 and f"{mlqe / 'train.mt'}:2: file ends here" in result.stderr
    result = tsqe(suite_db, "qe", "list")
    assert "no QE systems yet" in result.stdout


def test_metric_as_a_qe_proxy(suite_db: Path) -> None:
    pytest.importorskip("filters.scoring")
    database = open_database(suite_db)
    with database.transaction() as session:
        item = session.query(Item).filter(Item.external_id == "0000").one()
        session.add(Reference(item_id=item.id, text=item.outputs[0].text))
    database.close()
    result = tsqe(suite_db, "qe", "metric", "--metric", "chrf", "--name", "chrF")
    assert result.exit_code == 0, result.output
    assert "chrF: stored 4 chrf scores" in result.stdout
    database = open_database(suite_db)
    higher, scores = stored_scores(database, ["chrF"])["chrF"]
    database.close()
    assert higher and max(scores.values()) == pytest.approx(100.0)
