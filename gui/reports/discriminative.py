"""The Discriminative tab: which items tell MT systems apart, and which metric agrees with the humans.

Items are ranked by the standard deviation of a segment metric over systems (``filters.scoring.score_outputs``
then ``filters.variance.variance_filter``, as ``tsqe variance``); the slider is the fraction dropped and shows
at once how many items stay, since filtering is cheap once the scores exist. The kept subset is written in the
released VAT layout (``filters.variance.export_selection``). The selected item shows each system's output and
score and, once computed, its reference tokens shaded by difficulty (``filters.metrics.da_bertscore.da_bertscore``).
With human scores imported, the correlation table puts the metrics side by side (``filters.correlation``).
Scoring writes the score and embedding caches, so it runs as a background write with progress and Cancel;
the second run of a metric reads the caches and is immediate.
"""
from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSlider,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from filters.correlation_table import CorrelationTable
from filters.metrics import LABEL, metric_names, metric_spec
from filters.metrics.da_bertscore import DifficultyResult
from filters.scoring import SegmentScores
from filters.variance import VarianceResult, export_selection, variance_filter
from gui.elided_label import ElidedLabel
from gui.operations import Operations
from gui.operations import scores as scores_ops
from gui.reports.correlation_pane import CorrelationPane
from gui.reports.discriminative_item import ItemView, item_html
from gui.reports.export import ExportButton
from gui.reports.tab import ReportTab
from gui.reports.table_model import RAW_ROLE, TableModel, report_view
from gui.reports.vat_properties import VATPropertiesPane
from gui.settings import Settings
from gui.splitters import restore_splitters, save_splitters
from gui.state import AppState
from suite.changes import Changes
from suite.qe_scores import list_qe_systems
from suite.reading.browse import OutputFilter, output_ids, output_rows
from suite.references import KNOWN_GOOD, RefChoice, ReferenceChoices, reference_choices
from suite.tables import Table
from suite.tasks import TaskState

NOTHING_RANKED = "<p style='color:#666'>Rank the items by a metric, then select an item.</p>"
METRICS_READ, FOLLOW_READ, ITEM_READ = (
    "reports/discriminative/metrics", "reports/discriminative/follow", "reports/discriminative/item")


