"""Known translations and references: lists of (kind, text) rows edited in place in the draft."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from gui.colours import LABEL_COLOURS
from gui.editor.draft_rows import DraftRowModel
from gui.editor.pane import pane_layout, tool_button
from gui.row_table_model import SELECTABLE, ModelIndex, RowColumn, fit_to_rows, row_view
from suite.editing.item_draft import EditorDraft, EntryRow, new_entry

KIND, TEXT = range(2)
REFERENCE_KINDS = ("standard", "paraphrase", "alternative")
"""Offered in the reference kind box; any other word typed there is kept as is."""
_COLUMNS = tuple(RowColumn(header, flags=SELECTABLE | Qt.ItemFlag.ItemIsEditable) for header in ("Kind", "Text"))


class EntryModel(DraftRowModel[EntryRow]):
    def __init__(self, kinds: Sequence[str], rows_of: Callable[[EditorDraft], list[EntryRow]],
                 parent: QObject | None = None) -> None:
        super().__init__(_COLUMNS, rows_of, parent)
        self.kinds = tuple(kinds)

    def cell(self, row: EntryRow, number: int, column: int, role: int) -> Any:
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return row.kind if column == KIND else row.text
        if role == Qt.ItemDataRole.ForegroundRole and column == KIND and row.kind in ("good", "bad"):
            return QColor(LABEL_COLOURS["pass" if row.kind == "good" else "fail"])
        if role == Qt.ItemDataRole.ToolTipRole and column == TEXT:
            return row.text or "empty: type a text or remove the row"
        if role == Qt.ItemDataRole.BackgroundRole and column == TEXT and not row.text.strip():
            return QColor("#FDE7E7")
        return None

    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        rows = self.rows()
        row = rows[index.row()]
        text = " ".join(str(value).split()) if index.column() == TEXT else str(value).strip()
        if not text and index.column() == KIND:
            return False
        changed = replace(row, kind=text) if index.column() == KIND else replace(row, text=text)
        if changed != row:
            rows[index.row()] = changed
            self.dataChanged.emit(index, index)
            self.edited.emit()
        return True

    def add(self, kind: str) -> int:
        return self.append(new_entry(kind))


class _KindDelegate(QStyledItemDelegate):
    """A box of the usual kinds; for references any other word may be typed."""

    def __init__(self, kinds: Sequence[str], free: bool, parent: QWidget) -> None:
        super().__init__(parent)
        self._kinds = kinds
        self._free = free

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem,
                     index: ModelIndex) -> QWidget:
        box = QComboBox(parent)
        box.addItems(list(self._kinds))
        box.setEditable(self._free)
        return box

    def setEditorData(self, editor: QWidget, index: ModelIndex) -> None:
        assert isinstance(editor, QComboBox)
        editor.setCurrentText(index.data(Qt.ItemDataRole.EditRole) or "")

    def setModelData(self, editor: QWidget, model: Any, index: ModelIndex) -> None:
        assert isinstance(editor, QComboBox)
        model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)


class EntryList(QWidget):
    def __init__(self, title: str, kinds: Sequence[str], rows_of: Callable[[EditorDraft], list[EntryRow]], *,
                 free_kinds: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = EntryModel(kinds, rows_of, self)
        self.view = row_view(self.model, self, edit_triggers=QAbstractItemView.EditTrigger.DoubleClicked
                             | QAbstractItemView.EditTrigger.EditKeyPressed
                             | QAbstractItemView.EditTrigger.AnyKeyPressed
                             | QAbstractItemView.EditTrigger.SelectedClicked)
        self.view.setItemDelegateForColumn(KIND, _KindDelegate(kinds, free_kinds, self.view))
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(KIND, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(TEXT, QHeaderView.ResizeMode.Stretch)
        fit_to_rows(self.view)
        add = tool_button("+", f"add a {title.lower().rstrip('s')}", self.add_row)
        remove = tool_button("−", "remove the selected row", self.remove_row)
        top = QHBoxLayout()
        top.addWidget(QLabel(f"<b>{title}</b>"))
        top.addStretch(1)
        top.addWidget(add)
        top.addWidget(remove)
        layout = pane_layout(self)
        layout.addLayout(top)
        layout.addWidget(self.view)

    def add_row(self) -> None:
        row = self.model.add(self.model.kinds[0])
        index = self.model.index(row, TEXT)
        self.view.setCurrentIndex(index)
        self.view.edit(index)

    def remove_row(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self.model.removeRows(index.row(), 1)
