"""Metric meta-evaluation across datasets (filters.meta_evaluation, ``tsqe meta-eval``) on constructed datasets
whose answers are known by hand, and on the real WMT data when ../shared is there."""
from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import numpy as np
import pytest
from sqlalchemy import select
from suite_builder import build_suite
from typer.testing import CliRunner

from cli.main import app
from filters.correlation import system_level_scores
from filters.meta_evaluation import MetaOptions, meta_evaluate, pair_errors
from filters.metrics import get_metric
from filters.metrics.corpus import corpus_inputs
from filters.system_statistics import metric_statistics
from store import Database
from store.models import Item, MetricStatistics, Output, Reference, Suite, System, SystemOutput
from suite.importers.human_scores import import_human_scores
from suite.qe_scores import save_qe_system
from suite.references import RefChoice
from suite.tables import render

SYSTEMS = ("s1", "s2", "s3", "s4")
ITEMS = 12
QUALITY = {"s1": 4.0, "s2": 3.0, "s3": 2.0, "s4": 1.0}
"""What the metric "right" gives every output of each system: the humans' order on dataset d1."""


def write_human(path: Path, scores: dict[str, float]) -> Path:
    path.write_text("RAW.SCR Z.SCR N SYS N.ALL\n" + "".join(f"70 {z} 100 {name} 120\n" for name, z in scores.items()))
    return path


@pytest.fixture
def datasets(db: Database, tmp_path: Path) -> Database:
    """Two datasets with the same four systems: the humans order them s1 > s2 > s3 > s4 on d1 and the other way
    round on d2. QE systems serve as metrics whose segment scores are set by hand: "right" follows d1's order,
    "reversed" the opposite, "mixed" swaps s2 and s3 only."""
    for name in ("d1", "d2"):
        build_suite(db, name, [[f"reference {i}"] for i in range(ITEMS)],
                    {s: [f"{name} {s} output {i}" for i in range(ITEMS)] for s in SYSTEMS})
    import_human_scores(db, write_human(tmp_path / "d1.csv", {"s1.1": 0.4, "s2.2": 0.2, "s3.3": 0.0, "s4.4": -0.2}),
                        suite_name="d1")
    import_human_scores(db, write_human(tmp_path / "d2.csv", {"s1": -0.4, "s2": -0.2, "s3": 0.0, "s4": 0.2}),
                        suite_name="d2")
    with db.session() as session:
        system_of = {output: name for output, name in session.execute(
            select(SystemOutput.output_id, System.name).join(System, System.id == SystemOutput.system_id))}
    mixed = {**QUALITY, "s2": 2.0, "s3": 3.0}
    for qe, values in (("right", QUALITY), ("reversed", {s: -v for s, v in QUALITY.items()}), ("mixed", mixed)):
        save_qe_system(db, name=qe, kind="imported", higher_is_better=True,
                       scores={output: values[name] for output, name in system_of.items()}, meta={})
    return db


def test_a_metric_ordering_every_pair_right_has_no_errors_and_the_reverse_errs_on_all(datasets: Database) -> None:
    result = meta_evaluate(datasets, MetaOptions(suites=("d1",), metrics=("qe:right", "qe:reversed", "qe:mixed"),
                                                 resamples=200))
    outcomes = result.datasets["d1"].metrics
    assert (outcomes["qe:right"].errors, outcomes["qe:right"].pairs) == (0, 6)
    assert (outcomes["qe:reversed"].errors, outcomes["qe:reversed"].pairs) == (6, 6)
    assert outcomes["qe:mixed"].errors == 1  # the pair s2/s3 only
    # the segment scores are constant per system, so every resample has the same errors: all three apart
    assert [outcomes[m].rank for m in ("qe:right", "qe:mixed", "qe:reversed")] == [1, 2, 3]
    assert outcomes["qe:right"].errors_significant is None  # d1 has no significance results
    assert result.datasets["d1"].systems == list(SYSTEMS)  # WMT's NAME.ID matched the suite's NAME


