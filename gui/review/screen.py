"""The Review tab: a reviewer's queue of distinct outputs, decided from the keyboard.

P / F / U decide (or clear) the selected rows at once, each decision is saved in the background at once, and
the cursor moves to the next row that has no manual label yet. The filter bar narrows the queue; the tree's
selection and report cells (``state.review_requested``) set it from outside. With "group alike" a row stands for
the outputs of its item that differ only in case, punctuation, quotes or spaces (and got its automatic label), and
a decision decides them all, as one step. Beside each row: its neighbour's suggestion (Enter accepts it) and the
pass/fail pairs a decision would add (sorting by them orders the queue by impact).

Two more pages share the tab and its keys: "My assignments" (blind second reviews and controls, answered with P / F)
and "Disagreements" (double reviews whose decisions differ, adjudicated with P / F).
"""
from __future__ import annotations

import io
from dataclasses import replace
from functools import partial

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QPoint,
    QSettings,
    Qt,
    QTimer,
)
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.elided_label import ElidedLabel
from gui.operations import Operations
from gui.operations import review as review_ops
from gui.review.adjudication import AdjudicationPage
from gui.review.assignments import AssignmentsPage
from gui.review.column_fit import ColumnWidth, FittedColumns
from gui.review.detail import DetailPanel
from gui.review.model import COLUMN, COLUMNS, ReviewModel
from gui.review.scroll_bar import paint_groove_once
from gui.review.table import ReviewTable
from gui.shortcuts import screen_action
from gui.state import AppState, Selection
from store.domain import Label
from suite.assist.neighbours import NeighbourContext, suite_context
from suite.changes import Changes
from suite.editing.api import EditConflict, default_author
from suite.editing.review import decided_by_others
from suite.reading.browse import OutputFilter, OutputRow, output_rows, write_rows_tsv
from suite.reading.names import system_names

LABEL_STATES: tuple[tuple[str, OutputFilter], ...] = (
    ("any label", OutputFilter()),
    ("unknown", OutputFilter(label=Label.UNKNOWN)),
    ("conflict", OutputFilter(label=Label.CONFLICT)),
    ("error", OutputFilter(label=Label.ERROR)),
    ("pass", OutputFilter(label=Label.PASS)),
    ("fail", OutputFilter(label=Label.FAIL)),
    ("reviewed", OutputFilter(reviewed=True)),
    ("not reviewed", OutputFilter(reviewed=False)),
    ("manual differs from automatic", OutputFilter(disagree=True)),
    ("empty, placeholder or untranslated", OutputFilter(degenerate=True)),
)
ANY = {"category": "any category", "phenomenon": "any phenomenon", "system": "any system"}
"""Each chooser's first entry, no filter: it names what the chooser filters, so the bar needs no labels beside
them (with them it was 1,135 px wide at least, wider than the window's share of a laptop screen)."""
TEXT_DEBOUNCE_MS = 300
LEARN_DELAY_MS = 2000
"""After decisions or rule edits, suggestions are learned anew once the reviewer pauses this long."""
SETTINGS_REVIEWER = "review/reviewer"
SETTINGS_GROUPED = "review/grouped"
PAGES = (("queue", "Queue"), ("assignments", "My assignments"), ("disagreements", "Disagreements"))


def ask_reviewer(parent: QWidget, state: AppState) -> str | None:
    """The reviewer's name, asked once and remembered: every manual label carries it."""
    if state.reviewer:
        return state.reviewer
    settings = QSettings()
    remembered = str(settings.value(SETTINGS_REVIEWER, "") or "") or default_author()
    name, ok = QInputDialog.getText(parent, "tsqe — reviewer", "Your name, stored with every decision:",
                                    QLineEdit.EchoMode.Normal, remembered)
    if not ok or not name.strip():
        return None
    state.reviewer = name.strip()
    settings.setValue(SETTINGS_REVIEWER, state.reviewer)
    return state.reviewer


