"""The Systems tab: each MT system's pass rate per category or phenomenon (``tsqe report systems``).

The numbers are ``suite.reading.report.systems_report``'s, the same call the command line makes; the table marks
the best cluster as the CLI's text report does (``*``, and bold), shades each cell by its pass rate and keeps
the counts beside the rate, since a rate over 3 outputs means little. Double-clicking a cell opens Review
on exactly the outputs behind it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QModelIndex,
    Qt,
)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gui.elided_label import ElidedLabel
from gui.operations import Operations
from gui.reports.charts import ChartView
from gui.reports.export import ExportButton
from gui.reports.tab import ReportTab, note_label, with_notes
from gui.reports.table_model import RAW_ROLE, ramp, report_view
from gui.review.column_fit import FittedColumns
from gui.row_table_model import RowColumn, RowListModel
from gui.settings import Settings
from gui.splitters import restore_splitters, save_splitters
from gui.state import AppState
from gui.vertical_titles import VerticalTitles
from qe.plots import systems_figure
from suite.changes import Changes
from suite.reading.browse import OutputFilter
from suite.reading.report import ReportBy, ReportRow, SystemsReport, systems_report
from suite.tables import Table
from suite.tasks import TaskState

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIXED_COLUMNS = 2  # the row's name and its number of items
RATE_TIP = "pass rate in %: pass / (pass + fail) over effective labels; double-click a cell to review it"


class SystemsModel(RowListModel[ReportRow]):
    """Rows: the report's rows, then overall (micro) and macro average; columns: name, items, systems."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__((), parent)
        self.report: SystemsReport | None = None

    def set_report(self, report: SystemsReport | None) -> None:
        self.report = report
        if report is None:
            self.set_rows([], ())
            return
        self.set_rows([*report.rows, report.overall, report.macro],
                      (RowColumn("Phenomenon" if report.by == "phenomenon" else "Category"),
                       RowColumn("items", numeric=True),
                       *(RowColumn(system, RATE_TIP, numeric=True) for system in report.systems)))

    def system(self, column: int) -> str | None:
        if self.report is None or column < FIXED_COLUMNS:
            return None
        return self.report.systems[column - FIXED_COLUMNS]

    def row_of_category(self, category: str | None, phenomenon: str | None) -> int | None:
        for i, row in enumerate(self.rows()):
            if row.kind in ("category", "phenomenon") and row.category == category and (
                    phenomenon is None or row.phenomenon in (None, phenomenon)):
                return i
        return None

    def cell(self, row: ReportRow, number: int, column: int, role: int) -> Any:
        assert self.report is not None  # there are rows
        if column < FIXED_COLUMNS:
            if role == Qt.ItemDataRole.DisplayRole:
                return _row_title(row) if column == 0 else f"{row.items:,}"
            if role == Qt.ItemDataRole.FontRole and row.kind in ("overall", "macro"):
                font = QFont()
                font.setItalic(True)
                return font
            return None
        cell = row.cells[self.report.systems[column - FIXED_COLUMNS]]
        if role == Qt.ItemDataRole.DisplayRole:
            # Whole percents, the decimal and the counts in the tooltip: 19 systems fit 1,280 px (one output more
            # or less moves a DFKI category's rate by 1 to 10 points, so the decimal is noise on the screen).
            rate = "–" if cell.rate is None else f"{100 * cell.rate:.0f}"
            return f"{rate}{'*' if cell.best_cluster else ''}"
        if role == RAW_ROLE:
            return cell.rate
        if role == Qt.ItemDataRole.FontRole and cell.best_cluster:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.BackgroundRole:
            return ramp(cell.rate)
        if role == Qt.ItemDataRole.ToolTipRole:
            if cell.counts is None:
                return f"{_percent(cell.rate)}: mean of the category rates over {self.report.macro_over} categories"
            c = cell.counts
            return (f"{self.report.systems[column - FIXED_COLUMNS]}: {_percent(cell.rate)}\n"
                    f"pass {c.passed} · fail {c.failed} · excluded {c.excluded} (unknown {c.unknown}, "
                    f"conflict {c.conflict}, error {c.error}, unlabelled {c.unlabelled})"
                    + ("\n* best cluster: best system or not significantly worse" if cell.best_cluster else ""))
        return None


def _percent(rate: float | None) -> str:
    return "no judged output" if rate is None else f"{100 * rate:.1f} %"


def _row_title(row: ReportRow) -> str:
    if row.kind == "phenomenon":
        return f"{row.category} / {row.phenomenon}"
    if row.kind == "overall":
        return "overall (micro)"
    if row.kind == "macro":
        return "macro average"
    return row.category or ""


SYSTEMS_REPORT_READ = "reports/systems"


