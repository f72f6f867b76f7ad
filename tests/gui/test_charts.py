"""The chart pane on the demo: a chart designed taller than the pane keeps its height and scrolls, one that fits
fills the pane."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from matplotlib.figure import Figure
from pytestqt.qtbot import QtBot

from gui.operations import Operations
from gui.reports.charts import PANE_DPI, ChartView
from gui.state import AppState
from qe.accuracy import pairwise_accuracy
from qe.pairs import build_pairs
from qe.plots import accuracy_figure
from suite.qe_scores import read_qe_scores


@pytest.fixture
def chart(qtbot: QtBot, ops: Operations) -> ChartView:
    view = ChartView("no chart yet", ops, "test-chart")
    qtbot.addWidget(view)
    view.resize(480, 330)  # the QE tab's chart pane in a 1446x860 window
    view.show()
    return view


def _shown(chart: ChartView, ops: Operations, draw: Callable[[], Figure]) -> tuple[int, int]:
    chart.set_chart(draw)
    assert ops.wait_idle()
    assert chart.image is not None
    return (round(chart.image.width() / chart.image.devicePixelRatio()),
            round(chart.image.height() / chart.image.devicePixelRatio()))


def test_a_chart_taller_than_the_pane_scrolls_and_one_that_fits_fills_it(qtbot: QtBot, chart: ChartView,
                                                                         ops: Operations, state: AppState) -> None:
    assert state.db is not None
    pairs, scores = build_pairs(state.db), read_qe_scores(state.db)
    phenomena = pairwise_accuracy(pairs, scores, by="phenomenon", bootstrap=100, seed=1)
    designed = round(accuracy_figure(phenomena).get_size_inches()[1] * PANE_DPI)
    assert designed > chart.height() + 200  # 32 phenomena
    width, height = _shown(chart, ops, lambda: accuracy_figure(phenomena))
    scrollbar = chart.area.verticalScrollBar()
    assert height == designed and width == chart.width() - scrollbar.sizeHint().width()
    qtbot.waitUntil(lambda: scrollbar.isVisible() and scrollbar.maximum() > 0)

    in_one_category = pairwise_accuracy(pairs, scores, by="phenomenon", category="Negation", bootstrap=100, seed=1)
    assert round(accuracy_figure(in_one_category).get_size_inches()[1] * PANE_DPI) < chart.height()
    width, height = _shown(chart, ops, lambda: accuracy_figure(in_one_category))
    assert (width, height) == (chart.width(), chart.height())
    qtbot.waitUntil(lambda: scrollbar.maximum() == 0)

    chart.set_chart(None)
    assert chart.image is None
