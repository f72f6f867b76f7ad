"""One polarity's rules as an editable list: a pattern field per rule that is always open, an ignore-case box,
how many outputs the rule matches in the preview, and reordering by drag or Alt+Up/Down.

The model edits the screen's ``EditorDraft`` in place and says so with ``edited``; the pattern fields are
persistent editors, so typing never needs a double-click and every keystroke reaches the preview.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

from gui.colours import LABEL_COLOURS
from gui.editor.draft_rows import DraftRowModel
from gui.editor.pane import pane_layout, tool_button
from gui.editor.pattern_edit import PatternEdit, field_height
from gui.row_table_model import SELECTABLE, ModelIndex, RowColumn, fit_to_rows, row_view
from gui.shortcuts import screen_action
from store.domain import Polarity
from suite.editing.item_draft import EditorDraft, RuleRow, new_rule
from suite.engine.rules import pattern_problem

GRIP, PATTERN, IGNORE_CASE, MATCHES = range(4)
_COLUMNS = (RowColumn("", "drag to reorder (or Alt+Up / Alt+Down)", SELECTABLE | Qt.ItemFlag.ItemIsDragEnabled),
            RowColumn("Pattern", "the regular expression", SELECTABLE | Qt.ItemFlag.ItemIsEditable),
            RowColumn("Aa", "ignore upper/lower case", SELECTABLE | Qt.ItemFlag.ItemIsUserCheckable),
            RowColumn("Matches", "outputs of this item the rule matches (preview)", numeric=True))
_MIME = "application/x-tsqe-rule-row"
ProblemRole = Qt.ItemDataRole.UserRole + 1
"""The pattern's ``PatternProblem`` (or None), for the field's underline."""


class RuleModel(DraftRowModel[RuleRow]):
    root_flags = Qt.ItemFlag.ItemIsDropEnabled

    def __init__(self, polarity: str, parent: QObject | None = None) -> None:
        super().__init__(_COLUMNS, lambda draft: draft.rules[polarity], parent)
        self.polarity = polarity
        self._matches: dict[int, int] = {}

    def set_draft(self, draft: EditorDraft | None) -> None:
        self._matches = {}
        super().set_draft(draft)

    def set_matches(self, matches: dict[int, int]) -> None:
        """How many outputs each rule (by row) matches in the preview."""
        self._matches = matches
        if self.rowCount():
            self.dataChanged.emit(self.index(0, MATCHES), self.index(self.rowCount() - 1, MATCHES))

    def cell(self, row: RuleRow, number: int, column: int, role: int) -> Any:
        if column == GRIP and role == Qt.ItemDataRole.DisplayRole:
            return f"⠿ {number + 1}"
        if column == PATTERN:
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
                return row.spec.pattern
            if role == ProblemRole:
                return pattern_problem(row.spec.pattern, row.spec.ignore_case)
            if role == Qt.ItemDataRole.ToolTipRole:
                problem = pattern_problem(row.spec.pattern, row.spec.ignore_case)
                return str(problem) if problem else ("new rule" if row.is_new else
                                                     "changed, not saved" if row.modified else None)
        if column == IGNORE_CASE and role == Qt.ItemDataRole.CheckStateRole:
            return Qt.CheckState.Checked if row.spec.ignore_case else Qt.CheckState.Unchecked
        if column == MATCHES and role == Qt.ItemDataRole.DisplayRole:
            return str(self._matches[number]) if number in self._matches else ""
        if column == GRIP and role == Qt.ItemDataRole.ForegroundRole and (row.is_new or row.modified):
            return QColor(LABEL_COLOURS["conflict"])
        return None

    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or self._draft is None:
            return False
        rows = self.rows()
        row = rows[index.row()]
        if index.column() == PATTERN and role == Qt.ItemDataRole.EditRole:
            if value == row.spec.pattern:
                return True
            rows[index.row()] = replace(row, spec=replace(row.spec, pattern=str(value)))
        elif index.column() == IGNORE_CASE and role == Qt.ItemDataRole.CheckStateRole:
            ignore_case = Qt.CheckState(value) == Qt.CheckState.Checked
            rows[index.row()] = replace(row, spec=replace(row.spec, ignore_case=ignore_case))
        else:
            return False
        self.dataChanged.emit(self.index(index.row(), GRIP), self.index(index.row(), IGNORE_CASE))
        if index.column() == IGNORE_CASE:
            self.dataChanged.emit(self.index(index.row(), PATTERN), self.index(index.row(), PATTERN))
        self.edited.emit()
        return True

    def add(self, pattern: str = "", ignore_case: bool = False) -> int:
        """Append a new rule (empty unless a pattern is given); its row."""
        return self.append(new_rule(Polarity(self.polarity), pattern, ignore_case))

    def remove(self, row: int) -> None:
        self.removeRows(row, 1)

    def moveRows(self, source_parent: ModelIndex, source_row: int, count: int,
                 destination_parent: ModelIndex, destination_child: int) -> bool:
        rows = self.rows()
        if (source_parent.isValid() or destination_parent.isValid() or count < 1 or source_row < 0
                or source_row + count > len(rows) or not 0 <= destination_child <= len(rows)
                or source_row <= destination_child <= source_row + count):
            return False
        self.beginMoveRows(QModelIndex(), source_row, source_row + count - 1, QModelIndex(), destination_child)
        moving = rows[source_row:source_row + count]
        del rows[source_row:source_row + count]
        insert_at = destination_child if destination_child < source_row else destination_child - count
        rows[insert_at:insert_at] = moving
        self.endMoveRows()
        first = min(source_row, insert_at)
        self.dataChanged.emit(self.index(first, GRIP), self.index(self.rowCount() - 1, GRIP))
        self.edited.emit()
        return True

    def move(self, row: int, delta: int) -> int:
        """Move one rule up (-1) or down (+1); its new row."""
        target = row + delta
        if not 0 <= target < self.rowCount() or delta == 0:
            return row
        self.moveRows(QModelIndex(), row, 1, QModelIndex(), target + 1 if delta > 0 else target)
        return target

    # drag and drop within the list: the rows move; nothing is copied or removed by the view
    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [_MIME]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        data = QMimeData()
        rows = sorted({index.row() for index in indexes if index.isValid()})
        data.setData(_MIME, QByteArray(f"{self.polarity}:{rows[0] if rows else -1}".encode()))
        return data

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                     parent: ModelIndex) -> bool:
        """Move the dragged rule and report the drop as not done, so that the view removes nothing."""
        if action != Qt.DropAction.MoveAction or not data.hasFormat(_MIME):
            return False
        polarity, _, source = bytes(data.data(_MIME).data()).decode().partition(":")
        if polarity != self.polarity:
            return False
        target = row if row >= 0 else parent.row() if parent.isValid() else self.rowCount()
        self.moveRows(QModelIndex(), int(source), 1, QModelIndex(), target)
        return False


class _PatternDelegate(QStyledItemDelegate):
    """Opens a ``PatternEdit`` per rule and writes every keystroke back to the model at once."""

    def __init__(self, view: QTableView) -> None:
        super().__init__(view)
        self._view = view

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem,
                     index: ModelIndex) -> QWidget:
        editor = PatternEdit(parent)
        persistent = QPersistentModelIndex(index)
        editor.edited.connect(lambda _text: self.commitData.emit(editor))
        editor.focused.connect(lambda: self._view.setCurrentIndex(self._view.model().index(persistent.row(),
                                                                                           PATTERN)))
        return editor

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Every keystroke is committed already; committing again when a field loses focus would also reach
        the view from the field of a rule just removed, which the view no longer knows."""
        if event.type() == QEvent.Type.FocusOut:
            return False
        return super().eventFilter(watched, event)

    def setEditorData(self, editor: QWidget, index: ModelIndex) -> None:
        assert isinstance(editor, PatternEdit)
        editor.set_text(index.data(Qt.ItemDataRole.EditRole) or "")
        problem = index.data(ProblemRole)
        editor.set_problem(problem is not None, None if problem is None else problem.position)

    def setModelData(self, editor: QWidget, model: Any, index: ModelIndex) -> None:
        assert isinstance(editor, PatternEdit)
        model.setData(index, editor.text(), Qt.ItemDataRole.EditRole)

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem,
                             index: ModelIndex) -> None:
        editor.setGeometry(option.rect)


