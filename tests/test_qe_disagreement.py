"""Where the ranking of QE systems flips (qe.disagreement): between the rows of one accuracy table and between
suites, on constructed suites whose answer is known by hand; ``tsqe accuracy --table ranks|disagreement``."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from qe.accuracy import pairwise_accuracy
from qe.disagreement import row_disagreement, suite_disagreement
from qe.pairs import LabelledOutputs, pairs_from_outputs
from suite.errors import TsqeError
from suite.qe_scores import QEScores
from suite.tables import render


def objects(values: list[object]) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def suite(items: dict[str, int], right: dict[str, str]) -> tuple[LabelledOutputs, list[QEScores]]:
    """``items[category]`` items of two passing and two failing outputs (4 pairs each); QE system ``right[c]``
    scores the passing outputs of category c higher, the other system the failing ones."""
    categories: list[object] = []
    output_item: list[int] = []
    labels: list[object] = []
    for category, count in items.items():
        for _ in range(count):
            item = len(categories)
            categories.append(category)
            output_item += [item] * 4
            labels += ["pass", "pass", "fail", "fail"]
    n = len(labels)
    outputs = LabelledOutputs(item_ids=objects([str(i) for i in range(len(categories))]),
                              item_categories=objects(categories), item_phenomena=objects(categories),
                              output_ids=np.arange(1, n + 1, dtype=np.int64),
                              output_item=np.array(output_item, dtype=np.intp), labels=objects(labels),
                              output_texts=objects([f"out {i}" for i in range(n)]), output_systems=objects([""] * n))
    passing = np.array([label == "pass" for label in labels])
    in_category = {c: np.array([categories[i] == c for i in output_item]) for c in items}
    systems = []
    for name in ("x", "y"):
        scores = np.zeros(n)
        for category in items:
            good = passing if right[category] == name else ~passing
            scores[in_category[category] & good] = 1.0
        systems.append(QEScores(name, True, outputs.output_ids, scores))
    return outputs, systems


def test_two_rows_with_opposite_significant_orders_disagree_once_and_too_few_rows_are_left_out() -> None:
    outputs, systems = suite({"A": 10, "B": 10, "C": 2, "D": 10}, {"A": "x", "B": "y", "C": "y", "D": "x"})
    result = pairwise_accuracy(pairs_from_outputs(outputs), systems, bootstrap=200, seed=0)
    assert [(r.name, r.ranks) for r in result.rows] == [
        ("A", {"x": 1, "y": 2}), ("B", {"x": 2, "y": 1}), ("C", {"x": 2, "y": 1}), ("D", {"x": 1, "y": 2})]
    assert [r.best for r in result.rows] == [["x"], ["y"], ["y"], ["x"]]
    assert json.loads(result.to_json())["rows"][0]["rank"] == {"x": 1, "y": 2}
    disagreement = row_disagreement(result)
    assert disagreement.rows == ["A", "B", "C", "D"] and disagreement.left_out == [2]  # C: 8 pairs, 2 items
    counts = disagreement.counts()
    assert counts[0, 1] == counts[1, 0] == 1 and counts[1, 3] == 1 and counts[0, 3] == 0
    assert np.isnan(counts[0, 0]) and np.isnan(counts[2]).all() and np.isnan(counts[:, 2]).all()
    (flip,) = disagreement.flips(0, 1)
    assert (flip.first, flip.second, flip.a.label, flip.b.label) == ("x", "y", "A", "B")
    assert flip.a.accuracy == (1.0, 0.0) and flip.b.accuracy == (0.0, 1.0)
    assert flip.a.ranks == (1, 2) and flip.b.ranks == (2, 1) and flip.a.ci[0] == (1.0, 1.0)
    table = render(disagreement.to_table(), "csv").splitlines()
    assert table[:5] == ["row,A,B,C,D", "A,,1,,0", "B,1,,,1", "C,,,,", "D,0,1,,"]
    assert "A ranks x above y, B the other way." in disagreement.to_table().notes
    flips = render(disagreement.flips_table(0, 1), "csv").splitlines()
    assert flips[0].startswith("flip,QE system,A,") and flips[1].startswith("1,x,1.0,")
    ranks = render(disagreement.ranks_table(), "csv").splitlines()
    assert ranks[:3] == ["row,x,y", "A,1,2", "B,2,1"]
    document = disagreement.to_dict()
    assert document["too_few"] == ["C"] and document["cells"]["A|B"]["disagreement"] == 1
    assert "A|C" not in document["cells"]
    # counted on request: C takes part, still marked
    counted = row_disagreement(result, count_too_few=True)
    assert counted.left_out == [] and counted.too_few == [2]
    assert counted.counts()[2].tolist()[:2] == [1.0, 0.0] and "counted on request" in " ".join(
        counted.to_table().notes)
    assert render(counted.to_table(), "csv").splitlines()[3] == "C,1,0,,1"
    assert "C†" in render(counted.to_table(), "text")


def test_systems_not_significantly_different_do_not_flip() -> None:
    outputs, systems = suite({"A": 10, "B": 10}, {"A": "x", "B": "y"})
    same = [systems[0], QEScores("y", True, systems[0].output_ids, systems[0].scores.copy())]
    result = pairwise_accuracy(pairs_from_outputs(outputs), same, bootstrap=200, seed=0)
    assert [r.ranks for r in result.rows] == [{"x": 1, "y": 1}] * 2
    assert row_disagreement(result).counts()[0, 1] == 0
    with pytest.raises(TsqeError, match="need bootstrap resamples"):
        row_disagreement(pairwise_accuracy(pairs_from_outputs(outputs), same, bootstrap=0))


def test_suites_disagree_per_shared_category() -> None:
    first_outputs, first = suite({"A": 10, "B": 10, "only-first": 10}, {"A": "x", "B": "x", "only-first": "x"})
    second_outputs, second = suite({"B": 10, "A": 10}, {"A": "x", "B": "y"})
    results = {"de-en": pairwise_accuracy(pairs_from_outputs(first_outputs), first, bootstrap=100, seed=1),
                "en-de": pairwise_accuracy(pairs_from_outputs(second_outputs), second, bootstrap=100, seed=1)}
    disagreement = suite_disagreement(results)
    assert disagreement.rows == ["A", "B"] and disagreement.columns == ["de-en | en-de"]
    assert disagreement.counts().tolist() == [[0.0], [1.0]]
    (flip,) = disagreement.flips(1, 0)
    assert (flip.a.label, flip.b.label, flip.first) == ("de-en", "en-de", "x")
    with pytest.raises(TsqeError, match="at least two suites"):
        suite_disagreement({"de-en": results["de-en"]})


def test_accuracy_command_writes_ranks_disagreement_and_the_heat_map(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "demo.sqlite")
    assert runner.invoke(app, ["--db", db, "demo"]).exit_code == 0
    ranks = runner.invoke(app, ["--db", db, "accuracy", "--table", "ranks", "--format", "csv"])
    assert ranks.exit_code == 0, ranks.output
    assert ranks.stdout.splitlines()[0] == "row,demo-qe,demo-chrf"
    heat = tmp_path / "rows.svg"
    result = runner.invoke(app, ["--db", db, "accuracy", "--table", "disagreement", "--format", "json",
                                 "--heat-map", str(heat)])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    # one category of the demo (with its Obligation paradigm) has pairs enough for a conclusion, nine are too small
    assert len(document["rows"]) == 10
    assert [row for row in document["rows"] if row not in document["too_few"]] == ["Verb tense/aspect/mood"]
    assert heat.read_text().startswith("<?xml")
    wrong = runner.invoke(app, ["--db", db, "accuracy", "--suites", "a,b"])
    assert wrong.exit_code == 2 and "add --table disagreement" in wrong.stderr


def test_heat_map_names_with_dollars_are_drawn_as_written(tmp_path: Path) -> None:
    """A category named ``$\\foo$`` made matplotlib read a formula and saving the map fail ("Unknown symbol"); the
    file is written whole (``suite.safe_export``), no temporary file left beside it."""
    from suite.figures import heat_map, save_figure

    names = [r"$\foo$ agreement", "costs $5"]
    figure = heat_map(names, np.array([[np.nan, 1.0], [1.0, np.nan]]), title="Disagreement of $x$")
    path = save_figure(figure, tmp_path / "map.png")
    assert path.stat().st_size > 0 and sorted(p.name for p in tmp_path.iterdir()) == ["map.png"]
    axes = figure.axes[0]
    assert [label.get_text() for label in axes.get_yticklabels()] == [r"\$\foo\$ agreement", r"costs \$5"]
    assert axes.get_title(loc="left") == r"Disagreement of \$x\$"
