"""Metrics x reference sets side by side: the figures equal sacrebleu and scipy called directly."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from label_helpers import write_automatic_labels
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric
from scipy import stats
from sqlalchemy import insert, select
from suite_builder import add_reference_set, build_suite
from typer.testing import CliRunner

from cli.main import app
from filters.correlation_table import correlate_table
from filters.metrics import get_metric
from store import Database, open_database
from store.models import HumanScore, HumanScoreSet, Output, Suite, System
from suite.references import RefChoice

REFS = ["The committee approved the budget on Tuesday.", "She has lived in Berlin for ten years.",
        "The results were better than expected.", "He will not come to the meeting."]
PARA = ["On Tuesday the budget was approved by the committee.", "For ten years she has been living in Berlin.",
        "The results exceeded expectations.", None]  # the last segment has no paraphrase
OUTPUTS = {
    "good": ["The committee approved the budget on Tuesday.", "She has lived in Berlin for ten years.",
             "The results were better than expected.", "He will not come to the meeting."],
    "fair": ["On Tuesday the committee passed the budget.", "She lives in Berlin since ten years.",
             "The results were better than anticipated.", "He won't come to the meeting."],
    "weak": ["The committee budget Tuesday approved.", "She lived Berlin ten years.",
             "Results better than expected.", "He not come meeting."],
    "poor": ["Committee budget.", "She Berlin.", "Results good.", "No meeting."],
}
HUMAN = {"good": 0.5, "fair": 0.2, "weak": -0.1, "poor": -0.6}


def _suite(db: Database) -> None:
    build_suite(db, "t", [[ref] for ref in REFS], OUTPUTS)
    add_reference_set(db, "para", "paraphrase", PARA)
    with db.transaction() as session:
        systems = dict(session.execute(select(System.name, System.id)).all())
        session.execute(insert(HumanScore), [{"system_id": systems[n], "kind": "z", "lp": "de-en", "score": s}
                                             for n, s in HUMAN.items()])
        session.execute(insert(HumanScoreSet).values(suite_id=session.scalar(select(Suite.id)), kind="z",
                                                     source="test"))
        outputs = session.execute(select(Output.id, Output.text)).all()  # pass: the good and fair outputs
        write_automatic_labels(session, {o: "pass" if any(text == OUTPUTS[n][i] for n in ("good", "fair")
                                                           for i in range(4)) else "fail" for o, text in outputs})


def _direct(metric: Metric, refs: list[list[str]], items: list[int]) -> dict[str, float]:
    """sacrebleu's corpus score of each system on ``items`` against the reference streams ``refs``."""
    return {name: metric.corpus_score([texts[i] for i in items], [[stream[i] for i in items] for stream in refs]).score
            for name, texts in OUTPUTS.items()}


def test_each_metric_and_entry_equals_sacrebleu_and_scipy(db: Database) -> None:
    _suite(db)
    table = correlate_table(db, ["bleu", "chrf", "ter", "label"],
                            [RefChoice.parse("standard"), RefChoice.parse("para"), RefChoice.parse("standard+para")],
                            top=3, resamples=200)
    assert [(row.metric, row.refs_label) for row in table.rows] == [
        (m, e) for m in ("bleu", "chrf", "ter") for e in ("standard", "para", "standard+para")] + [("label", "–")]
    human = [HUMAN[s] for s in table.systems]
    for row in table.rows[:-1]:
        direct = {"bleu": BLEU(effective_order=True), "chrf": CHRF(), "ter": TER()}[row.metric]
        if row.refs_label == "standard":
            expected = _direct(direct, [REFS], [0, 1, 2, 3])
        elif row.refs_label == "para":  # segment 4 has no paraphrase: left out for this set
            expected = _direct(direct, [PARA], [0, 1, 2])  # type: ignore[list-item]
        else:  # sacrebleu's multi-reference corpus score; segment 4 with its one reference
            expected = {name: direct.corpus_score(texts, [REFS, PARA]).score  # type: ignore[list-item]
                        for name, texts in OUTPUTS.items()}
        assert row.overall.scores == pytest.approx(expected)
        metric = [expected[s] for s in table.systems]
        assert row.overall.pearson == pytest.approx(stats.pearsonr(human, metric)[0])
        assert row.overall.spearman == pytest.approx(stats.spearmanr(human, metric)[0])
        assert row.overall.kendall == pytest.approx(stats.kendalltau(human, metric)[0])
        assert row.top is not None and row.top.systems == ["good", "fair", "weak"]
        assert row.top.kendall == pytest.approx(stats.kendalltau(human[:3], metric[:3])[0])
        assert row.segments == (3 if row.refs_label == "para" else 4)
        assert row.by_k == [(3, pytest.approx(row.top.kendall)), (4, pytest.approx(row.overall.kendall))]
        assert row.overall.intervals is not None
        low, high = row.overall.intervals["pearson"]
        assert -1 <= low <= high <= 1
    assert table.rows[-1].refs is None and table.rows[-1].signature.name == "label"
    again = correlate_table(db, ["bleu"], [RefChoice.parse("para")], resamples=200)
    assert again.rows[0].overall.intervals == table.rows[1].overall.intervals  # the same seed, the same draws


