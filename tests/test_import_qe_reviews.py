from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import small_suite, snapshot, write
from sqlalchemy import select

from store import Database
from store.models import Item, ManualLabel, Output, QEScore, QESystem
from suite.errors import InputFileError, TsqeError
from suite.importers import import_qe_scores, import_reviews


@pytest.fixture
def db(any_db: Database) -> Database:
    """Every test of this module that takes a database runs on SQLite and on PostgreSQL."""
    return any_db


def scores(db: Database, name: str) -> dict[tuple[str, str], float]:
    with db.session() as session:
        rows = session.execute(select(Item.external_id, Output.text, QEScore.score)
                               .join(Output, Output.id == QEScore.output_id).join(Item, Item.id == Output.item_id)
                               .join(QESystem, QESystem.id == QEScore.qe_system_id).where(QESystem.name == name))
        return {(item, text): score for item, text, score in rows}


def problems(excinfo: pytest.ExceptionInfo[InputFileError]) -> list[str]:
    return [str(problem) for problem in excinfo.value.problems]


def test_qe_scores_by_system_average_disagreeing_identical_outputs(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    path = write(tmp_path / "qe.tsv", "item_id\tsystem\tscore\n1\tA\t0.5\n1\tB\t0.7\n1\tC\t-1e-1\n3\tA\t2\n3\tB\t2\n")
    result = import_qe_scores(db, path, name="comet-qe", lower_is_better=True)
    assert [str(w) for w in result.warnings] == [
        f"{path}:3: identical outputs were scored differently (0.5 at line 2, 0.7 at line 3); stored their mean 0.6"]
    assert result.counts["scores"] == 3 and result.counts["scores_added"] == 3
    assert scores(db, "comet-qe") == pytest.approx({("1", "Her husband came."): 0.6, ("1", "Her man came."): -0.1,
                                                    ("3", "He won't run."): 2.0})
    with db.session() as session:
        qe_system = session.scalar(select(QESystem))
        assert qe_system is not None
        assert (qe_system.kind, qe_system.higher_is_better) == ("imported", False)


def test_qe_scores_by_output_text_and_reimport_updates(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    path = write(tmp_path / "qe.tsv", 'item_id\toutput\tscore\n2\t"He said ""run""."\t0.25\n2\t\t0\n')
    assert import_qe_scores(db, path, name="q").counts["scores_added"] == 2
    again = write(tmp_path / "qe2.tsv", "item_id\toutput\tscore\n2\t\t0.1\n3\tHe will run.\t0.9\n")
    result = import_qe_scores(db, again, name="q")
    assert {k: result.counts[k] for k in ("scores_added", "scores_changed", "scores_unchanged")} == {
        "scores_added": 1, "scores_changed": 1, "scores_unchanged": 0}
    assert scores(db, "q") == {("2", 'He said "run".'): 0.25, ("2", ""): 0.1, ("3", "He will run."): 0.9}


@pytest.mark.parametrize(("text", "expected"), [
    ("item_id\tsystem\tscore\n1\tA\tgood\n", [":2: score 'good' is not a number"]),
    ("item_id\tsystem\tscore\n1\tA\tnan\n1\tB\t\n", [":2: score 'nan' is not a finite number", ":3: empty score"]),
    ("item_id\tsystem\tscore\n7\tA\t1\n1\tZ\t1\n", [":2: unknown item id '7'",
                                                   ":3: unknown system 'Z' (systems of this suite: A, B, C)"]),
    ("item_id\tsystem\tscore\n1\tA\t1\n1\tA\t1\n",
     [":3: duplicate score of system 'A' for item '1' (first at line 2)"]),
    ("item_id\toutput\tscore\n1\tHis husband came.\t1\n",
     [":2: item '1' has no output 'His husband came.' (import the MT outputs first)"]),
    ("item_id\tsystem\toutput\tscore\n1\tA\tx\t1\n",
     [":1: the header must name either a system column or an output column (not both)"]),
    ("item_id\tsys\tscore\n1\tA\t1\n",
     [":1: unknown column(s) 'sys'; expected item_id, score and optionally system, output"]),
])
def test_malformed_qe_file_is_rejected_and_changes_nothing(db: Database, tmp_path: Path, text: str,
                                                           expected: list[str]) -> None:
    small_suite(db, tmp_path)
    import_qe_scores(db, write(tmp_path / "ok.tsv", "item_id\tsystem\tscore\n1\tA\t0.5\n"), name="q")
    before = snapshot(db)
    path = write(tmp_path / "bad.tsv", text)
    with pytest.raises(InputFileError) as excinfo:
        import_qe_scores(db, path, name="q")
    assert problems(excinfo) == [f"{path}{message}" for message in expected]
    assert snapshot(db) == before


def test_qe_name_of_a_non_imported_system_is_refused(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    with db.transaction() as session:
        session.add(QESystem(name="svr", kind="trained"))
    before = snapshot(db)
    with pytest.raises(TsqeError, match="QE system 'svr' is a trained system"):
        import_qe_scores(db, write(tmp_path / "q.tsv", "item_id\tsystem\tscore\n1\tA\t1\n"), name="svr")
    assert snapshot(db) == before


def manual_labels(db: Database) -> dict[str, tuple[str, str, str | None]]:
    with db.session() as session:
        rows = session.execute(select(Output.text, ManualLabel.label, ManualLabel.reviewer, ManualLabel.comment)
                               .join(Output, Output.id == ManualLabel.output_id))
        return {text: (label, reviewer, comment) for text, label, reviewer, comment in rows}


def test_reviews_label_distinct_outputs_and_replace_earlier_labels(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    first = write(tmp_path / "r.tsv", "item_id\tsystem\tlabel\treviewer\tcomment\n"
                                      "1\tA\tPass\tann\t\n1\tB\tpass\tbob\tsame text as A\n1\tC\tfail\tann\tman\n")
    result = import_reviews(db, first)
    assert result.counts == {"labels": 2, "labels_added": 2, "labels_changed": 0, "labels_unchanged": 0}
    assert manual_labels(db) == {"Her husband came.": ("pass", "ann", None), "Her man came.": ("fail", "ann", "man")}
    second = write(tmp_path / "r2.tsv", "item_id\tsystem\tlabel\treviewer\n1\tC\tunknown\tcid\n1\tA\tpass\tann\n"
                                        "3\tC\tfail\tcid\n")
    result = import_reviews(db, second)
    assert result.counts == {"labels": 3, "labels_added": 1, "labels_changed": 1, "labels_unchanged": 1}
    assert manual_labels(db)["Her man came."] == ("unknown", "cid", None)


@pytest.mark.parametrize(("text", "expected"), [
    ("item_id\tsystem\tlabel\treviewer\n1\tA\tok\tann\n", [":2: label 'ok' is not one of pass, fail, unknown"]),
    ("item_id\tsystem\tlabel\treviewer\n1\tA\tpass\t \n", [":2: empty reviewer"]),
    ("item_id\tsystem\tlabel\treviewer\n1\tA\tpass\tann\n1\tB\tfail\tbob\n",
     [":3: system 'B' produced the same output for item '1' as system 'A' at line 2, which is labelled 'pass', "
      "not 'fail'"]),
    ("item_id\tsystem\tlabel\treviewer\n4\tA\tpass\tann\n1\tQ\tpass\tann\n",
     [":2: unknown item id '4'", ":3: unknown system 'Q' (systems of this suite: A, B, C)"]),
    ("item_id\tsystem\tlabel\n1\tA\tpass\n", [":1: missing column(s) reviewer in the header"]),
    ("item_id\tsystem\tlabel\treviewer\n1\tA\tpass\tann\n1\tA\tpass\tann\n",
     [":3: duplicate review of system 'A' on item '1' (first at line 2)"]),
])
def test_malformed_review_file_is_rejected_and_changes_nothing(db: Database, tmp_path: Path, text: str,
                                                               expected: list[str]) -> None:
    small_suite(db, tmp_path)
    import_reviews(db, write(tmp_path / "ok.tsv", "item_id\tsystem\tlabel\treviewer\n2\tA\tpass\tann\n"))
    before = snapshot(db)
    path = write(tmp_path / "bad.tsv", text)
    with pytest.raises(InputFileError) as excinfo:
        import_reviews(db, path)
    assert problems(excinfo) == [f"{path}{message}" for message in expected]
    assert snapshot(db) == before