def test_two_datasets_with_opposite_significant_orders_of_two_metrics_disagree_once(datasets: Database,
                                                                                    tmp_path: Path) -> None:
    result = meta_evaluate(datasets, MetaOptions(suites=("d1", "d2"), metrics=("qe:right", "qe:reversed"),
                                                 resamples=200))
    assert [result.datasets["d1"].metrics[m].rank for m in ("qe:right", "qe:reversed")] == [1, 2]
    assert [result.datasets["d2"].metrics[m].rank for m in ("qe:right", "qe:reversed")] == [2, 1]
    assert [(d.first, d.second, d.pairs) for d in result.disagreements] == [
        ("d1", "d2", [("qe:right", "qe:reversed")])]
    document = json.loads(result.to_json())
    assert document == {
        "datasets": {
            "d1": {"qe:right": {"errors": 0, "pairs": 6, "error_rate": 0.0, "errors_significant": None,
                                "pairs_significant": None, "rank": 1},
                   "qe:reversed": {"errors": 6, "pairs": 6, "error_rate": 1.0, "errors_significant": None,
                                   "pairs_significant": None, "rank": 2}},
            "d2": {"qe:right": {"errors": 6, "pairs": 6, "error_rate": 1.0, "errors_significant": None,
                                "pairs_significant": None, "rank": 2},
                   "qe:reversed": {"errors": 0, "pairs": 6, "error_rate": 0.0, "errors_significant": None,
                                   "pairs_significant": None, "rank": 1}}},
        "disagreement": {"d1|d2": 1}}
    names, matrix = result.disagreement_matrix()
    assert names == ["d1", "d2"] and matrix[0, 1] == matrix[1, 0] == 1 and np.isnan(matrix[0, 0])
    ranks = render(result.ranks_table(), "csv").splitlines()
    assert ranks == ["metric,d1,d2", "qe:right,1 / 0.0,2 / 100.0", "qe:reversed,2 / 100.0,1 / 0.0"]
    figure = result.heat_map()
    for suffix in (".png", ".svg", ".pdf"):
        path = tmp_path / f"heat{suffix}"
        figure.savefig(path)
        assert path.stat().st_size > 1000


SIGNIFICANCE = """ s1 s2 s3 s4
s1 - 0.2* 0.4** 0.6***
s2 -0.2 - 0.2 0.4*
s3 -0.4 -0.2 - 0.2
s4 -0.6 -0.4 -0.2 -
"""


def test_errors_on_human_significant_pairs_leave_the_insignificant_ones_out(datasets: Database,
                                                                         tmp_path: Path) -> None:
    path = tmp_path / "ad-DA-diff-wilcoxon-rs-xxyy.csv"
    path.write_text(SIGNIFICANCE.replace(" s", " s").replace("s1", "s1.1"))
    result = import_human_scores(datasets, significance=path, suite_name="d1")
    assert result.counts == {"significance_pairs": 12}
    metrics = ("qe:right", "qe:mixed")
    outcome = meta_evaluate(datasets, MetaOptions(suites=("d1",), metrics=metrics, resamples=100))
    mixed = outcome.datasets["d1"].metrics["qe:mixed"]
    # significant: s1 over each other system, and s2 over s4; mixed's only error, s2/s3, is not among them
    assert (mixed.errors, mixed.pairs, mixed.errors_significant, mixed.pairs_significant) == (1, 6, 0, 4)
    assert "WMT's test results" in (outcome.datasets["d1"].significance or "")
    only = meta_evaluate(datasets, MetaOptions(suites=("d1",), metrics=metrics, resamples=100,
                                               significant_pairs_only=True))
    # on the significant pairs both make no error: they share the first rank
    assert [only.datasets["d1"].metrics[m].rank for m in metrics] == [1, 1]
    assert only.datasets["d1"].ranked_on_significant


def test_pair_errors_count_metric_ties_as_errors_and_skip_human_ties() -> None:
    left, right = np.array([0, 0, 1]), np.array([1, 2, 2])
    errors, pairs = pair_errors(np.array([3.0, 2.0, 2.0]), np.array([[1.0, 1.0, 0.0], [3.0, 2.0, 1.0]]), left, right)
    # humans tie systems 1 and 2: two pairs count; metric 0 ties on (0, 1): an error
    assert list(errors) == [1, 0] and list(pairs) == [2, 2]


SOURCES = ["Das ist gut.", "Ein Haus.", "Der Hund bellt.", "Ende gut, alles gut.", "Wir gehen heim."]
REFERENCES = [["That is good."], ["A house.", "One house."], ["The dog barks."], ["All's well that ends well."],
              ["We go home."]]
OUTPUTS = {"a": ["This is good.", "A house.", "The dog barks.", "End good, all good.", "We are going home."],
           "b": ["That is good.", "One house.", "The dog is barking.", "All's well that ends well.", "We go home."],
           "c": ["That's good.", "A home.", "Dog barks.", "End well.", "Home we go."]}


