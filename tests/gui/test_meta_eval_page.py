"""The Meta-evaluation tab: ``tsqe meta-eval --statistic``'s table and cluster chart for the open suite, computed
in the background on Run (the demo's four systems with their system-level human scores)."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester

from filters.wmt_statistics import wmt_meta_evaluate
from gui.operations import Operations
from gui.reports.meta_eval import MetaEvalTab
from gui.state import AppState
from store.domain import HumanScoreKind
from suite.demo import DEMO_SUITE
from suite.domain import Statistic
from suite.importers.human_scores import import_human_scores


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


def test_the_kind_of_human_scores_is_chosen_when_the_suite_holds_two(tab: MetaEvalTab, ops: Operations,
                                                                     state: AppState, tmp_path: Path) -> None:
    assert [tab.human.itemText(k) for k in range(tab.human.count())] == ["human: z"]  # the only kind, chosen
    assert state.db is not None
    mqm = tmp_path / "mqm.txt"  # MQM of the same systems, ordered the other way round from the demo's z-scores
    mqm.write_text("LP HUMAN SYSTEM\nde-en -9.5 Rheinfall-LLM\nde-en -7.0 Lindenbaum-NMT\nde-en -3.25 Online-X\n"
                   "de-en -1.0 Baseline-SMT\n", encoding="utf-8")
    import_human_scores(state.db, mqm, suite_name=DEMO_SUITE, kind=HumanScoreKind.MQM)
    tab.refresh()
    assert ops.wait_idle()
    assert [tab.human.itemText(k) for k in range(tab.human.count())] == [
        "human scores: choose", "human: z", "human: mqm"]
    tab.run.click()
    assert ops.wait_idle(300_000)
    assert "holds human scores of 2 kinds (z, mqm): choose the kind" in tab.status.text()
    tab.human.setCurrentText("human: mqm")
    tab.run.click()
    assert ops.wait_idle(300_000)
    assert "4 systems, mqm human scores, system level" in tab.status.text()
    on_mqm = tab.model.index(1, 2).data()
    tab.human.setCurrentText("human: z")
    tab.run.click()
    assert ops.wait_idle(300_000)
    assert "z human scores" in tab.status.text() and tab.model.index(1, 2).data() != on_mqm
