"""Known translations and references: lists of (kind, text) rows edited in place in the draft."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from gui.colours import LABEL_COLOURS
from gui.editor.draft import EntryRow, new_entry
from gui.editor.rules import tool_button

ModelIndex = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
KIND, TEXT = range(2)


class EntryModel(QAbstractTableModel):
    """``rows`` is a callable so the model always edits the list of the draft the screen shows."""

    edited = Signal()

    def __init__(self, kinds: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kinds = tuple(kinds)
        self._rows: Callable[[], list[EntryRow]] = list

    def set_rows(self, rows: Callable[[], list[EntryRow]]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def rowCount(self, parent: ModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._rows())

    def columnCount(self, parent: ModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else 2

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return ("Kind", "Text")[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= self.rowCount():
            return None
        row = self._rows()[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return row.kind if index.column() == KIND else row.text
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == KIND and row.kind in ("good", "bad"):
            return QColor(LABEL_COLOURS["pass" if row.kind == "good" else "fail"])
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == TEXT:
            return row.text or "empty: type a text or remove the row"
        if role == Qt.ItemDataRole.BackgroundRole and index.column() == TEXT and not row.text.strip():
            return QColor("#FDE7E7")
        return None

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable

    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        rows = self._rows()
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
        row = self.rowCount()
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows().append(new_entry(kind))
        self.endInsertRows()
        self.edited.emit()
        return row

    def removeRows(self, row: int, count: int, parent: ModelIndex = _ROOT) -> bool:
        if parent.isValid() or row < 0 or count < 1 or row + count > self.rowCount():
            return False
        self.beginRemoveRows(QModelIndex(), row, row + count - 1)
        del self._rows()[row:row + count]
        self.endRemoveRows()
        self.edited.emit()
        return True


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
    def __init__(self, title: str, kinds: Sequence[str], *, free_kinds: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = EntryModel(kinds, self)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setItemDelegateForColumn(KIND, _KindDelegate(kinds, free_kinds, self.view))
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed
                                  | QAbstractItemView.EditTrigger.AnyKeyPressed
                                  | QAbstractItemView.EditTrigger.SelectedClicked)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.setWordWrap(False)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(KIND, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(TEXT, QHeaderView.ResizeMode.Stretch)
        self.model.modelReset.connect(self._fit_height)
        self.model.rowsInserted.connect(self._fit_height)
        self.model.rowsRemoved.connect(self._fit_height)
        add = tool_button("+", f"add a {title.lower().rstrip('s')}", self.add_row)
        remove = tool_button("−", "remove the selected row", self.remove_row)
        top = QHBoxLayout()
        top.addWidget(QLabel(f"<b>{title}</b>"))
        top.addStretch(1)
        top.addWidget(add)
        top.addWidget(remove)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.view)
        self._fit_height()

    def _fit_height(self, *_: object) -> None:
        rows = max(1, self.model.rowCount())
        self.view.setFixedHeight(self.view.horizontalHeader().sizeHint().height()
                                 + rows * self.view.verticalHeader().defaultSectionSize()
                                 + 2 * self.view.frameWidth() + 2)

    def add_row(self) -> None:
        row = self.model.add(self.model.kinds[0])
        index = self.model.index(row, TEXT)
        self.view.setCurrentIndex(index)
        self.view.edit(index)

    def remove_row(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self.model.removeRows(index.row(), 1)