def test_a_resample_is_sacrebleus_corpus_score_on_the_drawn_segments(db: Database) -> None:
    """The bootstrap recomputes corpus BLEU from the drawn segments' statistics, not from sentence scores."""
    from filters.metrics.statistics import CombinedStatistics

    _suite(db)
    metric = get_metric("bleu")
    level = metric.system_scores(db, list(OUTPUTS), RefChoice.parse("standard"), suite_name=None, task=None)  # type: ignore[arg-type]
    assert level is not None
    assert level.statistics is not None
    weights = np.array([[2.0, 0.0, 1.0, 1.0]])  # segment 1 drawn twice, segment 2 not at all
    resampled = level.statistics.scores(weights)
    items = [0, 0, 2, 3]
    assert {s: v[0] for s, v in resampled.items()} == pytest.approx(_direct(BLEU(effective_order=True), [REFS], items))
    joined = metric.system_scores(db, list(OUTPUTS), RefChoice.parse("standard+para", "max"), suite_name=None,
                                  task=None)  # type: ignore[arg-type]
    assert joined is not None
    assert isinstance(joined.statistics, CombinedStatistics)
    assert joined.scores == pytest.approx({s: max(_direct(BLEU(effective_order=True), [REFS], [0, 1, 2, 3])[s],
                                                  _direct(BLEU(effective_order=True), [PARA], [0, 1, 2])[s])  # type: ignore[list-item]
                                           for s in OUTPUTS})


def test_cli_table_json_and_figure(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    db = open_database(path)
    _suite(db)
    db.close()
    figure = tmp_path / "k.svg"
    result = CliRunner().invoke(app, ["--db", str(path), "correlate", "--metric", "bleu,chrf,label", "--refs",
                                      "standard,para,standard+para", "--top", "3", "--bootstrap", "100",
                                      "--figure", str(figure), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    rows = document["rows"]
    assert len(rows) == 2 * (2 * 3 + 1) and {r["top"] for r in rows} == {None, 3}
    first = rows[0]
    assert (first["metric"], first["refs"], first["systems"], first["top"]) == ("bleu", "standard", 4, None)
    assert set(first["intervals"]) == {"pearson", "spearman", "kendall"}
    assert document["scores"]["bleu"]["standard+para"]["good"] == pytest.approx(100.0)
    assert next(r for r in rows if r["metric"] == "label")["refs"] is None
    assert "pearson" not in document  # several metrics: no single view's top-level figures
    assert figure.read_text().startswith("<?xml") and "Kendall" in figure.read_text()
    text = CliRunner().invoke(app, ["--db", str(path), "correlate", "--metric", "bleu,chrf", "--refs",
                                    "standard,para", "--bootstrap", "50", "--format", "md"])
    assert text.exit_code == 0, text.output
    assert "| bleu | para | 4 | 3 |" in text.stdout and "refs para: reference set para." in text.stdout
    assert "Reference sets of the suite: para (paraphrase, 3 references on 3 items); standard" in text.stdout
    single = CliRunner().invoke(app, ["--db", str(path), "correlate", "--metric", "chrf", "--refs", "para",
                                      "--json", "--bootstrap", "0"])
    document = json.loads(single.stdout)  # one metric, one entry: today's keys as well
    assert document["metric"] == "chrf" and document["refs"] == "para" and set(document["scores"]) == set(OUTPUTS)
    assert document["kendall"] == pytest.approx(document["rows"][0]["kendall"])
    for suffix in (".png", ".pdf"):
        drawn = CliRunner().invoke(app, ["--db", str(path), "correlate", "--metric", "ter", "--refs",
                                         "standard,para", "--bootstrap", "0", "--figure",
                                         str(tmp_path / f"k{suffix}")])
        assert drawn.exit_code == 0, drawn.output
        assert (tmp_path / f"k{suffix}").stat().st_size > 1000
    refused = CliRunner().invoke(app, ["--db", str(path), "correlate", "--metric", "chrf,ter", "--layers", "3"])
    assert refused.exit_code == 2 and "takes no embedding model" in refused.output


def test_batched_bootstrap_correlations_equal_scipys_one_at_a_time() -> None:
    from filters.correlation_table import batch_correlations

    rng = np.random.default_rng(1)
    x = rng.normal(size=12)
    x[3] = x[5]  # ties on both sides, as tau-b must handle
    ys = rng.normal(size=(40, 12))
    ys[:, 7] = ys[:, 9]
    ys[4] = 1.0  # a constant resample: no correlation
    found = batch_correlations(x, ys)
    for k, y in enumerate(ys):
        expected = [stats.pearsonr(x, y)[0], stats.spearmanr(x, y)[0], stats.kendalltau(x, y)[0]] \
            if np.ptp(y) > 0 else [np.nan] * 3
        assert [found[name][k] for name in ("pearson", "spearman", "kendall")] == pytest.approx(expected, nan_ok=True)