def replaces_others(parent: QWidget, rows: list[OutputRow], reviewer: str, label: str | None, *,
                    removing: bool = False) -> bool:
    """Whether the reviewer means to take over (or, ``removing``, remove) decisions other reviewers made (True when
    there are none): a decision is never made another reviewer's, nor removed, unasked. ``label`` is the one it
    gets; None for a comment, which keeps each decision's label and makes it the commenter's."""
    others = decided_by_others(rows, reviewer)
    if not others:
        return True
    if removing:
        verb = "Remove it" if len(others) == 1 else "Remove their decisions"
        action = f"{verb}, so that the automatic label applies again?"
    elif label:
        action = f"Replace {'it' if len(rows) == 1 else 'their decisions'} with your {label}?"
    else:
        action = f"Take {'it' if len(rows) == 1 else 'them'} over with your comment?"
    if len(rows) == 1:
        row = rows[0]
        said = f" — “{row.comment}”" if row.comment else ""
        question = f"{row.reviewer} decided {row.manual_label}{said}. {action}"
    else:
        names = ", ".join(sorted({r.reviewer or "" for r in others}))
        question = f"{len(others)} of the {len(rows)} outputs were decided by another reviewer ({names}). {action}"
    answer = QMessageBox.question(parent, "tsqe — another reviewer's decision",
                                  question + "\n\nTheir decision stays in the item's history.",
                                  QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


class ReviewScreen(QWidget):
    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._ops = ops
        self.model = ReviewModel(state, ops, self)
        self._scope = OutputFilter()  # what the bar cannot show: an item, chosen items, an automatic label
        self._follow_cursor_to: int | None = None  # output id to put the cursor on once the ids are in
        self._build_bar()
        self.table = ReviewTable(self.model, self)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setSortingEnabled(True)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.verticalHeader().hide()
        paint_groove_once(self.table.verticalScrollBar())
        header = self.table.horizontalHeader()
        header.setSectionsMovable(True)
        header.setSortIndicator(COLUMN["item"], Qt.SortOrder.AscendingOrder)
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._header_menu)
        for i, column in enumerate(COLUMNS):
            header.resizeSection(i, column.width)
        for key in ("category", "phenomenon", "decided_by", "reviewer", "reviewed_at", "comment"):
            header.hideSection(COLUMN[key])  # the manual column has the initials, the detail panel the rest
        # The output takes what the other columns leave, but keeps a share of the table on a small screen.
        self.columns = FittedColumns(self.table, [None if column.key == "output" else
                                                  ColumnWidth(column.width, column.least) for column in COLUMNS])
        self.columns.adopt_widths()
        self.detail = DetailPanel(state, ops, self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([1000, 300])
        queue = QWidget(self)
        queue_layout = QVBoxLayout(queue)
        queue_layout.setContentsMargins(0, 0, 0, 0)
        queue_layout.addLayout(self._bar)
        queue_layout.addWidget(self.splitter, 1)
        self.assignments = AssignmentsPage(state, ops, self)
        self.adjudication = AdjudicationPage(state, ops, self)
        self.pages = QStackedWidget(self)
        for page in (queue, self.assignments, self.adjudication):
            self.pages.addWidget(page)
        self.page_buttons = QButtonGroup(self)
        modes = QHBoxLayout()
        for number, (_, title) in enumerate(PAGES):
            button = QToolButton(self)
            button.setText(title)
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setChecked(number == 0)
            self.page_buttons.addButton(button, number)
            modes.addWidget(button)
        modes.addStretch(1)
        # The queue's own switch and counts stand on the pages' line: the filter bar is full on a 1280-pixel screen.
        self._queue_only = (self.group_box, self.scope_label, self.count_label)
        for widget in self._queue_only:
            modes.addWidget(widget)
        self.page_buttons.idClicked.connect(lambda number: self.show_page(PAGES[number][0]))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addLayout(modes)
        layout.addWidget(self.pages, 1)
        self._learn_timer = QTimer(self)
        self._learn_timer.setSingleShot(True)
        self._learn_timer.setInterval(LEARN_DELAY_MS)
        self._learn_timer.timeout.connect(self.learn)
        self._actions = self._make_actions()
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        self.table.verticalScrollBar().valueChanged.connect(lambda _: self.model.prefetch(*self._visible_rows()))
        self.model.loaded.connect(self._ids_loaded)
        self.model.rows_arrived.connect(self._rows_arrived)
        state.suite_changed.connect(self._suite_changed)
        state.tree_loaded.connect(self._fill_categories)
        state.selection_changed.connect(self._selection_changed)
        state.review_requested.connect(self.apply_filter)
        state.operation_executed.connect(self._changed)

    # --- the filter bar ---------------------------------------------------------------------------
    def _build_bar(self) -> None:
        self.label_box = QComboBox(self)
        for name, _ in LABEL_STATES:
            self.label_box.addItem(name)
        self.label_box.setToolTip("which outputs to show, by label state")
        self.category_box = QComboBox(self)
        self.phenomenon_box = QComboBox(self)
        self.system_box = QComboBox(self)
        for key, box in (("category", self.category_box), ("phenomenon", self.phenomenon_box),
                         ("system", self.system_box)):
            box.addItem(ANY[key])
            box.setToolTip(f"only the outputs of one {key}")
        for box in (self.label_box, self.category_box, self.phenomenon_box, self.system_box):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(9)  # the list that opens shows whole names
        self.text_box = QLineEdit(self)
        self.text_box.setPlaceholderText("output contains…")
        self.text_box.setClearButtonEnabled(True)
        self.text_box.setMinimumWidth(110)
        self.group_box = QCheckBox("group alike", self)
        self.group_box.setToolTip("show the outputs of an item that differ only in case, punctuation, quotes or "
                                  "spaces, and got the same automatic label, as one row: a decision decides them "
                                  "all")
        self.group_box.setChecked(str(QSettings().value(SETTINGS_GROUPED, "true")).lower() != "false")
        self.group_box.toggled.connect(self._grouping_toggled)
        self.scope_label = ElidedLabel("", self)
        self.count_label = QLabel(self)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(TEXT_DEBOUNCE_MS)
        self._debounce.timeout.connect(self.requery)
        self.text_box.textChanged.connect(self._debounce.start)
        self.label_box.currentIndexChanged.connect(lambda _: self.requery())
        self.category_box.currentIndexChanged.connect(self._category_chosen)
        self.phenomenon_box.currentIndexChanged.connect(lambda _: self.requery())
        self.system_box.currentIndexChanged.connect(lambda _: self.requery())
        self._bar = QHBoxLayout()
        for widget in (self.label_box, self.category_box, self.phenomenon_box, self.system_box):
            self._bar.addWidget(widget, 1)
        self._bar.addWidget(self.text_box, 2)
        self._quiet = False  # set while the bar is filled from outside, so one change queries once

    def current_filter(self) -> OutputFilter:
        def chosen(box: QComboBox) -> str | None:
            return None if box.currentIndex() <= 0 else box.currentText()

        label = LABEL_STATES[max(self.label_box.currentIndex(), 0)][1]
        return replace(self._scope, label=label.label, reviewed=label.reviewed, disagree=label.disagree,
                       degenerate=label.degenerate,
                       category=chosen(self.category_box), phenomenon=chosen(self.phenomenon_box),
                       system=chosen(self.system_box), contains=self.text_box.text().strip() or None,
                       grouped=self.group_box.isChecked())

    def _grouping_toggled(self, grouped: bool) -> None:
        QSettings().setValue(SETTINGS_GROUPED, "true" if grouped else "false")
        self.requery()

    def requery(self, *, again: bool = False) -> None:
        if self._quiet:
            return
        self._debounce.stop()
        self._show_scope()
        self.model.query(self.current_filter(), again=again)

    def apply_filter(self, filter: OutputFilter) -> None:
        """Show exactly this filter (from a report cell or the tree), in the bar where the bar can show it."""
        self._quiet = True
        try:
            state = next((i for i, (_, f) in enumerate(LABEL_STATES)
                          if (f.label, f.reviewed, f.disagree, f.degenerate) ==
                          (filter.label, filter.reviewed, filter.disagree, filter.degenerate)), 0)
            self.label_box.setCurrentIndex(state)
            self._choose(self.category_box, filter.category)
            self._fill_phenomena()
            self._choose(self.phenomenon_box, filter.phenomenon)
            self._choose(self.system_box, filter.system)
            self.text_box.setText(filter.contains or "")
            self._scope = OutputFilter(item=filter.item, item_ids=filter.item_ids, auto_label=filter.auto_label)
        finally:
            self._quiet = False
        self.requery()

    def _choose(self, box: QComboBox, value: str | None) -> None:
        if value is not None and box.findText(value) < 0:
            box.addItem(value)
        box.setCurrentIndex(0 if value is None else box.findText(value))

    def _show_scope(self) -> None:
        scope = self._scope
        parts = [f"item {scope.item}"] if scope.item else []
        if scope.item_ids:
            parts.append(f"{len(scope.item_ids)} chosen item{'s' if len(scope.item_ids) > 1 else ''}")
        if scope.auto_label:
            parts.append(f"automatic {scope.auto_label}")
        self.scope_label.setText(" · ".join(parts))

    def _suite_changed(self) -> None:
        db, suite_name = self._state.db, self._state.suite_name
        self._scope = OutputFilter()
        self.apply_filter(OutputFilter())
        if db is not None and suite_name is not None:
            self._ops.read(lambda task: system_names(db, suite_name), self._fill_systems, key="review-systems")
        self.model.context = None
        self.learn()
        if self.pages.currentIndex():
            self.show_page("queue")

    # --- suggestions and pages ----------------------------------------------------------------------
    def learn(self) -> None:
        """Learn (again) which differences keep labels in the suite, in the background; the rows held get their
        suggestions when it is done."""
        db, suite_name = self._state.db, self._state.suite_name
        if db is None or suite_name is None:
            return
        self._ops.read(lambda task: suite_context(db, suite_name, task.raise_if_cancelled), self._learned,
                       key="review-learn")

    def _learned(self, context: NeighbourContext) -> None:
        self.model.learned(context)

    def show_page(self, name: str) -> None:
        """Show the queue, one's assignments or the disagreements."""
        number = next(i for i, (key, _) in enumerate(PAGES) if key == name)
        self.page_buttons.button(number).setChecked(True)
        self.pages.setCurrentIndex(number)
        for widget in self._queue_only:
            widget.setVisible(name == "queue")
        if name == "assignments":
            ask_reviewer(self, self._state)
            self.assignments.activate()
            self.assignments.table.setFocus()
        elif name == "disagreements":
            self.adjudication.activate()
            self.adjudication.table.setFocus()
        else:
            self.table.setFocus()

    def page(self) -> str:
        return PAGES[self.pages.currentIndex()][0]

    def _fill_systems(self, names: list[str]) -> None:
        self._refill(self.system_box, names)

    def _fill_categories(self) -> None:
        tree = self._state.tree
        self._refill(self.category_box, [c.name for c in tree.categories] if tree else [])
        self._fill_phenomena()

    def _fill_phenomena(self) -> None:
        tree = self._state.tree
        category = self.category_box.currentText()
        names = [p.name for c in (tree.categories if tree else []) if c.name == category for p in c.phenomena]
        self._refill(self.phenomenon_box, names)

    def _refill(self, box: QComboBox, names: list[str]) -> None:
        """New choices, keeping the current one (even if it has gone: the table still shows it)."""
        current = box.currentText() if box.currentIndex() > 0 else None
        quiet, self._quiet = self._quiet, True
        try:
            anything = box.itemText(0)
            box.clear()
            box.addItem(anything)
            box.addItems(names)
            self._choose(box, current)
        finally:
            self._quiet = quiet

    def _category_chosen(self) -> None:
        if self._quiet:
            return
        self._quiet = True
        try:
            self._fill_phenomena()
            self.phenomenon_box.setCurrentIndex(0)
        finally:
            self._quiet = False
        self.requery()

    def _selection_changed(self) -> None:
        """The tree narrows the queue to the category, phenomenon or item chosen there."""
        selection = self._state.selection
        current = self.current_filter()
        self.apply_filter(replace(current, category=selection.category, phenomenon=selection.phenomenon,
                                  item=None, item_ids=None if selection.item_id is None else (selection.item_id,)))

    def _changed(self, changes: Changes) -> None:
        """Re-run the query after a change that may add, remove or relabel rows anywhere (an import, Label all, a
        new or moved item); after a change of named outputs or items (a decision, a rule, an undo of either) only
        read those rows again where they are, so the list keeps its rows and order and the row just decided
        stays under the reviewer's eyes. Either way the cursor stays on its output, the reviewer's place."""
        if changes.label_state or changes.items:
            self._learn_timer.start()  # what keeps labels may have changed: learned again once things settle
        if self.page() == "assignments":
            self.assignments.changed(changes)
        elif self.page() == "disagreements":
            self.adjudication.changed(changes)
        if changes.outputs or changes.taxonomy or changes.labels.anywhere or changes.reviews.anywhere:
            if self.table.currentIndex().isValid():
                self._follow_cursor_to = self.model.output_id(self.current_row())
            self.requery(again=True)
        elif changes.reviews or changes.labels or changes.items:
            first, last = self._visible_rows()
            shown = {i for r in range(first, last + 1) if (i := self.model.output_id(r)) is not None}
            decided = {i for i in changes.reviews.ids if self.model.row_of(i) is not None}
            self.model.refresh(sorted(shown | decided))
            if self.detail.row is not None and changes.items.reaches([self.detail.row.item_id]):
                self.detail.reload()  # its rules and known translations, which no row shows

    def shows(self, changes: Changes) -> bool:
        """Whether a change is one of this screen's: decisions on rows of the list (with the known translations a
        Shift+P/F adds), not an edit of rules or of the suite's shape."""
        if changes.assignments and self.page() != "queue":
            return True
        ids = changes.reviews.ids
        return bool(ids) and not (changes.taxonomy or changes.outputs or changes.references) \
            and all(self.model.row_of(i) is not None for i in ids)

    def show_outputs(self, changes: Changes) -> None:
        """Put the cursor on the first of these outputs (an undone decision); one not in the list brings its
        item's outputs into the list first. An undone answer or adjudication shows its page."""
        if changes.assignments:
            if self.page() == "queue":
                self.show_page("disagreements" if changes.reviews else "assignments")
            return
        present = sorted(row for i in changes.reviews.ids if (row := self.model.row_of(i)) is not None)
        if present:
            self.set_current_row(present[0])
            return
        db, ids = self._state.db, sorted(changes.reviews.ids)
        if db is not None and ids:
            self._ops.read(lambda task: output_rows(db, ids), self._show_rows)

    def _show_rows(self, rows: list[OutputRow]) -> None:
        if rows:
            self._follow_cursor_to = rows[0].output_id
            self.apply_filter(OutputFilter(item_ids=tuple(dict.fromkeys(row.item_id for row in rows))))

    def _visible_rows(self) -> tuple[int, int]:
        count = self.model.rowCount()
        if count == 0:
            return 0, -1
        first = max(self.table.rowAt(0), 0)
        last = self.table.rowAt(self.table.viewport().height() - 1)
        return first, count - 1 if last < 0 else last

    def _ids_loaded(self) -> None:
        count, outputs = self.model.rowCount(), self.model.outputs
        self.count_label.setText(f"{count:,} rows · {outputs:,} outputs" if outputs != count
                                 else f"{count:,} output{'s' if count != 1 else ''}")
        header = self.table.horizontalHeader()
        header.blockSignals(True)
        header.setSortIndicator(self.model.sort_column, Qt.SortOrder.DescendingOrder if self.model.descending
                                else Qt.SortOrder.AscendingOrder)
        header.blockSignals(False)
        wanted = self._follow_cursor_to
        self._follow_cursor_to = None
        row = self.model.row_of(wanted) if wanted is not None else None
        if count:
            self.set_current_row(row if row is not None else 0)
        else:
            self.detail.show_row(None)

    def _rows_arrived(self) -> None:
        """The detail follows the current row once it arrives, and once it is read again and has changed (after
        a decision, a reload, an undo)."""
        current = self.table.currentIndex()
        row = self.model.cached(current.row()) if current.isValid() else None
        if current.isValid() and (self.detail.row != row or row is not None
                                  and self.detail.hints != self.model.hints(row.output_id)):
            self._current_changed(current, QModelIndex())

    # --- cursor and detail ------------------------------------------------------------------------
    def set_current_row(self, row: int) -> None:
        index = self.model.index(row, 0)
        self.table.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self.table.scrollTo(index)

    def current_row(self) -> int:
        return self.table.currentIndex().row()

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        row = self.model.cached(current.row()) if current.isValid() else None
        if current.isValid() and row is None:
            self.model.fetch(current.row())  # the detail follows when the row arrives
            return
        self.detail.show_row(row, None if row is None else self.model.hints(row.output_id))

    def selected_rows(self) -> list[OutputRow]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        if not rows and self.table.currentIndex().isValid():
            rows = [self.table.currentIndex().row()]
        found = [self.model.cached(r) for r in rows]
        return [r for r in found if r is not None]

    def _move(self, step: int) -> None:
        if self.page() == "assignments":
            self.assignments.step(step)
            return
        if self.page() == "disagreements":
            self.adjudication.step(step)
            return
        count = self.model.rowCount()
        if count:
            self.set_current_row(min(max(self.current_row() + step, 0), count - 1))

    def _advance(self, decided: set[int]) -> None:
        """To the next row below with no manual label: what a reviewer still has to look at in this queue.

        The queue's filter already says what needs review (unknown, conflict…); skipping rows that filter
        shows would hide work, so only rows a person has decided are skipped.
        """
        start = max((self.model.row_of(i) or 0) for i in decided) if decided else self.current_row()
        for row in range(start + 1, self.model.rowCount()):
            cached = self.model.cached(row)
            if cached is None or (cached.manual_label is None and cached.output_id not in decided):
                self.set_current_row(row)
                return
        self.set_current_row(min(start + 1, self.model.rowCount() - 1))

    # --- decisions --------------------------------------------------------------------------------
    def with_alike(self, rows: list[OutputRow]) -> list[OutputRow]:
        """The rows with every output alike to them (in the grouped queue): what a decision on them decides."""
        found: dict[int, OutputRow] = {}
        for row in rows:
            hints = self.model.hints(row.output_id)
            for member in hints.group.members if hints is not None and hints.group is not None else (row,):
                found.setdefault(member.output_id, member)
        return list(found.values())

    def decide(self, label: str, *, as_known: bool = False) -> None:
        """P / F, and Shift+P / Shift+F (``as_known``): one step of the undo stack either way. On the assignments
        page P / F answer, on the disagreements page they adjudicate."""
        if self.page() == "assignments":
            self.assignments.answer(label)
            return
        if self.page() == "disagreements":
            self.adjudication.adjudicate(label)
            return
        self._decide_rows(self.selected_rows(), label, as_known=as_known)

    def accept_suggestion(self) -> None:
        """Enter: the current row (and the selected rows suggested the same label) take their neighbour's label."""
        if self.page() != "queue" or not self.table.currentIndex().isValid():
            return
        current = self.model.cached(self.current_row())
        hints = None if current is None else self.model.hints(current.output_id)
        label = None if hints is None or hints.neighbour is None else hints.neighbour.label
        if current is None or label is None:
            self._ops.message.emit("no suggestion to accept here: its nearest decided output differs in a way "
                                   "that decided labels elsewhere (see the suggestion column)")
            return
        rows = [row for row in self.selected_rows()
                if (h := self.model.hints(row.output_id)) is not None and h.neighbour is not None
                and h.neighbour.label == label] or [current]
        self._decide_rows(rows, label)

    def _decide_rows(self, chosen: list[OutputRow], label: str, *, as_known: bool = False) -> None:
        rows = self.with_alike(chosen)
        reviewer = ask_reviewer(self, self._state) if rows else None
        if not rows or reviewer is None or self._state.db is None:
            return
        if not replaces_others(self, rows, reviewer, label):
            return
        ids = [r.output_id for r in rows]
        review_ops.decide(self._state, self._ops, rows, Label(label), as_known=as_known).failure(
            lambda error: self._conflict(error, ids)).run(self._ops)
        self._advance(set(ids))

    def clear(self) -> None:
        if self.page() == "assignments":
            self.assignments.answer(None)
            return
        if self.page() != "queue":
            return
        rows = [r for r in self.with_alike(self.selected_rows()) if r.manual_label is not None]
        reviewer = ask_reviewer(self, self._state) if rows else None
        if not rows or reviewer is None or self._state.db is None \
                or not replaces_others(self, rows, reviewer, None, removing=True):
            return
        ids = [r.output_id for r in rows]
        review_ops.clear(self._state, self._ops, rows).failure(lambda error: self._conflict(error, ids)).run(self._ops)

    def comment(self) -> None:
        """A comment on the selected decisions, each keeping its label, stored whole or not at all."""
        rows = self.with_alike(self.selected_rows()) if self.page() == "queue" else []
        if not rows:
            return
        if any(r.manual_label is None for r in rows):
            self._ops.message.emit("a comment goes with a decision: press P or F first")
            return
        reviewer = ask_reviewer(self, self._state)
        if reviewer is None or self._state.db is None or not replaces_others(self, rows, reviewer, None):
            return
        text, ok = QInputDialog.getText(self, "tsqe — comment", "Comment on this decision:",
                                        QLineEdit.EchoMode.Normal, rows[0].comment or "")
        if not ok:
            return
        ids = [r.output_id for r in rows]
        review_ops.comment(self._state, self._ops, rows, text).failure(
            lambda error: self._conflict(error, ids)).run(self._ops)

    def _conflict(self, error: Exception, ids: list[int]) -> bool:
        """Someone else changed the label meanwhile: show theirs rather than overwrite it."""
        if not isinstance(error, EditConflict):
            return False
        box = QMessageBox(QMessageBox.Icon.Information, "tsqe — changed meanwhile",
                          f"{error}\n\nNothing was overwritten. Reload the rows to see the label as it is now?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.button(QMessageBox.StandardButton.Yes).setText("Reload")
        box.accepted.connect(lambda: self.model.refresh(ids))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return True

    def copy_rows(self) -> None:
        """The selected rows to the clipboard as tab-separated values, as ``tsqe outputs --format tsv`` prints them:
        examples to paste into a report or a spreadsheet."""
        rows = self.selected_rows()
        if not rows:
            return
        text = io.StringIO()
        write_rows_tsv(rows, text)
        QGuiApplication.clipboard().setText(text.getvalue())
        self._ops.message.emit(f"copied {len(rows):,} row{'s' if len(rows) != 1 else ''}")

    def edit_rules(self) -> None:
        """Open the current output's item in Item & rules, for a reviewer who sees a wrong automatic label; the
        queue stays as it is (its filter, its row) for when the reviewer comes back."""
        row = self.model.cached(self.current_row()) if self.table.currentIndex().isValid() else None
        if row is not None:
            self._state.edit_item(Selection(row.category, row.phenomenon, row.item_id))

    # --- actions, columns, settings ---------------------------------------------------------------
    def _make_actions(self) -> list[QAction]:
        action = partial(screen_action, self)
        return [
            action("Mark &pass", "P", lambda: self.decide("pass")),
            action("Mark &fail", "F", lambda: self.decide("fail")),
            action("Mark pass and add as known &good translation", "Shift+P",
                   lambda: self.decide("pass", as_known=True)),
            action("Mark fail and add as known &bad translation", "Shift+F",
                   lambda: self.decide("fail", as_known=True)),
            self._accept_action(action("&Accept the suggestion", "Return", self.accept_suggestion)),
            action("Order the queue by &impact", "I", self.order_by_impact),
            action("&Clear manual label", "U", self.clear),
            action("C&omment…", "C", self.comment),
            action("&Edit the item's rules", "E", self.edit_rules),
            action("Cop&y rows", QKeySequence.StandardKey.Copy, self.copy_rows),
            action("&Next output", "J", lambda: self._move(1)),
            action("P&revious output", "K", lambda: self._move(-1)),
        ]

    @staticmethod
    def _accept_action(accept: QAction) -> QAction:
        accept.setShortcuts([QKeySequence("Return"), QKeySequence("Enter")])
        return accept

    def order_by_impact(self) -> None:
        """Undecided outputs of items with outputs of one label only first, the most pairs first: the pairs column's
        order."""
        self.show_page("queue")
        self.table.horizontalHeader().setSortIndicator(COLUMN["pairs"], Qt.SortOrder.AscendingOrder)

    def actions(self) -> list[QAction]:
        return self._actions

    def fill_columns_menu(self, menu: QMenu) -> None:
        """A check box per column (the header's context menu and View → Review columns)."""
        header = self.table.horizontalHeader()
        menu.clear()
        for i, column in enumerate(COLUMNS):
            toggle = menu.addAction(column.title)
            toggle.setCheckable(True)
            toggle.setChecked(not header.isSectionHidden(i))
            toggle.toggled.connect(partial(self._show_column, i))

    def _show_column(self, column: int, shown: bool) -> None:
        self.table.horizontalHeader().setSectionHidden(column, not shown)

    def _header_menu(self, position: QPoint) -> None:
        menu = QMenu(self)
        self.fill_columns_menu(menu)
        menu.exec(self.table.horizontalHeader().mapToGlobal(position))

    def save_settings(self, settings: QSettings) -> None:
        settings.setValue("review/header", self.table.horizontalHeader().saveState())
        settings.setValue("review/splitter", self.splitter.saveState())

    def restore_settings(self, settings: QSettings) -> None:
        header = settings.value("review/header")
        if header is not None:
            self.table.horizontalHeader().restoreState(header)
            self.columns.adopt_widths()
        splitter = settings.value("review/splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)

