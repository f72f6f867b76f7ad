"""The Meta-evaluation tab: the WMT metrics task's statistics on the open suite, what ``tsqe meta-eval --statistic``
prints (``filters.wmt_statistics``).

The choices are the command's: level, statistics, grouping, the kind of human scores (the suite's kinds, read in
the background; a suite holding several has no default, as ``--human`` has none), metrics, the permutations of
the significance test and its seed; the table is the core's WMT layout (a row per metric, ``value (cluster)``,
rank 1 in bold, chance in the footer), with the p-value of "the best metric is better than this one" and ε in
each cell's tooltip. The chart is the core's cluster bar chart of the statistic whose column is selected. The
permutation tests take seconds to minutes, so nothing runs until Run is pressed, and it runs as a write (progress
dialog, Cancel) because scoring the metrics stores their scores as caches.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from filters.wmt_statistics import WmtEvaluation, WmtOptions
from gui.elided_label import ElidedLabel
from gui.operations import Operations
from gui.operations.meta_eval import wmt_statistics
from gui.reports.charts import ChartView
from gui.reports.export import ExportButton
from gui.reports.tab import ReportTab, note_label, with_notes
from gui.reports.table_model import TableModel, report_view
from gui.state import AppState
from store.domain import HumanScoreKind
from suite.agreement import Setting
from suite.changes import Changes
from suite.domain import Grouping, Level, Statistic
from suite.errors import TsqeError
from suite.lists import comma_list
from suite.reading.human_kinds import suite_human_kinds
from suite.tables import Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_Index = QModelIndex | QPersistentModelIndex
CHART_RENDER = "reports/meta-eval/chart"
KINDS_READ = "reports/meta-eval/human-kinds"
DEFAULT_METRICS = "bleu,chrf,ter"


class StatisticsModel(TableModel):
    """The WMT table; a cell's tooltip says its p-value against the best metric and its tie threshold."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.evaluation: WmtEvaluation | None = None

    def set_evaluation(self, evaluation: WmtEvaluation | None) -> None:
        self.evaluation = evaluation
        self.set_table(None if evaluation is None else evaluation.to_table(next(iter(evaluation.datasets))))

    def setting_of(self, column: int) -> Setting | None:
        """The statistic a column shows (None: the metric column)."""
        if self.evaluation is None or column < 1:
            return None
        return self.evaluation.options.settings[column - 1]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        setting = self.setting_of(index.column()) if index.isValid() else None
        table = self.table
        if role != Qt.ItemDataRole.ToolTipRole or setting is None or self.evaluation is None or table is None \
                or index.row() >= len(table.body):
            return super().data(index, role)
        metric = str(table.body[index.row()][0].value)
        compared = next(iter(self.evaluation.datasets.values())).results[setting]
        k = compared.metrics.index(metric)
        p = compared.p_vs_best(k)
        epsilon = compared.values[k].epsilon
        parts = [f"{metric}, {setting}: {compared.values[k].value:.4f}, cluster {compared.ranks[k]}",
                 "the best metric" if k == 0 else
                 "no significance test" if p is None else f"p = {p:.3f} that the best metric is better"]
        if epsilon is not None:
            parts.append(f"tie threshold ε = {epsilon:.4g}")
        return "\n".join(parts)


