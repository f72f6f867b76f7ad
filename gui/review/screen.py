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

from functools import partial

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QPoint,
    Qt,
    QTimer,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QHBoxLayout,
    QMenu,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gui.operations import Operations
from gui.review.adjudication import AdjudicationPage
from gui.review.assignments import AssignmentsPage
from gui.review.column_fit import FittedColumns, at_least, header_width
from gui.review.columns import COLUMN, COLUMNS
from gui.review.decisions import QueueDecisions
from gui.review.detail import DetailPanel
from gui.review.filter_bar import QueueFilterBar
from gui.review.model import ReviewModel
from gui.review.reviewer import ask_reviewer
from gui.review.scroll_bar import paint_groove_once
from gui.review.table import ReviewTable
from gui.review.unlabelled import ReviewUnlabelledNotice
from gui.settings import Settings
from gui.splitters import restore_splitters, save_splitters
from gui.state import AppState
from suite.assist.neighbours import NeighbourContext, suite_context
from suite.changes import Changes
from suite.reading.browse import OutputFilter, OutputRow, output_rows
from suite.reading.names import system_names

LEARN_DELAY_MS = 2000
"""After decisions or rule edits, suggestions are learned anew once the reviewer pauses this long."""
PAGES = (("queue", "Queue"), ("assignments", "My assignments"), ("disagreements", "Disagreements"))


class ReviewScreen(QueueFilterBar, QueueDecisions, QWidget):
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
                                                  at_least(column.width, max(column.least, header_width(header, i)))
                                                  for i, column in enumerate(COLUMNS)])
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
        self._queue_only = (self.group_box, self.scope_chip, self.count_label)
        for widget in self._queue_only:
            modes.addWidget(widget)
        self.page_buttons.idClicked.connect(lambda number: self.show_page(PAGES[number][0]))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        self.unlabelled_notice = ReviewUnlabelledNotice(state, ops, self)
        layout.addWidget(self.unlabelled_notice)
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
        state.review_requested.connect(self.show_filter)
        state.operation_executed.connect(self._changed)

    def show_filter(self, filter: OutputFilter) -> None:
        """A report cell's outputs (a double-click in Systems, QE accuracy…): in the queue, whichever page was shown
        (Systems' double-click landed on the Disagreements page, issue 28)."""
        if self.page() != "queue":
            self.show_page("queue")
        self.apply_filter(filter)

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
        self.scope_chip.setVisible(name == "queue" and bool(self.scope_chip.words()))  # only with a scope
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

    # --- columns, settings -----------------------------------------------------------------------

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

    def save_settings(self, settings: Settings) -> None:
        settings.set("review/header", self.table.horizontalHeader().saveState())
        save_splitters(settings, self._splitters())

    def restore_settings(self, settings: Settings) -> None:
        header = settings.layout("review/header")
        if header is not None:
            self.table.horizontalHeader().restoreState(header)
            self.columns.adopt_widths()
        restore_splitters(settings, self._splitters())

    def _splitters(self) -> dict[str, QSplitter]:
        return {"review/splitter": self.splitter, "review/assignments_splitter": self.assignments.layout_parts.splitter,
                "review/adjudication_splitter": self.adjudication.layout_parts.splitter}