class SystemsTab(ReportTab):
    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(state, ops, (SYSTEMS_REPORT_READ,), parent)

        self.by = QComboBox()
        self.by.addItem("per category", "category")
        self.by.addItem("per phenomenon", "phenomenon")
        self.alpha = QDoubleSpinBox()
        self.alpha.setRange(0.001, 0.5)
        self.alpha.setDecimals(3)
        self.alpha.setSingleStep(0.01)
        self.alpha.setValue(0.05)
        self.alpha.setToolTip("Significance level of the best-cluster test (one-sided two-proportion z-test)")
        self.status = ElidedLabel()
        self.status.setStyleSheet("color: #555")
        self.export = ExportButton("systems report", self.table, self.figure, self, document=self.document)

        controls = QHBoxLayout()
        controls.addWidget(QLabel("Pass rate"))
        controls.addWidget(self.by)
        controls.addWidget(QLabel("α"))
        controls.addWidget(self.alpha)
        controls.addStretch(1)
        controls.addWidget(self.status)
        controls.addWidget(self.export)

        self.model = SystemsModel(self)
        self.view = report_view(self.model)
        self.view.setHorizontalHeader(VerticalTitles(FIXED_COLUMNS, self.view))  # 19 systems' names fit
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.doubleClicked.connect(self._open_review)
        self.columns = FittedColumns.of_contents(self.view)
        self.chart = ChartView("the chart appears once the report is computed", ops, "reports/systems/chart")
        self.legend = note_label()
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(with_notes(self.view, self.legend))
        self.splitter.addWidget(self.chart)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setSizes([650, 350])  # the table first (its 14 categories at 1,280×720), the chart below
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.splitter)

        self.by.currentIndexChanged.connect(self.refresh)
        self.alpha.valueChanged.connect(self.refresh)

    # --- what the menus, the export and the tests use -----------------------------------------------
    def table(self) -> Table | None:
        return None if self.model.report is None else self.model.report.to_table()

    def document(self) -> str | None:
        return None if self.model.report is None else self.model.report.to_json() + "\n"

    def figure(self) -> Figure | None:
        return self.chart.export_figure()

    def save_settings(self, settings: Settings) -> None:
        save_splitters(settings, {"reports/systems/splitter": self.splitter})
        settings.set("reports/systems/by", self.by.currentData())

    def restore_settings(self, settings: Settings) -> None:
        restore_splitters(settings, {"reports/systems/splitter": self.splitter})
        index = self.by.findData(settings.text("reports/systems/by", "category"))
        if index >= 0:
            self.by.setCurrentIndex(index)

    def refresh(self) -> None:
        """Recompute in the background; a newer request supersedes one still running."""
        db, suite = self._state.db, self._state.suite_name
        if db is None:
            return
        self._stale = False
        by: ReportBy = self.by.currentData()
        alpha = self.alpha.value()
        self.status.setText("computing…")

        def work(task: TaskState) -> SystemsReport:
            return systems_report(db, suite, by=by, alpha=alpha)

        self._ops.read(work, self._show, key=SYSTEMS_REPORT_READ, on_failure=self._failed)

    # --- internals ------------------------------------------------------------------------------------
    def _show(self, report: SystemsReport) -> None:
        self.model.set_report(report)
        self.columns.contents_changed()
        self.chart.set_chart(lambda: systems_figure(report))
        judged = sum(c.counts.judged for c in report.overall.cells.values() if c.counts is not None)
        self.status.setText(f"{len(report.rows)} rows · {len(report.systems)} systems · {judged:,} judged outputs")
        self.legend.setText(
            "Cell: pass rate in whole % (its tooltip: the rate to a tenth, pass/judged system outputs; effective "
            "labels, unknown, conflict, "
            f"error and unlabelled left out). * and bold: the best system of the row and those not significantly worse "
            f"(one-sided two-proportion z-test, α = {report.alpha:g}). Double-click a cell to review its outputs.")
        self._follow_selection()

    def _failed(self, error: Exception) -> bool:
        self.status.setText(str(error))
        self.model.set_report(None)
        self.chart.set_chart(None)
        return True

    def concerns(self, changes: Changes) -> bool:
        return changes.label_state

    def _clear_shown(self) -> None:
        self.model.set_report(None)
        self.chart.set_chart(None)
        self.legend.setText("")
        self.status.setText("")

    def _follow_selection(self) -> None:
        selection = self._state.selection
        if selection.category is None:
            return
        row = self.model.row_of_category(selection.category, selection.phenomenon)
        if row is not None:
            self.view.setCurrentIndex(self.model.index(row, 0))
            self.view.scrollTo(self.model.index(row, 0))

    def review_filter(self, index: QModelIndex) -> OutputFilter:
        """The outputs behind a cell: that system's, in that row (all rows for the summary rows)."""
        row = self.model.row(index.row())
        return OutputFilter(system=self.model.system(index.column()),
                            category=row.category if row.kind in ("category", "phenomenon") else None,
                            phenomenon=row.phenomenon if row.kind == "phenomenon" else None)

    def _open_review(self, index: QModelIndex) -> None:
        self._state.show_review(self.review_filter(index))
