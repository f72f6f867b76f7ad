"""The Review tab's "Disagreements" page: double reviews whose two decisions differ, for an adjudicator.

Each row names both decisions and who made them; the detail panel shows the output as the queue's does (rules,
known translations, history). P / F adjudicate: the output's manual label becomes the adjudicator's, its history
names both decisions, and the row leaves the list (unless adjudicated ones are shown). An adjudication is a step of
the window's undo stack: undoing it puts the first decision back and opens the disagreement again.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QLabel, QTableView, QWidget

from gui.colours import LABEL_COLOURS
from gui.operations import Operations
from gui.operations import review as review_ops
from gui.review.detail import DetailPanel
from gui.review.page_layout import lay_out_page
from gui.row_table_model import RowColumn, RowCursor, RowListModel, row_view
from gui.state import AppState
from store.domain import Label
from suite.assist.double_review import ReviewDisagreement, disagreements
from suite.changes import Changes
from suite.reading.browse import OutputRow, output_rows
from suite.tables import NO_CATEGORY

_COLUMNS = (RowColumn("item"), RowColumn("first decision"), RowColumn("second decision"), RowColumn("output"),
            RowColumn("category"), RowColumn("adjudicated"))
"""The two decisions beside the item: what an adjudicator compares, in view on a 1280-pixel screen."""
_DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)


class DisagreementsModel(RowListModel[ReviewDisagreement]):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(_COLUMNS, parent)

    def cell(self, row: ReviewDisagreement, number: int, column: int, role: int) -> Any:
        labels = (None, row.first_label, row.second_label, None, None, row.adjudicated_label)
        if role == _FOREGROUND and labels[column]:
            return QColor(LABEL_COLOURS.get(labels[column] or "", "#000000"))
        if role not in (_DISPLAY, _TOOLTIP):
            return None
        return (row.external_id or "(removed item)", f"{row.first_label} by {row.first_reviewer}",
                f"{row.second_label} by {row.second_reviewer}", row.text, row.category or NO_CATEGORY,
                f"{row.adjudicated_label} by {row.adjudicated_by}" if row.adjudicated_by else "")[column]


class AdjudicationPage(QWidget):
    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._ops = ops
        self.model = DisagreementsModel(self)
        self.summary = QLabel(self)
        self.show_all = QCheckBox("show adjudicated ones too", self)
        self.show_all.toggled.connect(lambda _: self.reload())
        self.table: QTableView = row_view(self.model, self)
        self.row_cursor = RowCursor(self.table, self.model)
        self.detail = DetailPanel(state, ops, self, key="review-disagreement-detail")
        lay_out_page(self, self.table, self.detail, (80, 120, 120, 380, 110, 130), self.summary, self.show_all)
        self.table.selectionModel().currentRowChanged.connect(self._current_changed)
        self._follow: int | None = None

    def activate(self) -> None:
        self.reload()

    def reload(self) -> None:
        db, suite = self._state.db, self._state.suite_name
        if db is None or suite is None:
            self.model.set_rows([])
            return
        everything = self.show_all.isChecked()
        self._ops.read(lambda task: disagreements(db, suite_name=suite, open_only=not everything), self._arrived,
                       key="review-disagreements")

    def _arrived(self, rows: list[ReviewDisagreement]) -> None:
        current = self.current()
        self.model.set_rows(rows)
        open_ones = sum(row.adjudicated_by is None for row in rows)
        self.summary.setText(f"{open_ones:,} disagreement{'s' if open_ones != 1 else ''} to adjudicate. P / F "
                             "decide the output's label; both decisions stay in its history.")
        wanted = self._follow if self._follow is not None else current.assignment_id if current else None
        self._follow = None
        numbers = [i for i, row in enumerate(rows) if row.assignment_id == wanted]
        if rows:
            self.row_cursor.set_current(numbers[0] if numbers else 0)
        else:
            self.detail.show_row(None)

    def changed(self, changes: Changes) -> None:
        if changes.assignments or changes.reviews or changes.taxonomy:
            self.reload()

    def current(self) -> ReviewDisagreement | None:
        return self.row_cursor.current()

    def step(self, step: int) -> None:
        self.row_cursor.step(step)

    def adjudicate(self, label: str) -> None:
        chosen = self.current()
        if chosen is None or chosen.output_id is None or self._state.db is None:
            return
        if chosen.adjudicated_by is not None:
            self._ops.message.emit(f"adjudicated already by {chosen.adjudicated_by}: change the output's label in "
                                   "the queue")
            return
        rows = self.model.rows()
        following = next((row for row in rows[rows.index(chosen) + 1:] if row.adjudicated_by is None), None)
        self._follow = following.assignment_id if following is not None else None
        review_ops.adjudicate(self._state, self._ops, chosen, Label(label)).run(self._ops)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        chosen = self.current()
        db = self._state.db
        if chosen is None or chosen.output_id is None or db is None:
            self.detail.show_row(None)
            return
        output_id = chosen.output_id
        self._ops.read(lambda task: output_rows(db, [output_id]), self._show, key="review-disagreement-row")

    def _show(self, rows: list[OutputRow]) -> None:
        self.detail.show_row(rows[0] if rows else None)