class DiscriminativeTab(CorrelationPane, ReportTab):
    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(state, ops, (METRICS_READ, FOLLOW_READ, ITEM_READ), parent)
        self.scores: SegmentScores | None = None
        self.variance: VarianceResult | None = None
        self.difficulty: DifficultyResult | None = None
        self.correlation: CorrelationTable | None = None
        self.choices: ReferenceChoices | None = None
        self.item: ItemView | None = None
        self._first_look = True  # nothing ranked or correlated for this suite yet: do both once it is shown

        self.metric_choice = QComboBox()
        self.metric_choice.setMinimumContentsLength(14)
        self.metric_choice.setToolTip("Segment metric whose deviation over systems ranks the items")
        self.refs_choice = QComboBox()
        self.refs_choice.setMinimumContentsLength(12)
        self.refs_choice.setToolTip("References the metric compares outputs with: every reference of kind standard "
                                    "(the default), one reference set, or the items' known good translations")
        self.known_good_button = QPushButton("Use known good translations as references")
        self.known_good_button.setToolTip("This suite has no references: compare outputs with the items' known good "
                                          "translations instead")
        self.known_good_button.hide()
        self.score_button = QPushButton("Rank items")
        self.drop = QSlider(Qt.Orientation.Horizontal)
        self.drop.setRange(0, 95)
        self.drop.setSingleStep(5)
        self.drop.setPageStep(10)
        self.drop.setValue(60)
        self.drop.setMinimumWidth(100)
        self.drop.setToolTip("Fraction of items dropped: those whose deviation is at or below this percentile")
        self.kept = ElidedLabel()
        self.vat_button = QPushButton("Save kept items (VAT)…")
        self.vat_button.setToolTip("The kept items' sources and references, line-aligned, and their positions as JSON")
        self.difficulty_button = QPushButton("Token difficulty")
        self.difficulty_button.setToolTip("Difficulty-aware BERTScore over all systems: how hard each reference "
                                          "token is (1 - mean best similarity)")
        self.export = ExportButton("item ranking", self.table, None, self, document=self.document)
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Metric"))
        controls.addWidget(self.metric_choice)
        controls.addWidget(self.score_button)
        controls.addSpacing(12)
        controls.addWidget(QLabel("drop"))
        controls.addWidget(self.drop)
        controls.addWidget(self.kept, 1)
        controls.addWidget(self.difficulty_button)
        controls.addWidget(self.vat_button)
        controls.addWidget(self.export)

        self.model = TableModel(self)
        self.view = report_view(self.model, whole_rows=True)
        # Columns fitted to the rows on screen and 100 more: fitted to 1,000 of DFKI de-en's 2,747 ranked items, the
        # ranking's arrival took 0.15 s of the main thread (0.016 s so); the ranking is read from its top.
        self.view.horizontalHeader().setResizeContentsPrecision(100)
        self.detail = QTextBrowser()
        self.detail.setHtml(NOTHING_RANKED)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.view)
        # what the kept items are like, beside the ranking (the item's page is the default)
        self.properties = VATPropertiesPane(state, ops)
        self.beside = QTabWidget()
        self.beside.addTab(self.detail, "Item")
        self.beside.addTab(self.properties, "What the selection keeps")
        self.splitter.addWidget(self.beside)
        self.splitter.setSizes([360, 1000])  # the ranking is four narrow columns; the item needs the room

        self.correlation_metrics = QListWidget()
        self.correlation_metrics.setFlow(QListWidget.Flow.LeftToRight)
        self.correlation_metrics.setWrapping(True)
        self.correlation_metrics.setResizeMode(QListWidget.ResizeMode.Adjust)  # wrap, never scroll sideways
        self.correlation_metrics.setMaximumHeight(60)
        self.top = QSpinBox()
        self.top.setRange(0, 1000)
        self.top.setSpecialValueText("top K: none")
        self.top.setPrefix("top ")
        self.top.setToolTip("Also correlate over the K systems with the best human scores (0: only all systems)")
        self.correlation_refs = QListWidget()
        self.correlation_refs.setFlow(QListWidget.Flow.LeftToRight)
        self.correlation_refs.setWrapping(True)
        self.correlation_refs.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.correlation_refs.setMaximumHeight(60)
        self.correlation_refs.setToolTip("Reference entries compared side by side: a row per metric and entry")
        self.joined_refs = QLineEdit()
        self.joined_refs.setPlaceholderText("joined: ar+wmt, …")
        self.joined_refs.setToolTip("More entries, comma-separated; sets joined by + use the metric's own "
                                    "multi-reference form")
        self.joined_refs.setMaximumWidth(180)
        self.correlate_button = QPushButton("Correlate")
        self.correlation_status = ElidedLabel()
        self.correlation_status.setStyleSheet("color: #555")
        self.correlation_status.setWordWrap(True)  # "12 rows: 6 metrics × 4 reference entries" wraps, never widens
        self.correlation_status.setMaximumWidth(200)
        self.correlation_export = ExportButton("correlation table", self.correlation_table, None, self)
        self.correlation_model = TableModel(self)
        self.correlation_view = report_view(self.correlation_model, whole_rows=True)
        correlation_controls = QHBoxLayout()
        correlation_controls.addWidget(self.correlation_metrics, 2)
        correlation_controls.addWidget(self.correlation_refs, 1)
        correlation_controls.addWidget(self.joined_refs)
        correlation_controls.addWidget(self.top)
        correlation_controls.addWidget(self.correlate_button)
        correlation_controls.addWidget(self.correlation_status, 1)
        correlation_controls.addWidget(self.correlation_export)
        correlation_box = QGroupBox("Correlation with human scores (system level)")
        correlation_layout = QVBoxLayout(correlation_box)
        correlation_layout.addLayout(correlation_controls)
        correlation_layout.addWidget(self.correlation_view)

        self.outer = QSplitter(Qt.Orientation.Vertical)
        self.outer.addWidget(self.splitter)
        self.outer.addWidget(correlation_box)
        self.outer.setSizes([500, 320])
        self.status = QLabel()
        self.status.setStyleSheet("color: #555")
        self.status.setWordWrap(True)  # a long message takes another line, never a wider window
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        status_row = QHBoxLayout()  # the reference choice sits here: the controls row is as wide as a laptop
        status_row.addWidget(QLabel("References"))
        status_row.addWidget(self.refs_choice)
        status_row.addSpacing(12)
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.known_good_button)
        layout.addLayout(status_row)
        layout.addWidget(self.outer)

        self.score_button.clicked.connect(lambda: self.rank())
        self.known_good_button.clicked.connect(self.use_known_good)
        self.drop.valueChanged.connect(self._refilter)
        self.view.selectionModel().currentRowChanged.connect(self._row_changed)
        self.vat_button.clicked.connect(self._choose_vat_dir)
        self.difficulty_button.clicked.connect(self.compute_difficulty)
        self.correlate_button.clicked.connect(lambda: self.correlate())
        self.add_menu_actions((("Rank items by deviation", lambda: self.rank()),
                               ("Token difficulty (DA-BERTScore)", self.compute_difficulty),
                               ("Correlate metrics with human scores", lambda: self.correlate())))

    # --- public ---------------------------------------------------------------------------------------
    def table(self) -> Table | None:
        return self.model.table

    def document(self) -> str | None:
        if self.variance is None or self.scores is None:
            return None
        return json.dumps(self.variance.to_json(self.scores.metric), ensure_ascii=False) + "\n"

    def refresh(self) -> None:
        """Fill the metric choices (QE systems included) and the correlation metrics."""
        db = self._state.db
        if db is None:
            return
        self._stale = False
        suite = self._state.suite_name
        self._ops.read(lambda task: ([s.name for s in list_qe_systems(db)], reference_choices(db, suite)),
                       lambda found: self._fill_metrics(*found), key=METRICS_READ)

    def rank(self, *, asked: bool = True) -> None:
        """Score the suite with the chosen metric (a background write: it fills the caches), then rank.

        Not ``asked`` (the tab's first look at a suite), a failure is told in the status line only."""
        db, suite = self._state.db, self._state.suite_name
        if db is None:
            return
        metric = self.metric_choice.currentData()
        refs = self._ranking_refs(metric)
        self.known_good_button.hide()
        self.status.setText(f"scoring with {metric}…")
        scores_ops.score(db, suite, metric, refs, quiet=not asked).success(
            self._while_current(db, suite, self._scored)).failure(
            self._failed if asked else self._told).run(self._ops)

    def set_drop(self, fraction: float) -> None:
        self.drop.setValue(round(100 * fraction))

    def select_item(self, item: str) -> None:
        for row in range(self.model.rowCount()):
            if self.model.data(self.model.index(row, 0), RAW_ROLE) == item:
                self.view.setCurrentIndex(self.model.index(row, 0))
                return

    def export_vat(self, directory: Path) -> None:
        db, suite, result, scores = self._state.db, self._state.suite_name, self.variance, self.scores
        if db is None or result is None or scores is None:
            self.status.setText("rank the items first")
            return
        self._ops.read(lambda task: export_selection(db, result, directory, metric=scores.metric, suite_name=suite,
                                                     refs=scores.refs),
                       lambda paths: self.status.setText(f"wrote {len(paths)} files to {directory}"))

    def compute_difficulty(self) -> None:
        db, suite = self._state.db, self._state.suite_name
        if db is None:
            return
        refs = self._ranking_refs("da-bertscore-f")
        scores_ops.difficulty(db, suite, refs).success(self._while_current(db, suite, self._difficulty_done)).failure(
            self._failed).run(self._ops)

    def save_settings(self, settings: Settings) -> None:
        save_splitters(settings, self._splitters())
        settings.set("reports/discriminative/drop", self.drop.value())

    def restore_settings(self, settings: Settings) -> None:
        restore_splitters(settings, self._splitters())
        self.drop.setValue(settings.integer("reports/discriminative/drop", 60, self.drop.minimum(),
                                            self.drop.maximum()))

    def _splitters(self) -> dict[str, QSplitter]:
        return {"reports/discriminative/splitter": self.splitter, "reports/discriminative/outer": self.outer}

    # --- internals ------------------------------------------------------------------------------------
    def _fill_metrics(self, qe_names: list[str], choices: ReferenceChoices) -> None:
        """The metric and reference choices; by default a metric this suite can compute (chrF against its
        references, else the pass/fail label)."""
        self.choices = choices
        self.properties.set_choices(choices)
        current_refs = self.refs_choice.currentData()
        self.refs_choice.clear()
        for entry in choices.entries():
            self.refs_choice.addItem(entry.label, entry)
            self.refs_choice.setItemData(self.refs_choice.count() - 1, entry.describe(), Qt.ItemDataRole.ToolTipRole)
        if current_refs is not None and self.refs_choice.findData(current_refs) >= 0:
            self.refs_choice.setCurrentIndex(self.refs_choice.findData(current_refs))
        has_references = bool(choices.standard_items or choices.sets)
        current = self.metric_choice.currentData()
        self.metric_choice.clear()
        for metric in metric_names(level="segment", qe_systems=qe_names):
            self.metric_choice.addItem(metric, metric)
            self.metric_choice.setItemData(self.metric_choice.count() - 1, metric_spec(metric).summary,
                                           Qt.ItemDataRole.ToolTipRole)
        default = metric_names()[0] if has_references else LABEL
        self.metric_choice.setCurrentIndex(max(self.metric_choice.findData(current or default), 0))
        checked = {self.correlation_metrics.item(i).data(Qt.ItemDataRole.UserRole)
                   for i in range(self.correlation_metrics.count())
                   if self.correlation_metrics.item(i).checkState() == Qt.CheckState.Checked}
        self.correlation_metrics.clear()
        for metric in metric_names(qe_systems=qe_names):
            item = QListWidgetItem(metric)
            item.setData(Qt.ItemDataRole.UserRole, metric)
            spec = metric_spec(metric)
            slow = spec.needs_model  # loads a model on first use (seconds on two cores): unchecked
            on = metric in checked if checked else not slow and (has_references or not spec.needs_references)
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
            item.setToolTip(spec.summary + ("; loads a model the first time (seconds)" if slow else ""))
            self.correlation_metrics.addItem(item)
        checked_refs = set(self.correlation_entries()) if self.correlation_refs.count() else {RefChoice.default()}
        self.correlation_refs.clear()
        for entry in choices.entries():
            item = QListWidgetItem(entry.label)
            item.setData(Qt.ItemDataRole.UserRole, entry)
            item.setToolTip(entry.describe())
            item.setCheckState(Qt.CheckState.Checked if entry in checked_refs else Qt.CheckState.Unchecked)
            self.correlation_refs.addItem(item)
        if self._first_look:  # every screen shows real content: a ranking and correlations, not empty tables
            self._first_look = False
            self.rank(asked=False)
            self.correlate(asked=False)

    def _ranking_refs(self, metric: str) -> RefChoice | None:
        """The chosen references, for a metric that takes them."""
        entry = self.refs_choice.currentData()
        return entry if isinstance(entry, RefChoice) and metric_spec(metric).needs_references else None

    def _scored(self, scores: SegmentScores) -> None:
        self.scores = scores
        self.status.setText(f"{scores.metric}: {scores.signature}")
        self._refilter()

    def _failed(self, error: Exception) -> bool:
        self._tell(error)
        return False  # the dialog too: a failed scoring job is worth a dialog

    def _told(self, error: Exception) -> bool:
        self._tell(error)
        return True

    def _tell(self, error: Exception) -> None:
        """The error in the status line, with the next step's button when it is the core's "no references"
        and the items have known good translations."""
        self.status.setText(str(error))
        offer = (self.choices is not None and self.choices.known_good_items > 0
                 and KNOWN_GOOD in str(error) and self.refs_choice.findData(RefChoice((KNOWN_GOOD,))) >= 0)
        self.known_good_button.setVisible(offer)

    def _refilter(self) -> None:
        if self.scores is None:
            self.kept.setText(f"{self.drop.value()} %")
            return
        current = self.item.item if self.item is not None else None
        result = variance_filter(self.scores, drop=self.drop.value() / 100)
        self.variance = result
        self.model.set_table(result.to_table())
        self.view.resizeColumnsToContents()
        self.kept.setText(f"{self.drop.value()} % → {len(result.kept):,} of {len(result.ranking):,} items kept "
                          f"(std > {result.threshold:.4g})")
        if result.ranking:
            self.properties.set_selection(result.kept, self.scores.refs)
        else:  # nothing ranked (no outputs): no selection to describe
            self.properties.clear()
        if current is not None:
            self.select_item(current)

    def _follow_selection(self) -> None:
        """An item chosen in the tree is selected in the ranking (when it is ranked)."""
        item_id, db, suite = self._state.selection.item_id, self._state.db, self._state.suite_name
        if item_id is None or db is None or self.variance is None:
            return

        def work(task: TaskState) -> str | None:
            ids = output_ids(db, OutputFilter(item_ids=(item_id,)), suite_name=suite)[:1]
            return next((row.external_id for row in output_rows(db, ids)), None)

        self._ops.read(work, lambda external: self.select_item(external) if external else None,
                       key=FOLLOW_READ)

    def _row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        if not current.isValid() or self.scores is None or self.variance is None or self._state.db is None:
            return
        item = self.model.data(self.model.index(current.row(), 0), RAW_ROLE)
        ranked = next(r for r in self.variance.ranking if r.item == item)
        rows = self.scores.of_item(item)
        db = self._state.db
        tokens = None if self.difficulty is None else self.difficulty.token_difficulty.get(item)

        def work(task: TaskState) -> ItemView:
            by_id = {row.output_id: row for row in output_rows(db, sorted({r.output_id for r in rows}))}
            return ItemView(item, ranked.std, ranked.mean, {r.system: r.score for r in rows},
                            {r.system: by_id[r.output_id] for r in rows if r.output_id in by_id}, tokens)

        self._ops.read(work, self._show_item, key=ITEM_READ)

    def _show_item(self, view: ItemView) -> None:
        self.item = view
        self.detail.setHtml(item_html(view))

    def _difficulty_done(self, result: DifficultyResult) -> None:
        self.difficulty = result
        self.status.setText(f"token difficulty over {len(result.systems)} systems ({result.signature})")
        if self.item is not None:
            tokens = result.token_difficulty.get(self.item.item)
            self._show_item(ItemView(self.item.item, self.item.std, self.item.mean, self.item.scores,
                                     self.item.outputs, tokens))

    def _choose_vat_dir(self) -> None:
        directory = QFileDialog.getExistingDirectory(self, "Save the kept items in the VAT layout")
        if directory:
            self.export_vat(Path(directory))

    def concerns(self, changes: Changes) -> bool:
        """Scores compare outputs with references: new outputs, references or items make the ranking stale."""
        return bool(changes.outputs or changes.taxonomy or changes.references)

    def _clear_shown(self) -> None:
        """After a switch the item, its systems and every figure go at once (the detail kept the previous
        database's item and systems, issue 28); the new suite's fill them again."""
        self.detail.setHtml(NOTHING_RANKED)
        for label in (self.status, self.kept, self.correlation_status):
            label.setText("")

    def _forget(self) -> None:
        self.scores = self.variance = self.difficulty = self.correlation = None
        self.item = None
        self._first_look = True
        self.model.set_table(None)
        self.correlation_model.set_table(None)
        self.properties.clear()

    def _changed(self, changes: Changes) -> None:
        """New QE systems are new metrics; a ranking by labels is ranked again; the rest makes it all stale."""
        if changes.qe_systems:
            self.refresh()
        if changes.label_state and self.scores is not None and self.scores.metric == LABEL:
            self.rank(asked=False)
        super()._changed(changes)
