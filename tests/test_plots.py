"""The accuracy chart on the demo suite: a row per category or phenomenon, every label on its own line inside the
figure (rotated labels under vertical bars ran into each other), the bars the table's numbers, and a figure that
grows taller with its rows instead of squeezing them; the MT systems' chart likewise."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from qe.accuracy import AccuracyResult, pairwise_accuracy
from qe.pairs import build_pairs
from qe.plots import accuracy_figure, systems_figure
from store import Database, open_database
from suite.demo import create_demo
from suite.qe_scores import read_qe_scores
from suite.reading.report import systems_report


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Database:
    database = open_database(Path(tmp_path_factory.mktemp("plots")) / "demo.sqlite")
    create_demo(database)
    return database


def _accuracy(db: Database, by: str) -> AccuracyResult:
    return pairwise_accuracy(build_pairs(db), read_qe_scores(db), by=by, bootstrap=200, seed=1)


def _drawn(figure: Figure) -> FigureCanvasAgg:
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas


@pytest.mark.parametrize("by", ["category", "phenomenon"])
def test_every_row_label_has_its_own_line_inside_the_figure(demo: Database, by: str) -> None:
    result = _accuracy(demo, by)
    figure = accuracy_figure(result)
    renderer = _drawn(figure).get_renderer()
    [axes] = figure.axes
    labels = axes.get_yticklabels()
    rows = [*result.rows, result.total, result.weighed]
    assert [label.get_text() for label in labels] == [r.name + ("†" if r.too_few else "") for r in rows]
    assert [label.get_fontweight() for label in labels[-2:]] == ["bold", "bold"]  # Total and weighed set apart
    boxes = [label.get_window_extent(renderer) for label in labels]
    for upper, lower in zip(boxes, boxes[1:]):
        assert upper.y0 >= lower.y1, "two row labels overlap"
    whole = figure.bbox
    assert all(whole.x0 <= box.x0 and box.x1 <= whole.x1 and whole.y0 <= box.y0 and box.y1 <= whole.y1
               for box in boxes), "a row label is cut off"
    caption = figure.legends[0].get_title().get_window_extent(renderer)
    assert whole.x0 <= caption.x0 and caption.x1 <= whole.x1


def test_the_bars_are_the_tables_accuracies(demo: Database) -> None:
    result = _accuracy(demo, "phenomenon")
    [axes] = accuracy_figure(result).axes
    rows = [*result.rows, result.total, result.weighed]
    bars = [patch for patch in axes.patches if isinstance(patch, Rectangle)]
    assert len(bars) == len(rows) * len(result.qe_systems)
    for j, name in enumerate(result.qe_systems):
        widths = [bar.get_width() for bar in bars[j * len(rows):(j + 1) * len(rows)]]
        expected = [0.0 if math.isnan(r.accuracy[name]) else 100 * r.accuracy[name] for r in rows]
        assert widths == pytest.approx(expected)


def test_the_figure_grows_with_its_rows(demo: Database) -> None:
    categories, phenomena = _accuracy(demo, "category"), _accuracy(demo, "phenomenon")
    short, tall = accuracy_figure(categories), accuracy_figure(phenomena)
    assert short.get_size_inches()[0] == tall.get_size_inches()[0]
    added = len(phenomena.rows) - len(categories.rows)
    per_row = (tall.get_size_inches()[1] - short.get_size_inches()[1]) / added
    assert per_row == pytest.approx(0.17)  # two QE systems: two bars of 0.06 in and a gap
    # drawn at that size, each row gets its share of the axes: the frame around them is what the figure reserves
    for figure, result in ((short, categories), (tall, phenomena)):
        renderer = _drawn(figure).get_renderer()
        axes_inches = figure.axes[0].get_window_extent(renderer).height / figure.dpi
        assert axes_inches / (len(result.rows) + 2 + 0.7) == pytest.approx(per_row, rel=0.1)


@pytest.mark.parametrize("by", ["category", "phenomenon"])
def test_the_systems_chart_has_a_readable_row_per_category_or_phenomenon(demo: Database, by: str) -> None:
    report = systems_report(demo, by=by)  # type: ignore[arg-type]
    figure = systems_figure(report)
    canvas = _drawn(figure)
    axes = figure.axes[0]
    labels = axes.get_yticklabels()
    names = [row.phenomenon if by == "phenomenon" else row.category for row in report.rows]
    assert [label.get_text() for label in labels] == [*names, "overall (micro)", "macro average"]
    boxes = [label.get_window_extent(canvas.get_renderer()) for label in labels]
    assert all(upper.y0 >= lower.y1 for upper, lower in zip(boxes, boxes[1:]))
    assert all(box.x0 >= 0 for box in boxes)
    assert [label.get_text() for label in axes.get_xticklabels()] == report.systems  # the table's column order


def test_the_systems_chart_reads_at_twenty_systems(demo: Database) -> None:
    """19 WMT21 systems made 19 indistinguishable bars per row; the heat map writes each rate in its own cell, bold
    for the row's best cluster, in the table's rows and columns."""
    from dataclasses import replace as changed

    report = systems_report(demo, by="category")
    many = [f"system-{k:02d}" for k in range(20)]
    rows = [changed(row, cells={name: row.cells[report.systems[k % len(report.systems)]]
                                for k, name in enumerate(many)})
            for row in (*report.rows, report.overall, report.macro)]
    wide = changed(report, systems=many, rows=rows[:-2], overall=rows[-2], macro=rows[-1])
    figure = systems_figure(wide)
    canvas = _drawn(figure)
    axes = figure.axes[0]
    written = [text for text in axes.texts]
    judged = [(i, j) for i, row in enumerate(rows) for j, name in enumerate(many) if row.cells[name].rate is not None]
    assert len(written) == len(judged)
    first = rows[0].cells[many[0]]
    assert first.rate is not None
    assert written[0].get_text() == f"{100 * first.rate:.0f}"
    assert (written[0].get_fontweight() == "bold") == first.best_cluster
    renderer = canvas.get_renderer()
    names = [label.get_window_extent(renderer) for label in axes.get_xticklabels()]
    assert all(left.x0 < right.x0 for left, right in zip(names, names[1:]))  # twenty columns side by side
    cells = [text.get_window_extent(renderer) for text in written[:20]]
    assert all(left.x1 <= right.x0 for left, right in zip(cells, cells[1:]))  # no rate runs into the next
