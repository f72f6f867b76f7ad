"""The QE accuracy tab's Stability page: whether the ranking of the QE systems holds between random halves of
the items (``qe.stability.ranking_stability``, as ``tsqe stability``), computed in the background when the page
is shown.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from gui.elided_label import ElidedLabel
from gui.reports.export import ExportButton
from gui.reports.qe_surface import QESurface
from gui.reports.table_model import TableModel, report_view
from qe.evaluation import read_inputs
from qe.stability import StabilityResult, ranking_stability
from suite.errors import TsqeError
from suite.tables import Table
from suite.tasks import TaskState

if TYPE_CHECKING:
    pass

STABILITY_READ = "reports/qe/stability"


class QEStabilityPage(QESurface):
    """The stability page's controls, table and notes."""

    def _build_stability(self) -> QWidget:
        self.splits = QSpinBox()
        self.splits.setRange(1, 10_000)
        self.splits.setValue(200)
        self.splits.setPrefix("splits ")
        self.stability_status = ElidedLabel()
        self.stability_status.setStyleSheet("color: #555")
        self.stability_model = TableModel(self)
        self.stability_view = report_view(self.stability_model)
        self.stability_notes = QLabel()
        self.stability_notes.setWordWrap(True)
        self.stability_notes.setStyleSheet("color: #555; font-size: 11px")
        self.stability_export = ExportButton("QE ranking stability table", self.stability_table, None, self,
                                             document=self.stability_document)
        stability_controls = QHBoxLayout()
        question = QLabel("Does the ranking of the QE systems hold between random halves of the items?")
        question.setWordWrap(True)
        stability_controls.addWidget(question, 1)
        stability_controls.addWidget(self.splits)
        stability_controls.addWidget(self.stability_status)
        stability_controls.addWidget(self.stability_export)
        stability_page = QWidget()
        stability_layout = QVBoxLayout(stability_page)
        stability_layout.addLayout(stability_controls)
        stability_layout.addWidget(self.stability_view)
        stability_layout.addWidget(self.stability_notes)
        self.splits.valueChanged.connect(self.compute_stability)
        return stability_page

    def stability_document(self) -> str | None:
        return None if self.stability is None else self.stability.to_json() + "\n"

    def stability_table(self) -> Table | None:
        return self.stability_model.table

    def compute_stability(self) -> None:
        db, suite = self._state.db, self._state.suite_name
        if db is None:
            return
        options, splits = self.options(), self.splits.value()
        self.stability_status.setText("computing…")
        known = self._inputs

        def work(task: TaskState) -> StabilityResult:
            inputs = known if known is not None else read_inputs(db, suite)
            return ranking_stability(inputs.pairs, inputs.chosen(options.qe), by=options.by,
                                     category=options.category, ties=inputs.ties(options.ties), splits=splits,
                                     seed=options.seed)

        self._ops.read(work, self._show_stability, key=STABILITY_READ, on_failure=self._stability_failed)

    def _show_stability(self, result: StabilityResult) -> None:
        self.stability = result
        table = result.to_table()
        self.stability_model.set_table(table)
        self.stability_view.resizeColumnsToContents()
        self.stability_notes.setText("  ".join(table.display_notes()))
        self.stability_status.setText(f"{result.splits} splits over {result.overall.items:,} items")

    def _stability_failed(self, error: Exception) -> bool:
        if not isinstance(error, TsqeError):
            return False
        self.stability = None
        self.stability_model.set_table(None)
        self.stability_status.setText(str(error))
        return True