class RuleList(QWidget):
    """The rules of one polarity with their add / remove / move buttons and the message of a bad pattern."""

    def __init__(self, polarity: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = RuleModel(polarity, self)
        colour = LABEL_COLOURS["pass" if polarity == "positive" else "fail"]
        title = QLabel(f"<b style='color:{colour}'>{polarity.capitalize()} rules</b> "
                       f"<span style='color:#666'>(a match means {'pass' if polarity == 'positive' else 'fail'})"
                       f"</span>")
        self.view = row_view(self.model, self)
        self.view.setItemDelegateForColumn(PATTERN, _PatternDelegate(self.view))
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.view.setDragDropOverwriteMode(False)
        self.view.setDropIndicatorShown(True)
        self.view.setShowGrid(False)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(PATTERN, QHeaderView.ResizeMode.Stretch)
        for column in (GRIP, IGNORE_CASE, MATCHES):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.view.verticalHeader().setDefaultSectionSize(field_height() + 2)
        self.model.modelReset.connect(self._open_editors)
        self.model.rowsInserted.connect(self._open_editors)
        self.model.rowsMoved.connect(self._open_editors)
        fit_to_rows(self.view)

        self.add_button = tool_button("+", f"add a {polarity} rule", self.add_rule)
        self.remove_button = tool_button("−", "remove the selected rule", self.remove_rule)
        self.up_button = tool_button("↑", "move the selected rule up (Alt+Up)", lambda: self.move_rule(-1))
        self.down_button = tool_button("↓", "move the selected rule down (Alt+Down)", lambda: self.move_rule(1))
        self.problem = QLabel(self)
        self.problem.setStyleSheet("color: #B00000")
        self.problem.setWordWrap(True)
        self.problem.hide()

        top = QHBoxLayout()
        top.addWidget(title)
        top.addStretch(1)
        for button in (self.add_button, self.remove_button, self.up_button, self.down_button):
            top.addWidget(button)
        layout = pane_layout(self)
        layout.addLayout(top)
        layout.addWidget(self.view)
        layout.addWidget(self.problem)
        # actions rather than bare shortcuts, so that the Keys dialog (built from the window's actions) lists them
        self.move_actions = [screen_action(self, f"Move the {polarity} rule {direction}", keys,
                                           partial(self.move_rule, delta), only_here=True)
                             for keys, direction, delta in (("Alt+Up", "up", -1), ("Alt+Down", "down", 1))]

    def _open_editors(self, *_: object) -> None:
        for row in range(self.model.rowCount()):
            index = self.model.index(row, PATTERN)
            if not self.view.isPersistentEditorOpen(index):
                self.view.openPersistentEditor(index)

    def editor(self, row: int) -> PatternEdit | None:
        widget = self.view.indexWidget(self.model.index(row, PATTERN))
        return widget if isinstance(widget, PatternEdit) else None

    def current_row(self) -> int:
        index = self.view.currentIndex()
        return index.row() if index.isValid() else -1

    def add_rule(self) -> None:
        row = self.model.add()
        editor = self.editor(row)
        if editor is not None:
            editor.setFocus()

    def add_pattern(self, pattern: str, ignore_case: bool) -> None:
        """Append a new rule with this pattern (a suggestion taken), shown selected."""
        row = self.model.add(pattern, ignore_case)
        self.view.setCurrentIndex(self.model.index(row, PATTERN))

    def remove_rule(self) -> None:
        row = self.current_row()
        if row >= 0:
            self.model.remove(row)

    def move_rule(self, delta: int) -> None:
        row = self.current_row()
        if row < 0:
            return
        target = self.model.move(row, delta)
        self.view.setCurrentIndex(self.model.index(target, PATTERN))
        editor = self.editor(target)
        if editor is not None:
            editor.setFocus()

    def show_problem(self, message: str | None) -> None:
        self.problem.setText(message or "")
        self.problem.setVisible(bool(message))

