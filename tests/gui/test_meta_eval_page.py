"""The Meta-evaluation tab: ``tsqe meta-eval --statistic``'s table and cluster chart for the open suite, computed
in the background on Run (the demo's four systems with their system-level human scores)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester

from filters.wmt_statistics import wmt_meta_evaluate
from gui.operations import Operations
from gui.reports.meta_eval import MetaEvalTab
from gui.state import AppState
from suite.domain import Statistic


@pytest.fixture
def tab(qtbot, state: AppState, ops: Operations) -> MetaEvalTab:  # type: ignore[no-untyped-def]
    tab = MetaEvalTab(state, ops)
    qtbot.addWidget(tab)
    QAbstractItemModelTester(tab.model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    tab.resize(1280, 720)
    tab.show()
    assert ops.wait_idle()
    for statistic, box in tab.statistics.items():
        box.setChecked(statistic in (Statistic.ACC_EQ, Statistic.PEARSON))
    tab.metrics.setText("bleu,chrf")
    tab.permutations.setValue(200)
    return tab


def test_showing_the_tab_computes_nothing(tab: MetaEvalTab) -> None:
    assert tab.table() is None and tab.figure() is None
    assert "Run compares the metrics on tsqe-demo-de-en" in tab.status.text()


def test_run_shows_the_core_s_table_with_clusters_p_values_and_the_chart(tab: MetaEvalTab, ops: Operations,
                                                                        state: AppState) -> None:
    tab.run.click()
    assert ops.wait_idle(300_000)
    assert state.db is not None
    expected = wmt_meta_evaluate(state.db, tab.options()).to_table("tsqe-demo-de-en")
    model = tab.model
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())] == [
        "metric", "acc-eq", "pearson"]
    shown = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]
    assert shown[0][0] == "bleu" and shown[1][0] == "chrf" and shown[2][0] == "chance"
    assert [row[1:] for row in shown[:2]] == [[str(cell.value) for cell in row[1:]] for row in expected.body]
    assert shown[2][1:] == ["0.500", "0.000"]  # chance levels with four systems and no human ties
    tooltip = model.index(1, 2).data(Qt.ItemDataRole.ToolTipRole)
    assert "cluster" in tooltip and "chrf, pearson" in tooltip
    assert "ε = 0" in model.index(0, 1).data(Qt.ItemDataRole.ToolTipRole)
    assert "4 systems, z human scores, system level" in tab.status.text()
    assert ops.wait_idle()
    assert tab.chart.image is not None and tab.chart.image.width() > 200
    figure = tab.figure()
    assert figure is not None and "acc-eq" in figure.axes[0].get_title("left")
    assert '"bleu"' in (tab.document() or "")


def test_segment_level_on_a_suite_without_segment_scores_says_why_in_the_tab(tab: MetaEvalTab,
                                                                             ops: Operations) -> None:
    tab.level.setCurrentText("segment")
    assert not tab.statistics[Statistic.SPA].isEnabled() and tab.grouping.isEnabled()
    tab.run.click()
    assert ops.wait_idle(300_000)
    assert "has no segment-level human scores" in tab.status.text()
    assert tab.table() is None
