"""The Review tab's "My assignments" page: outputs given to the reviewer to decide blind (double reviews of another
reviewer's decisions, and controls, which look the same).

The page shows each output with its item's source and references only: no rule, known translation, other output,
automatic label or decision, any of which could give away the first decision or a control. P / F answer, U takes
an answer back, J / K move; each answer is a step of the window's undo stack. Opening the page takes assignments
when the reviewer holds none open; "Take more" asks for more.
"""
from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QTableView,
    QTextBrowser,
    QWidget,
)

from gui.colours import LABEL_COLOURS
from gui.operations import Operations
from gui.operations import review as review_ops
from gui.review.page_layout import lay_out_page
from gui.row_table_model import RowColumn, RowCursor, RowListModel, row_view
from gui.state import AppState
from store.domain import Label
from suite.assist.double_review import Assignment, BlindItem, blind_item, my_assignments
from suite.changes import Changes
from suite.tables import NO_CATEGORY

TAKE = 20
"""Open assignments a reviewer holds at most: enough for a sitting, few enough that the rest stay for others."""
_COLUMNS = (RowColumn("item"), RowColumn("category"), RowColumn("source"), RowColumn("output"),
            RowColumn("your answer"))
_DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)


class AssignmentsModel(RowListModel[Assignment]):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(_COLUMNS, parent)

    def cell(self, row: Assignment, number: int, column: int, role: int) -> Any:
        text = (row.external_id or "(removed item)", row.category or NO_CATEGORY, row.source or "", row.text,
                row.label or "")[column]
        if role in (_DISPLAY, _TOOLTIP):
            return text or None
        if role == _FOREGROUND and column == 4 and row.label:
            return QColor(LABEL_COLOURS.get(row.label, "#000000"))
        return None


def blind_html(item: BlindItem, assignment: Assignment) -> str:
    section = '<h4 style="margin:8px 0 2px 0">{}</h4>'
    parts = [f"<p><b>{html.escape(item.external_id)}</b> · {html.escape(item.category or '')} › "
             f"{html.escape(item.phenomenon or '')}</p>",
             section.format("Source"), f"<p>{html.escape(item.source)}</p>",
             section.format("Output"), f"<p>{html.escape(assignment.text)}</p>"]
    if item.references:
        parts.append(section.format("References"))
        parts += [f"<p>{html.escape(reference)}</p>" for reference in item.references]
    parts.append("<p style='color:#777777'>Decide it as if nobody had: the first decision, the rules and the known "
                 "translations are not shown here.</p>")
    return "".join(parts)


class AssignmentsPage(QWidget):
    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._ops = ops
        self.model = AssignmentsModel(self)
        self.summary = QLabel(self)
        self.take_button = QPushButton("Take more", self)
        self.take_button.setToolTip(f"take open assignments up to {TAKE}")
        self.take_button.clicked.connect(lambda: self.take())
        self.table: QTableView = row_view(self.model, self)
        self.row_cursor = RowCursor(self.table, self.model)
        self.detail = QTextBrowser(self)
        self.detail.setMinimumWidth(220)
        lay_out_page(self, self.table, self.detail, (80, 110, 240, 380, 90), self.summary, self.take_button)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        self._taken_once = False
        self._follow: int | None = None
        """The assignment to put the cursor on when the rows come back (the one after the last answered)."""

    def activate(self) -> None:
        """Shown: read the reviewer's assignments, and take some the first time if none is open."""
        self.reload(take_if_none=not self._taken_once)

    def reload(self, *, take_if_none: bool = False) -> None:
        db, suite, reviewer = self._state.db, self._state.suite_name, self._state.reviewer
        if db is None or suite is None or not reviewer:
            self.model.set_rows([])
            self.summary.setText("Name yourself as a reviewer (press P in the queue) to get assignments.")
            return
        self._ops.read(lambda task: my_assignments(db, reviewer, suite_name=suite),
                       lambda rows: self._arrived(rows, take_if_none), key="review-assignments")

    def _arrived(self, rows: list[Assignment], take_if_none: bool) -> None:
        current = self.current()
        self.model.set_rows(rows)
        open_ones = sum(row.label is None for row in rows)
        self.summary.setText(f"Blind second review: {open_ones:,} open · {len(rows) - open_ones:,} answered. "
                             "P / F answer pass or fail; U takes an answer back.")
        if take_if_none and not open_ones:
            self.take()
            return
        wanted = self._follow if self._follow is not None else current.id if current is not None else None
        self._follow = None
        numbers = [i for i, row in enumerate(rows) if row.id == wanted]
        if numbers or rows:
            self.row_cursor.set_current(numbers[0] if numbers else next(
                (i for i, row in enumerate(rows) if row.label is None), 0))
        else:
            self.detail.setHtml("<p style='color:#777777'>No assignment: nothing planned for a second review is "
                                "left for you.</p>")

    def take(self) -> None:
        db, suite, reviewer = self._state.db, self._state.suite_name, self._state.reviewer
        if db is None or suite is None or not reviewer:
            return
        self._taken_once = True
        review_ops.take(db, suite, reviewer, TAKE).run(self._ops)

    def changed(self, changes: Changes) -> None:
        if changes.assignments or changes.taxonomy:
            self.reload()

    def current(self) -> Assignment | None:
        return self.row_cursor.current()

    def step(self, step: int) -> None:
        self.row_cursor.step(step)

    def selected(self) -> list[Assignment]:
        rows = self.model.rows()
        numbers = sorted({index.row() for index in self.table.selectionModel().selectedRows()})
        return [rows[n] for n in numbers if n < len(rows)] or ([a] if (a := self.current()) is not None else [])

    def answer(self, label: str | None) -> None:
        """Answer the selected assignments (None: take the answers back), then go on to the next open one."""
        chosen = [a for a in self.selected() if label is not None or a.label is not None]
        if not chosen or self._state.db is None:
            return
        rows = self.model.rows()
        after = max(rows.index(a) for a in chosen)
        following = next((row for row in rows[after + 1:] if row.label is None and row not in chosen), None)
        self._follow = following.id if following is not None and label is not None else chosen[0].id
        review_ops.answer(self._state, self._ops, chosen, None if label is None else Label(label)).run(self._ops)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        assignment = self.current()
        db = self._state.db
        if assignment is None or db is None or assignment.item_id is None:
            self.detail.setHtml("" if assignment is None else
                                f"<p>{html.escape(assignment.text)}</p><p style='color:#777777'>Its item was "
                                "removed.</p>")
            return
        item_id = assignment.item_id
        self._ops.read(lambda task: blind_item(db, item_id), lambda item: self.detail.setHtml(blind_html(
            item, assignment)), key="review-assignment-detail")