@pytest.mark.parametrize("metric", ["bleu", "chrf", "ter"])
def test_cached_corpus_statistics_give_sacrebleus_corpus_scores(db: Database, metric: str) -> None:
    build_suite(db, "nt", REFERENCES, OUTPUTS)
    systems = list(OUTPUTS)
    direct = system_level_scores(db, metric, systems, suite_name="nt").scores
    statistics = metric_statistics(db, metric, systems, suite_name="nt")
    ones = np.ones((1, len(statistics.items)))
    assert statistics.scores(systems, ones)[0] == pytest.approx([direct[s] for s in systems], abs=1e-9)
    # a resample of segments is the corpus score of those segments, computed by sacrebleu itself
    weights = np.array([[2.0, 0.0, 1.0, 1.0, 1.0]])
    inputs = corpus_inputs(db, systems, RefChoice.default(), "nt")
    assert inputs.items == statistics.items
    scorer = get_metric(metric)
    again = [scorer.corpus_score([h for h, w in zip(inputs.hypotheses[s], weights[0]) for _ in range(int(w))],
                                 [r for r, w in zip(inputs.references, weights[0]) for _ in range(int(w))])
             for s in systems]
    assert statistics.scores(systems, weights)[0] == pytest.approx(again, abs=1e-9)
    with db.session() as session:
        assert session.query(MetricStatistics).count() == session.query(Output).count() == 15
    # read back from the cache: the same figures
    assert metric_statistics(db, metric, systems, suite_name="nt").scores(systems, weights)[0] == pytest.approx(
        again, abs=1e-12)
    # an edited reference makes the cached statistics of its item's outputs stale: they are computed again
    with db.transaction() as session:
        reference = session.scalar(select(Reference).where(Reference.text == "We go home."))
        assert reference is not None
        reference.text = "We walk home."
    edited = metric_statistics(db, metric, systems, suite_name="nt")
    fresh = system_level_scores(db, metric, systems, suite_name="nt").scores
    assert edited.scores(systems, ones)[0] == pytest.approx([fresh[s] for s in systems], abs=1e-9)
    with db.session() as session:
        assert session.query(MetricStatistics).count() == 15  # the item's three replaced, not added


def test_joined_reference_sets_take_the_best_single_set_corpus_score(db: Database) -> None:
    from suite.references import add_reference_set

    build_suite(db, "nt", REFERENCES, OUTPUTS)
    with db.transaction() as session:
        items = dict(session.execute(select(Item.external_id, Item.id)).all())
        add_reference_set(session, cast(int, session.scalar(select(Suite.id))), "other", "standard",
                          {items[str(i + 1)]: [f"Something else {i}."] for i in range(len(REFERENCES))})
    systems = list(OUTPUTS)
    choice = RefChoice.parse("standard+other", "max")
    direct = system_level_scores(db, "chrf", systems, suite_name="nt", refs=choice).scores
    statistics = metric_statistics(db, "chrf", systems, suite_name="nt", refs=choice)
    assert statistics.scores(systems, np.ones((1, len(statistics.items))))[0] == pytest.approx(
        [direct[s] for s in systems], abs=1e-9)
    assert statistics.signature.endswith("refs:standard+other|combine:max")


def test_meta_eval_command_prints_json_tables_and_draws_the_heat_map(datasets: Database, tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(datasets.engine.url.database)
    base = ["--db", db, "meta-eval", "--suites", "d1,d2", "--metric", "qe:right,qe:reversed", "--resamples", "100"]
    result = runner.invoke(app, [*base, "--json", "--heat-map", str(tmp_path / "heat.png")])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["disagreement"] == {"d1|d2": 1}
    assert (tmp_path / "heat.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = runner.invoke(app, base)
    assert "Metric errors on system pairs" in text.stdout and "rank / error rate" in text.stdout
    assert "Disagreement between" in text.stdout
    assert "d1 ranks qe:right above qe:reversed, d2 the other way" in text.stdout
    csv = runner.invoke(app, [*base, "--table", "disagreement", "--format", "csv"])
    assert csv.stdout.splitlines()[:3] == ["dataset,d1,d2", "d1,,1", "d2,1,"]
    bad = runner.invoke(app, [*base, "--table", "nope"])
    assert bad.exit_code == 2 and "unknown table 'nope'" in bad.stderr
    missing = runner.invoke(app, ["--db", db, "meta-eval", "--suites", "d1,nope", "--metric", "qe:right"])
    assert missing.exit_code == 2 and "nope" in missing.stderr


def test_a_dataset_without_human_scores_is_refused_in_words(db: Database) -> None:
    from suite.errors import TsqeError

    build_suite(db, "bare", REFERENCES, OUTPUTS)
    with pytest.raises(TsqeError, match="suite 'bare' has no human scores"):
        meta_evaluate(db, MetaOptions(suites=("bare",), metrics=("bleu",)))
    with pytest.raises(TsqeError, match="da-bertscore-f is a system-level score without segment scores"):
        metric_statistics(db, "da-bertscore-f", list(OUTPUTS), suite_name="bare")


def test_metric_options_reach_the_metrics_that_take_them_and_no_other(datasets: Database) -> None:
    from filters.metrics import MetricOptions
    from suite.errors import TsqeError

    with pytest.raises(TsqeError, match="a tokenizer was given, and none of qe:right takes one"):
        meta_evaluate(datasets, MetaOptions(suites=("d1",), metrics=("qe:right",),
                                            metric_options=MetricOptions(tokenize="intl")))
    with pytest.raises(TsqeError, match="an embedding model was given"):
        meta_evaluate(datasets, MetaOptions(suites=("d1",), metrics=("qe:right", "bleu"),
                                            metric_options=MetricOptions(layers=3)))
    # BLEU's tokenizer is given to BLEU only, not to the QE system beside it
    result = meta_evaluate(datasets, MetaOptions(suites=("d1",), metrics=("qe:right", "bleu"), resamples=50,
                                                 metric_options=MetricOptions(tokenize="intl")))
    assert "tok:intl" in result.datasets["d1"].metrics["bleu"].signature