class MetaEvalTab(ReportTab):
    """The choices on top, the table and its notes on the left, the chosen statistic's bar chart on the right."""

    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(state, ops, (), parent)
        self.evaluation: WmtEvaluation | None = None
        self.level = QComboBox()
        self.level.addItems([str(level) for level in Level])
        self.level.setToolTip("system: a score per system; segment: a score per system and segment")
        self.level.currentTextChanged.connect(self._level_changed)
        self.statistics = {statistic: QCheckBox(str(statistic)) for statistic in Statistic}
        for statistic, box in self.statistics.items():
            box.setChecked(statistic is not Statistic.SPA)
        self.statistics[Statistic.SPA].setToolTip("soft pairwise accuracy: system level, from segment scores")
        self.statistics[Statistic.ACC_EQ].setToolTip("pairwise accuracy with the tie threshold ε chosen on the data")
        self.grouping = QComboBox()
        self.grouping.addItems([str(grouping) for grouping in Grouping])
        self.grouping.setToolTip("segment level: the statistic over all scores, per item or per system, averaged")
        self.human = QComboBox()
        self.human.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)  # its kinds come later
        self.human.setToolTip("the kind of human scores to compare with, as named at import (DA, z, ESA, MQM)")
        self.metrics = QLineEdit(DEFAULT_METRICS)
        self.metrics.setToolTip("the metrics to compare, comma-separated (bleu, chrf, ter, bertscore-f, qe:NAME…)")
        self.metrics.setMaximumWidth(200)
        self.permutations = QSpinBox()
        self.permutations.setRange(0, 100_000)
        self.permutations.setValue(1000)
        self.permutations.setPrefix("permutations ")
        self.permutations.setToolTip("paired permutation tests between metrics (0: no test, ranks by value)")
        self.seed = QSpinBox()
        self.seed.setRange(0, 1_000_000)
        self.seed.setPrefix("seed ")
        self.run = QPushButton("Run")
        self.run.setToolTip("Compute the statistics and their significance clusters in the background")
        self.run.clicked.connect(self.compute)
        self.status = ElidedLabel()
        self.status.setStyleSheet("color: #555")
        self.export = ExportButton("WMT statistics table", self.table, self.figure, self, document=self.document)
        # two rows: in one, the choices were 1,014 px wide and the window no longer fitted a 1,280 px screen
        what, how = QHBoxLayout(), QHBoxLayout()
        for row, widgets in ((what, (self.level, *self.statistics.values(), self.grouping, self.human)),
                             (how, (self.metrics, self.permutations, self.seed, self.run, self.export))):
            for widget in widgets:
                row.addWidget(widget)
            row.addStretch(1)
        self.model = StatisticsModel(self)
        self.view = report_view(self.model)
        self.view.selectionModel().currentChanged.connect(lambda current, _: self._show_chart(current.column()))
        self.notes = note_label()
        self.chart = ChartView("Run to see the metrics' clusters", ops, CHART_RENDER)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(with_notes(self.view, self.notes))
        self.splitter.addWidget(self.chart)
        self.splitter.setSizes([640, 520])
        layout = QVBoxLayout(self)
        layout.addLayout(what)
        layout.addLayout(how)
        layout.addWidget(self.status)
        layout.addWidget(self.splitter, 1)
        self._level_changed(self.level.currentText())

    def refresh(self) -> None:
        """Nothing is computed on showing: the tests take a while, Run starts them."""
        self._stale = False
        if self.evaluation is None:
            self.status.setText(f"Run compares the metrics on {self._state.suite_name or 'the open suite'} "
                                "against its human scores")
        db, suite = self._state.db, self._state.suite_name
        if db is not None and suite is not None:
            self._ops.read(lambda task: suite_human_kinds(db, suite), self._while_current(db, suite, self.show_kinds),
                           key=KINDS_READ)

    def show_kinds(self, kinds: list[HumanScoreKind]) -> None:
        """The suite's kinds to choose from: its only one chosen, or none of several until the user chooses."""
        self.human.clear()
        if len(kinds) != 1:
            self.human.addItem("human scores: choose" if kinds else "no human scores", None)
        for kind in kinds:
            self.human.addItem(f"human: {kind}", kind)

    def concerns(self, changes: Changes) -> bool:
        return False  # what was computed stays until the next Run or another suite

    def _follow_selection(self) -> None:
        """The statistics are of the whole suite: a selection in the tree changes nothing here."""

    def _clear_shown(self) -> None:
        self.show_evaluation(None)
        self.status.setText("")

    def table(self) -> Table | None:
        return self.model.table

    def figure(self) -> Figure | None:
        return self.chart.export_figure()

    def document(self) -> str | None:
        return None if self.evaluation is None else self.evaluation.to_json() + "\n"

    def options(self) -> WmtOptions:
        level = Level(self.level.currentText())
        grouping = Grouping(self.grouping.currentText()) if level is Level.SEGMENT else Grouping.NONE
        settings = tuple(Setting(s, grouping) for s, box in self.statistics.items()
                         if box.isChecked() and box.isEnabled())
        metrics = tuple(comma_list(self.metrics.text()))
        return WmtOptions(suites=(self._state.suite_name or "",), metrics=metrics, level=level, settings=settings,
                          permutations=self.permutations.value(), seed=self.seed.value(),
                          human=self.human.currentData())

    def compute(self) -> None:
        db = self._state.db
        if db is None or self._state.suite_name is None:
            return
        self.status.setText("computing the statistics and the permutation tests…")
        suite = self._state.suite_name
        write = wmt_statistics(db, self.options())
        write.success(self._while_current(db, suite, self.show_evaluation))
        write.failure(self._failed)
        self._ops.run(write)

    def show_evaluation(self, evaluation: WmtEvaluation | None) -> None:
        self.evaluation = evaluation
        self.model.set_evaluation(evaluation)
        self.view.resizeColumnsToContents()
        table = self.model.table
        self.notes.setText("  ".join(table.display_notes()) if table is not None else "")
        if evaluation is None:
            self.chart.set_chart(None)
            return
        dataset = next(iter(evaluation.datasets.values()))
        self.status.setText(f"{dataset.suite}: {len(dataset.systems)} systems, {dataset.human} human scores, "
                            f"{evaluation.options.level} level; select a column for its chart")
        self._show_chart(1)

    def _show_chart(self, column: int) -> None:
        evaluation, setting = self.evaluation, self.model.setting_of(column)
        if evaluation is None or setting is None:
            return
        suite = next(iter(evaluation.datasets))
        self.chart.set_chart(lambda: evaluation.bar_chart(suite, setting))

    def _level_changed(self, level: str) -> None:
        segment = level == str(Level.SEGMENT)
        self.grouping.setEnabled(segment)
        self.statistics[Statistic.SPA].setEnabled(not segment)  # a system-level statistic

    def _failed(self, error: Exception) -> bool:
        if not isinstance(error, TsqeError):
            return False
        self.show_evaluation(None)
        self.status.setText(str(error))
        return True
