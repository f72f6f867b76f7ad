"""The QE accuracy tab: the suite's QE systems, Table 2 of Avramidis et al., its chart, its pairs, stability, and
where the ranking flips between rows.

Everything is the core's: ``qe.evaluation`` (as ``tsqe accuracy``), ``qe.plots.accuracy_figure`` (as ``tsqe
plot accuracy``), ``qe.stability.ranking_stability`` (as ``tsqe stability``), ``qe.disagreement`` (as ``tsqe
accuracy --table disagreement``) and the QE systems' import,
training, prediction and removal. The bootstrap runs in a background read, so 1,000 resamples never freeze
the window; changing an option supersedes a run still going. Training, prediction and scoring are background
writes with progress and Cancel.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex, QSettings, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gui.elided_label import ElidedLabel
from gui.operations import Operations
from gui.operations import qe as qe_ops
from gui.reports.charts import ChartView
from gui.reports.disagreement import DisagreementPage
from gui.reports.export import ExportButton
from gui.reports.pairs_view import PairsView
from gui.reports.qe_dialogs import (
    ImportScoresDialog,
    MetricDialog,
    MetricRequest,
    TrainDialog,
    TrainRequest,
)
from gui.reports.tab import ReportTab, note_label, with_notes
from gui.reports.table_model import TableModel, report_view
from gui.row_table_model import SELECTABLE, ModelIndex, RowColumn, RowListModel
from gui.state import AppState
from qe.accuracy import TIES, TIES_COLUMN, AccuracyResult
from qe.disagreement import row_disagreement
from qe.evaluation import AccuracyOptions, EvaluationInputs, accuracy, read_inputs
from qe.pair_verdicts import PairVerdict, pair_verdicts
from qe.pairs import PairTable
from qe.plots import accuracy_figure
from qe.stability import StabilityResult, ranking_stability
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


class QESystemsModel(RowListModel[QESystemInfo]):
    """The database's QE systems; the check box says whether a system takes part in the table."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__((RowColumn("QE system", flags=SELECTABLE | Qt.ItemFlag.ItemIsUserCheckable),
                          RowColumn("kind"), RowColumn("direction"), RowColumn("scores", numeric=True)), parent)
        self._unchecked: set[str] = set()

    @property
    def systems(self) -> list[QESystemInfo]:
        return self.rows()

    def set_systems(self, systems: list[QESystemInfo]) -> None:
        self.set_rows(sorted(systems, key=lambda s: s.id))  # creation order, as the CLI's default columns

    def checked(self) -> list[str]:
        return [s.name for s in self.systems if s.name not in self._unchecked]

    def set_checked(self, names: list[str]) -> None:
        self._unchecked = {s.name for s in self.systems if s.name not in names}
        if self.systems:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.systems) - 1, 0))

    def cell(self, row: QESystemInfo, number: int, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return (row.name, row.kind, row.direction, f"{row.scores:,}")[column]
        if role == Qt.ItemDataRole.CheckStateRole and column == 0:
            return Qt.CheckState.Unchecked if row.name in self._unchecked else Qt.CheckState.Checked
        if role == Qt.ItemDataRole.ToolTipRole:
            return ", ".join(f"{k}: {v}" for k, v in row.meta.items()) or row.kind
        return None

    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.CheckStateRole or index.column() != 0:
            return False
        name = self.systems[index.row()].name
        if Qt.CheckState(value) == Qt.CheckState.Checked:
            self._unchecked.discard(name)
        else:
            self._unchecked.add(name)
        self.dataChanged.emit(index, index)
        return True


def _rows_key(by: str, category: str | None) -> str:
    """A combo box keeps strings faithfully (a tuple comes back as a list): "by:category", "in:CATEGORY"."""
    return f"by:{by}" if category is None else f"in:{category}"


def _rows_choice(key: str) -> tuple[str, str | None]:
    kind, _, value = key.partition(":")
    return (value, None) if kind == "by" else ("phenomenon", value)


SYSTEMS_READ, ACCURACY_READ, STABILITY_READ, PAIRS_READ, DISAGREEMENT_READ = (
    "reports/qe/systems", "reports/qe/accuracy", "reports/qe/stability", "reports/qe/pairs",
    "reports/qe/disagreement")
STABILITY_PAGE, DISAGREEMENT_PAGE = 1, 2


class QETab(ReportTab):
    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(state, ops, (SYSTEMS_READ, ACCURACY_READ, STABILITY_READ, PAIRS_READ, DISAGREEMENT_READ),
                         parent)
        self.view_data: AccuracyView | None = None
        # The pairs and scores the table was last computed from, reused while only the options change; a write
        # that changes labels, outputs or QE scores drops them (``concerns``, ``_forget``).
        self._inputs: EvaluationInputs | None = None
        self.stability: StabilityResult | None = None

        # QE systems and what can be done with them
        self.systems_model = QESystemsModel(self)
        self.systems_view = report_view(self.systems_model, whole_rows=True)
        self.import_button = QPushButton("Import scores…")
        self.train_button = QPushButton("Train…")
        self.predict_button = QPushButton("Predict")
        self.metric_button = QPushButton("Metric as QE…")
        self.remove_button = QPushButton("Remove")
        self.predict_button.setToolTip("Score every output of the suite with the selected trained QE system")
        self.metric_button.setToolTip("Store a reference-based metric (chrF, BLEU, TER) as a QE proxy")
        buttons = QHBoxLayout()
        for button in (self.import_button, self.train_button, self.predict_button, self.metric_button,
                       self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        systems_box = QGroupBox("QE systems (checked ones are compared)")
        systems_layout = QVBoxLayout(systems_box)
        systems_layout.addWidget(self.systems_view)
        systems_layout.addLayout(buttons)

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
        self.model = TableModel(self)
        self.view = report_view(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.clicked.connect(self._cell_clicked)
        self.notes = note_label()
        self.chart = ChartView("the chart appears once the table is computed", ops, "reports/qe/chart")
        self.pairs = PairsView()
        self.table_splitter = QSplitter(Qt.Orientation.Horizontal)
        self.table_splitter.addWidget(with_notes(self.view, self.notes))
        self.table_splitter.addWidget(self.chart)
        self.table_splitter.setSizes([700, 600])
        accuracy_page = QSplitter(Qt.Orientation.Vertical)
        accuracy_page.addWidget(self.table_splitter)
        accuracy_page.addWidget(self.pairs)
        accuracy_page.setStretchFactor(0, 3)
        accuracy_page.setStretchFactor(1, 2)
        self.accuracy_page = accuracy_page

        # stability
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

        # disagreement between rows
        self.disagreement_page = DisagreementPage()

        self.pages = QTabWidget()
        self.pages.addTab(accuracy_page, "Pairwise accuracy")
        self.pages.addTab(stability_page, "Stability")
        self.pages.addTab(self.disagreement_page, "Disagreement")

        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(systems_box)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addLayout(options)
        lower_layout.addWidget(self.pages)
        self.splitter.addWidget(lower)
        self.splitter.setSizes([190, 800])  # room for four QE systems before the list scrolls
        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter)

        self._recompute = QTimer(self)
        self._recompute.setSingleShot(True)
        self._recompute.setInterval(RECOMPUTE_DELAY_MS)
        self._recompute.timeout.connect(self.compute)
        for combo in (self.rows, self.ties):
            combo.currentIndexChanged.connect(self._recompute.start)
        for spin in (self.bootstrap, self.seed):
            spin.valueChanged.connect(self._recompute.start)
        self.systems_model.dataChanged.connect(self._recompute.start)
        self.splits.valueChanged.connect(self.compute_stability)
        self.disagreement_page.count_too_few.toggled.connect(self.compute_disagreement)
        self.pages.currentChanged.connect(self._page_changed)
        self.import_button.clicked.connect(self._import_scores)
        self.train_button.clicked.connect(self._train)
        self.predict_button.clicked.connect(self._predict)
        self.metric_button.clicked.connect(self._metric)
        self.remove_button.clicked.connect(self._remove)
        self.add_menu_actions((("Import QE scores…", self._import_scores), ("Train a QE system…", self._train),
                               ("Store a metric as QE…", self._metric)))

    # --- public: what the window, the export and the tests use ------------------------------------------
    def table(self) -> Table | None:
        return self.model.table

    def document(self) -> str | None:
        return None if self.view_data is None else self.view_data.result.to_json() + "\n"

    def stability_document(self) -> str | None:
        return None if self.stability is None else self.stability.to_json() + "\n"

    def figure(self) -> Figure | None:
        return self.chart.export_figure()

    def stability_table(self) -> Table | None:
        return self.stability_model.table

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

    def save_settings(self, settings: QSettings) -> None:
        settings.setValue("reports/qe/splitter", self.splitter.saveState())
        settings.setValue("reports/qe/table_splitter", self.table_splitter.saveState())
        settings.setValue("reports/qe/accuracy_page", self.accuracy_page.saveState())
        settings.setValue("reports/qe/disagreement_page", self.disagreement_page.splitter.saveState())

    def restore_settings(self, settings: QSettings) -> None:
        for key, splitter in (("splitter", self.splitter), ("table_splitter", self.table_splitter),
                              ("accuracy_page", self.accuracy_page),
                              ("disagreement_page", self.disagreement_page.splitter)):
            value = settings.value(f"reports/qe/{key}")
            if value is not None:
                splitter.restoreState(value)

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
        self.systems_view.resizeColumnsToContents()
        if systems:
            self.compute()
        else:
            self._failed(TsqeError("no QE system yet: import scores, train one, or store a metric as QE"))

    def _show(self, data: AccuracyView) -> None:
        self.view_data = data
        self._inputs = data.inputs
        result = data.result
        table = result.to_table()
        self.model.set_table(table)
        self.view.resizeColumnsToContents()
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

    def _page_changed(self, index: int) -> None:
        if index == STABILITY_PAGE and self.stability is None:
            self.compute_stability()
        elif index == DISAGREEMENT_PAGE:
            self.compute_disagreement()

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

    def _selected_system(self) -> QESystemInfo | None:
        rows = self.systems_view.selectionModel().selectedRows()
        return self.systems_model.systems[rows[0].row()] if rows else None

    # --- writes ----------------------------------------------------------------------------------------
    def _import_scores(self) -> None:
        dialog = ImportScoresDialog(self)
        dialog.accepted.connect(lambda: self.import_scores(**vars(dialog.request())))
        dialog.open()

    def import_scores(self, path: str, name: str, lower_is_better: bool) -> None:
        db, suite = self._state.db, self._state.suite_name
        assert db is not None
        qe_ops.import_scores(db, suite, path, name, lower_is_better).run(self._ops)

    def _train(self) -> None:
        dialog = TrainDialog(self)
        dialog.accepted.connect(lambda: self.train(dialog.request()))
        dialog.open()

    def train(self, request: TrainRequest) -> None:
        """Train in the background; Cancel stops it and nothing is stored (the model is saved last)."""
        db, suite = self._state.db, self._state.suite_name
        assert db is not None
        qe_ops.train(db, suite, request.name, request.kind, list(request.data), request.target, request.folds,
                     request.seed).run(self._ops)

    def _predict(self) -> None:
        system = self._selected_system()
        if system is None:
            self.status.setText("select a trained QE system to predict with")
            return
        self.predict(system.name)

    def predict(self, name: str) -> None:
        db, suite = self._state.db, self._state.suite_name
        assert db is not None
        qe_ops.predict(db, suite, name).run(self._ops)

    def _metric(self) -> None:
        dialog = MetricDialog(self)
        dialog.accepted.connect(lambda: self.metric_as_qe(dialog.request()))
        dialog.open()

    def metric_as_qe(self, request: MetricRequest) -> None:
        db, suite = self._state.db, self._state.suite_name
        assert db is not None
        qe_ops.metric_as_qe(db, suite, request.metric, request.name, request.refs).run(self._ops)

    def _remove(self) -> None:
        system = self._selected_system()
        if system is None:
            self.status.setText("select the QE system to remove")
            return
        box = QMessageBox(QMessageBox.Icon.Question, "tsqe — remove QE system",
                          f"Remove the QE system {system.name!r} and its {system.scores:,} scores?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.accepted.connect(lambda: self.remove(system.name))
        box.open()

    def remove(self, name: str) -> None:
        db = self._state.db
        assert db is not None
        qe_ops.remove(db, name).run(self._ops)
