"""The QE accuracy tab: the suite's QE systems, Table 2 of Avramidis et al., its chart, its pairs, stability,
where the ranking flips between rows, and whether the database's suites can be told apart.

Everything is the core's: ``qe.evaluation`` (as ``tsqe accuracy``), ``qe.plots.accuracy_figure`` (as ``tsqe
plot accuracy``), ``qe.stability.ranking_stability`` (as ``tsqe stability``), ``qe.disagreement`` (as ``tsqe
accuracy --table disagreement``) and the QE systems' import,
training, prediction and removal. The bootstrap runs in a background read, so 1,000 resamples never freeze
the window; changing an option supersedes a run still going. Training, prediction and scoring are background
writes with progress and Cancel.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui.elided_label import ElidedLabel
from gui.operations import Operations
from gui.reports.adversarial import AdversarialPage
from gui.reports.charts import ChartView
from gui.reports.disagreement import DisagreementPage
from gui.reports.export import ExportButton
from gui.reports.pairs_view import PairsView
from gui.reports.qe_stability import STABILITY_READ, QEStabilityPage
from gui.reports.qe_systems import QESystemsPane
from gui.reports.tab import ReportTab, note_label, with_notes
from gui.reports.table_model import TableModel, report_view
from gui.review.column_fit import FittedColumns
from gui.settings import Settings
from gui.splitters import restore_splitters, save_splitters
from gui.state import AppState
from qe.accuracy import TIES, TIES_COLUMN, AccuracyResult
from qe.disagreement import row_disagreement
from qe.evaluation import AccuracyOptions, EvaluationInputs, accuracy, read_inputs
from qe.pair_verdicts import PairVerdict, pair_verdicts
from qe.pairs import PairTable
from qe.plots import accuracy_figure
from qe.stability import StabilityResult
from suite.changes import Changes
from suite.errors import TsqeError
from suite.qe_scores import QEScores, QESystemInfo, list_qe_systems
from suite.tables import Table
from suite.tasks import TaskState

if TYPE_CHECKING:
    from matplotlib.figure import Figure

RECOMPUTE_DELAY_MS = 250
"""Spin boxes emit on every step; wait until the user stops clicking before a new bootstrap."""


@dataclass(frozen=True)
class AccuracyView:
    """A computed table with what it was computed from, so a clicked cell can list its pairs at once."""

    options: AccuracyOptions
    inputs: EvaluationInputs
    systems: list[QEScores]
    result: AccuracyResult

    @property
    def pairs(self) -> PairTable:
        return self.inputs.pairs


def _rows_key(by: str, category: str | None) -> str:
    """A combo box keeps strings faithfully (a tuple comes back as a list): "by:category", "in:CATEGORY"."""
    return f"by:{by}" if category is None else f"in:{category}"


def _rows_choice(key: str) -> tuple[str, str | None]:
    kind, _, value = key.partition(":")
    return (value, None) if kind == "by" else ("phenomenon", value)


SYSTEMS_READ, ACCURACY_READ, PAIRS_READ, DISAGREEMENT_READ = (
    "reports/qe/systems", "reports/qe/accuracy", "reports/qe/pairs", "reports/qe/disagreement")
STABILITY_PAGE, DISAGREEMENT_PAGE, ADVERSARIAL_PAGE, SYSTEMS_PAGE = 1, 2, 3, 5  # 0: pairwise accuracy, 4: its chart


class QETab(QESystemsPane, QEStabilityPage, ReportTab):
    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(state, ops, (SYSTEMS_READ, ACCURACY_READ, STABILITY_READ, PAIRS_READ, DISAGREEMENT_READ),
                         parent)
        self.view_data: AccuracyView | None = None
        # The pairs and scores the table was last computed from, reused while only the options change; a write
        # that changes labels, outputs or QE scores drops them (``concerns``, ``_forget``).
        self._inputs: EvaluationInputs | None = None
        self.stability: StabilityResult | None = None

        systems_box = self._build_systems()

        # options of the table
        self.rows = QComboBox()
        self.rows.setMinimumContentsLength(24)
        # as wide as its longest choice: "phenomena of Named entity & terminology" was cut to "… & el"
        self.rows.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.rows.setToolTip("Rows: categories, phenomena, or one category's phenomena (Tables 3-4)")
        self._fill_rows([])
        self.ties = QComboBox()
        self.ties.addItem("ties: default", None)
        for policy in TIES:
            self.ties.addItem(f"ties: {policy}", policy)
        self.ties.setToolTip("default: half, or wrong for a suite imported as a challenge set · half: a tie "
                             "counts 0.5 · wrong: 0, the published convention of challenge sets · drop: tied "
                             "pairs leave that system's count")
        self.bootstrap = QSpinBox()
        self.bootstrap.setRange(0, 100_000)
        self.bootstrap.setSingleStep(500)
        self.bootstrap.setValue(1000)
        self.bootstrap.setPrefix("resamples ")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setPrefix("seed ")
        self.status = ElidedLabel()
        self.status.setStyleSheet("color: #555")
        self.export = ExportButton("QE accuracy table", self.table, self.figure, self, document=self.document)
        options = QHBoxLayout()
        for widget in (self.rows, self.ties, self.bootstrap, self.seed):
            options.addWidget(widget)
        options.addStretch(1)
        options.addWidget(self.status)
        options.addWidget(self.export)

        # the table, its chart and its pairs
        self.model = TableModel(self, intervals_in_tooltip=True)
        self.view = report_view(self.model)
        self.columns = FittedColumns.of_contents(self.view)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.clicked.connect(self._cell_clicked)
        self.notes = note_label()
        self.chart = ChartView("the chart appears once the table is computed", ops, "reports/qe/chart")
        self.pairs = PairsView()
        # The table over the whole width (its systems side by side) and three quarters of the height, its pairs
        # under it, the chart on a page of its own: beside the chart and under the QE systems the table showed 7 of
        # its 14 rows at 1,280×720, scrolling sideways, and the pairs pane one pair.
        accuracy_page = QSplitter(Qt.Orientation.Vertical)
        accuracy_page.addWidget(with_notes(self.view, self.notes))
        accuracy_page.addWidget(self.pairs)
        accuracy_page.setStretchFactor(0, 3)
        accuracy_page.setStretchFactor(1, 1)
        accuracy_page.setSizes([750, 250])
        self.accuracy_page = accuracy_page

        stability_page = self._build_stability()

        # disagreement between rows
        self.disagreement_page = DisagreementPage()
        # and between suites, beside it
        self.adversarial_page = AdversarialPage(state, ops)

        self.pages = QTabWidget()
        self.pages.addTab(accuracy_page, "Pairwise accuracy")
        self.pages.addTab(stability_page, "Stability")
        self.pages.addTab(self.disagreement_page, "Disagreement")
        self.pages.addTab(self.adversarial_page, "Adversarial validation")

        # The QE systems are a page of their own: above the pages they took a fifth of a 720 px screen, and the
        # table, what is read, showed 7 of its 14 rows. The options stay above every page.
        self.pages.addTab(self.chart, "Chart")
        self.pages.addTab(systems_box, "QE systems")
        layout = QVBoxLayout(self)
        layout.addLayout(options)
        layout.addWidget(self.pages, 1)

        self._recompute = QTimer(self)
        self._recompute.setSingleShot(True)
        self._recompute.setInterval(RECOMPUTE_DELAY_MS)
        self._recompute.timeout.connect(self.compute)
        for combo in (self.rows, self.ties):
            combo.currentIndexChanged.connect(self._recompute.start)
        for spin in (self.bootstrap, self.seed):
            spin.valueChanged.connect(self._recompute.start)
        self.systems_model.dataChanged.connect(self._recompute.start)
        self.systems_model.dataChanged.connect(self._name_systems_page)
        self.disagreement_page.count_too_few.toggled.connect(self.compute_disagreement)
        self.pages.currentChanged.connect(self._page_changed)
        self.add_menu_actions((("Import QE scores…", self._import_scores), ("Train a QE system…", self._train),
                               ("Store a metric as QE…", self._metric)))

    # --- public: what the window, the export and the tests use ------------------------------------------
    def table(self) -> Table | None:
        return self.model.table

    def document(self) -> str | None:
        return None if self.view_data is None else self.view_data.result.to_json() + "\n"

    def figure(self) -> Figure | None:
        return self.chart.export_figure()

    def options(self) -> AccuracyOptions:
        by, category = _rows_choice(self.rows.currentData())
        checked = self.systems_model.checked()
        everything = [s.name for s in self.systems_model.systems]
        return AccuracyOptions(by=by, category=category, qe=None if checked == everything else tuple(checked),
                               ties=self.ties.currentData(), bootstrap=self.bootstrap.value(),
                               seed=self.seed.value())

    def set_options(self, options: AccuracyOptions) -> None:
        """Set every control at once and compute once (for tests and restored settings)."""
        widgets = (self.rows, self.ties, self.bootstrap, self.seed, self.systems_model)
        for widget in widgets:
            widget.blockSignals(True)
        try:
            key = _rows_key(options.by, options.category)
            if self.rows.findData(key) < 0:
                self.rows.addItem(f"phenomena of {options.category}", key)
            self.rows.setCurrentIndex(self.rows.findData(key))
            self.ties.setCurrentIndex(self.ties.findData(options.ties))
            self.bootstrap.setValue(options.bootstrap)
            self.seed.setValue(options.seed)
            if options.qe is not None:
                self.systems_model.set_checked(list(options.qe))
        finally:
            for widget in widgets:
                widget.blockSignals(False)
        self.systems_view.viewport().update()
        self.compute()

    def refresh(self) -> None:
        """Reload the QE systems, then recompute the table."""
        db = self._state.db
        if db is None:
            return
        self._stale = False
        self._ops.read(lambda task: list_qe_systems(db), self._systems_loaded, key=SYSTEMS_READ)
        if self.pages.currentIndex() == ADVERSARIAL_PAGE:
            self.adversarial_page.refresh()

    def compute(self) -> None:
        db, suite = self._state.db, self._state.suite_name
        if db is None:
            return
        self._recompute.stop()
        options = self.options()
        if options.qe == ():
            self._failed(TsqeError("check at least one QE system to compare"))
            return
        self.status.setText(f"computing ({options.bootstrap:,} resamples)…" if options.bootstrap else "computing…")
        inputs = self._inputs

        def work(task: TaskState) -> AccuracyView:
            read = inputs if inputs is not None else read_inputs(db, suite)
            return AccuracyView(options, read, read.chosen(options.qe), accuracy(read, options, task))

        self._ops.read(work, self._show, key=ACCURACY_READ, on_failure=self._failed)
        if self.pages.currentIndex() == STABILITY_PAGE:
            self.compute_stability()

    def compute_disagreement(self) -> None:
        """The disagreement between the rows of the table on screen (no database read: the table has the ranks)."""
        data = self.view_data
        if data is None:
            self.disagreement_page.clear("the heat map appears once the table is computed")
            return
        if not data.result.bootstrap:
            self.disagreement_page.clear("significant ranks need bootstrap resamples: set resamples above 0")
            return
        result, count = data.result, self.disagreement_page.count_too_few.isChecked()
        self.disagreement_page.status.setText("computing…")
        self._ops.read(lambda task: row_disagreement(result, count_too_few=count),
                       self.disagreement_page.show_disagreement, key=DISAGREEMENT_READ)

    def show_pairs(self, row: int, column: int) -> None:
        """List the pairs of a table cell (a row and a QE system column) in the lower pane; a cell of a system's
        tie-rate column lists that system's tied pairs of the row."""
        data = self.view_data
        if data is None or self.model.table is None:
            return
        name = self.model.headerData(column, Qt.Orientation.Horizontal)
        system = next((s for s in data.systems if s.name == name), None)
        ties_only = system is None
        if system is None:
            system = next((s for s in data.systems if f"{s.name} {TIES_COLUMN}" == name), None)
        if system is None:
            return
        result = data.result
        db, suite = self._state.db, self._state.suite_name
        assert db is not None
        title = (f"{'ties of ' if ties_only else ''}{system.name} on "
                 f"{result.table_rows[row].name if row < len(result.rows) else 'all rows'}")

        def work(task: TaskState) -> list[PairVerdict]:
            pairs = pair_verdicts(db, data.pairs, system, result, row, suite_name=suite)
            return [pair for pair in pairs if pair.verdict == "tie"] if ties_only else pairs

        self._ops.read(work, lambda pairs: self.pairs.show_pairs(title, pairs), key=PAIRS_READ)

    def save_settings(self, settings: Settings) -> None:
        save_splitters(settings, self._splitters())

    def restore_settings(self, settings: Settings) -> None:
        restore_splitters(settings, self._splitters())

    def _splitters(self) -> dict[str, QSplitter]:
        # A new key for the accuracy page: the state saved before it held the table and its chart over the pairs.
        return {"reports/qe/table_and_pairs": self.accuracy_page,
                "reports/qe/disagreement_page": self.disagreement_page.splitter,
                "reports/qe/adversarial_page": self.adversarial_page.splitter}

    # --- internals -----------------------------------------------------------------------------------
    def _fill_rows(self, categories: list[str]) -> None:
        current = self.rows.currentData()
        self.rows.blockSignals(True)
        self.rows.clear()
        self.rows.addItem("per category", _rows_key("category", None))
        self.rows.addItem("per phenomenon", _rows_key("phenomenon", None))
        for category in categories:
            self.rows.addItem(f"phenomena of {category}", _rows_key("phenomenon", category))
        index = self.rows.findData(current) if current is not None else 0
        self.rows.setCurrentIndex(max(index, 0))
        self.rows.blockSignals(False)

    def _systems_loaded(self, systems: list[QESystemInfo]) -> None:
        self.systems_model.set_systems(systems)
        self.systems_columns.contents_changed()
        self._name_systems_page()
        if systems:
            self.compute()
        else:
            self._failed(TsqeError("no QE system yet: import scores, train one, or store a metric as QE"))
            self.pages.setCurrentIndex(SYSTEMS_PAGE)  # where its buttons are

    def _name_systems_page(self) -> None:
        """The page's tab says how many QE systems the table compares, seen from every other page."""
        total, checked = len(self.systems_model.systems), len(self.systems_model.checked())
        self.pages.setTabText(SYSTEMS_PAGE, f"QE systems ({checked} of {total} compared)" if total else "QE systems")

    def _show(self, data: AccuracyView) -> None:
        self.view_data = data
        self._inputs = data.inputs
        result = data.result
        table = result.to_table()
        self.model.set_table(table)
        self.columns.contents_changed()
        self.notes.setText("  ".join(table.display_notes()))
        self.chart.set_chart(lambda: accuracy_figure(result))
        categories = data.pairs.outputs.categories()
        if [_rows_choice(self.rows.itemData(i))[1] for i in range(2, self.rows.count())] != categories:
            self._fill_rows(categories)
        self.status.setText(f"{result.total.amount:,} pairs of {result.total.items:,} items")
        self.pairs.show_hint()
        self._follow_selection()
        if self.pages.currentIndex() == DISAGREEMENT_PAGE:
            self.compute_disagreement()

    def _follow_selection(self) -> None:
        """The tree's category (and phenomenon) selects its row of the table, when the table has it."""
        selection, data = self._state.selection, self.view_data
        if selection.category is None or data is None:
            return
        for row, accuracy_row in enumerate(data.result.rows):
            if accuracy_row.category == selection.category and (
                    data.result.by == "category" or selection.phenomenon in (None, accuracy_row.phenomenon)):
                self.view.setCurrentIndex(self.model.index(row, 0))
                self.view.scrollTo(self.model.index(row, 0))
                return

    def _failed(self, error: Exception) -> bool:
        if not isinstance(error, TsqeError):
            return False
        self.view_data = None
        self.model.set_table(None)
        self.chart.set_chart(None)
        self.notes.setText("")
        self.status.setText(str(error))
        self.disagreement_page.clear(str(error))
        return True

    def _page_changed(self, index: int) -> None:
        if index == STABILITY_PAGE and self.stability is None:
            self.compute_stability()
        elif index == DISAGREEMENT_PAGE:
            self.compute_disagreement()
        elif index == ADVERSARIAL_PAGE:
            self.adversarial_page.refresh()

    def _cell_clicked(self, index: QModelIndex) -> None:
        self.show_pairs(index.row(), index.column())

    def concerns(self, changes: Changes) -> bool:
        return changes.qe_systems or changes.label_state

    def _forget(self) -> None:
        self.view_data = None
        self._inputs = None
        self.stability = None

    def _clear_shown(self) -> None:
        self.model.set_table(None)
        self.chart.set_chart(None)
        self.notes.setText("")
        self.status.setText("")
        self.pairs.show_hint()
        self.stability_model.set_table(None)
        self.stability_notes.setText("")
        self.stability_status.setText("")
        self.adversarial_page.reset()


