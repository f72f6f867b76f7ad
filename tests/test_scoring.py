from __future__ import annotations

from typing import cast

import numpy as np
import pytest
from label_helpers import write_automatic_labels
from sqlalchemy import Table, func, insert, select
from suite_builder import add_system, build_suite

from filters.metrics import get_metric
from filters.metrics.stored import LABEL_SIGNATURE
from filters.scoring import score_outputs
from store import Database
from store.models import Embedding, ManualLabel, MetricScore, Output, QEScore, QESystem
from suite.errors import TsqeError

REFS = [["The cat sat on the mat."], ["He went home early.", "He left for home early."], ["It rained all day."]]
OUTPUTS: dict[str, list[str | None]] = {
    "sysA": ["The cat sat on the mat.", "He went home early.", "It rained the whole day."],
    "sysB": ["A cat was sitting on the mat.", "He went home early.", None],
}


def test_text_metric_rows_matrix_and_cache(db: Database) -> None:
    build_suite(db, "t", REFS, OUTPUTS)
    scores = score_outputs(db, "chrf")
    assert scores.signature == get_metric("chrf").signature and scores.higher_is_better
    assert [(r.item_id, r.system) for r in scores.rows] == [("1", "sysA"), ("1", "sysB"), ("2", "sysA"),
                                                            ("2", "sysB"), ("3", "sysA")]
    expected = get_metric("chrf").score([cast(str, OUTPUTS["sysB"][0])], [REFS[0]])[0]
    item_ids, systems, values = scores.matrix()
    assert item_ids == ["1", "2", "3"] and systems == ["sysA", "sysB"]
    assert values[0, 0] == pytest.approx(100.0) and values[0, 1] == pytest.approx(expected)
    assert values[1, 0] == values[1, 1] and np.isnan(values[2, 1])
    with db.session() as session:  # the shared output of item 2 is scored once
        assert session.scalar(select(func.count()).select_from(MetricScore)) == 4
        session.execute(cast(Table, MetricScore.__table__).update().values(score=-1.0))
        session.commit()
    assert {r.score for r in score_outputs(db, "chrf").rows} == {-1.0}  # served from the cache


@pytest.mark.parametrize("metric", ["chrf", "ter"])
def test_an_items_scores_come_best_system_first(db: Database, metric: str) -> None:
    build_suite(db, "t", REFS, OUTPUTS)
    scores = score_outputs(db, metric)
    first = scores.of_item("1")
    assert [r.system for r in first] == ["sysA", "sysB"]  # sysA's output is the reference: best by chrF and TER
    assert [r.system for r in scores.of_item("2")] == ["sysA", "sysB"]  # the same output: a tie, by name
    assert [r.system for r in scores.of_item("3")] == ["sysA"] and scores.of_item("nope") == []

def test_bertscore_cache_reuse_and_new_system(db: Database, encoded: list[str]) -> None:
    build_suite(db, "t", REFS, OUTPUTS)
    first = score_outputs(db, "bertscore-f")
    distinct = {t for texts in OUTPUTS.values() for t in texts if t} | {r for refs in REFS for r in refs}
    assert sorted(encoded) == sorted(distinct)
    encoded.clear()
    # siblings came for free, and a fresh run (new metric objects, memory empty) embeds nothing
    recall = score_outputs(db, "bertscore-r")
    assert encoded == [] and len(recall.rows) == len(first.rows)
    with db.session() as session:
        session.execute(cast(Table, MetricScore.__table__).delete())
        session.commit()
    again = score_outputs(db, "bertscore-f")
    assert encoded == []
    assert [r.score for r in again.rows] == pytest.approx([r.score for r in first.rows], abs=1e-7)
    add_system(db, "t", "sysC", ["The cat sat on the mat.", "He went home.", "It was raining all day."])
    score_outputs(db, "bertscore-f")
    assert sorted(encoded) == ["He went home.", "It was raining all day."]
    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(Embedding)) == len(distinct) + 2


def test_label_and_qe_scores(db: Database) -> None:
    build_suite(db, "t", REFS, OUTPUTS)
    with db.transaction() as session:
        ids = dict(session.execute(select(Output.text, Output.id)).all())
        write_automatic_labels(session, {ids["The cat sat on the mat."]: "pass",
                                         ids["A cat was sitting on the mat."]: "pass",
                                         ids["He went home early."]: "conflict"})
        session.execute(insert(ManualLabel), [
            {"output_id": ids["A cat was sitting on the mat."], "label": "fail", "reviewer": "me"}])
        qe = QESystem(name="cometkiwi", kind="imported", higher_is_better=False)
        session.add(qe)
        session.flush()
        session.execute(insert(QEScore), [{"qe_system_id": qe.id, "output_id": o, "score": float(o)}
                                          for o in ids.values()])
    labels = score_outputs(db, "label")
    assert labels.signature == LABEL_SIGNATURE
    assert [(r.item_id, r.system, r.score) for r in labels.rows] == [("1", "sysA", 1.0), ("1", "sysB", 0.0)]
    qe_scores = score_outputs(db, "qe:cometkiwi", systems=["sysB"])
    assert str(qe_scores.signature) == "qe:cometkiwi|kind:imported" and qe_scores.higher_is_better is False
    assert [r.score for r in qe_scores.rows] == [float(ids["A cat was sitting on the mat."]),
                                                 float(ids["He went home early."])]
    with pytest.raises(TsqeError, match="no QE system named 'nope'"):
        score_outputs(db, "qe:nope")
    with pytest.raises(TsqeError, match="unknown system"):
        score_outputs(db, "label", systems=["sysZ"])


def test_suite_without_references_is_refused(db: Database) -> None:
    build_suite(db, "t", [[], []], {"sysA": ["a", "b"]})
    with pytest.raises(TsqeError, match="bleu compares words with references, and this suite has no references: "
                                        "import references for it"):
        score_outputs(db, "bleu")
