"""The item's history beside the editor: who changed what when, and what it was before and after."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from suite.editing import HistoryRecord

ModelIndex = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
WHEN, WHO, WHAT, CHANGE = range(4)
_HEADERS = ("When", "Who", "What", "Before → after")


def _fields(values: dict[str, Any] | None) -> str:
    if values is None:
        return "—"
    return ", ".join(f"{key}={value!r}" if not isinstance(value, str) else f"{key}: {value}"
                     for key, value in values.items())


def change_text(record: HistoryRecord) -> str:
    """Only the fields that differ, so a change of one pattern reads as that pattern before and after."""
    before, after = record.before or {}, record.after or {}
    if record.before is not None and record.after is not None:
        keys = [key for key in dict.fromkeys([*before, *after]) if before.get(key) != after.get(key)]
        before, after = {k: before.get(k) for k in keys}, {k: after.get(k) for k in keys}
        return f"{_fields(before)} → {_fields(after)}"
    return _fields(record.after) if record.before is None else f"{_fields(record.before)} → —"


class HistoryModel(QAbstractTableModel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._records: list[HistoryRecord] = []

    def set_records(self, records: list[HistoryRecord]) -> None:
        self.beginResetModel()
        self._records = list(records)
        self.endResetModel()

    def rowCount(self, parent: ModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._records)

    def columnCount(self, parent: ModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(_HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _HEADERS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._records):
            return None
        record = self._records[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            what = f"{record.action} {record.entity.replace('_', ' ')}"
            return (record.at.astimezone().strftime("%d %b %H:%M"), record.author, what,
                    change_text(record))[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return (f"{record.at.astimezone():%Y-%m-%d %H:%M:%S} {record.author}: {record.action} "
                    f"{record.entity} {record.entity_id or ''}\nbefore: {_fields(record.before)}\n"
                    f"after: {_fields(record.after)}")
        return None

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


class HistoryPane(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = HistoryModel(self)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().hide()
        self.view.setWordWrap(True)
        header = self.view.horizontalHeader()
        for column in (WHEN, WHO, WHAT):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(CHANGE, QHeaderView.ResizeMode.Stretch)
        self.empty = QLabel("no edits yet", self)
        self.empty.setStyleSheet("color: #666")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(QLabel("<b>History</b>"))
        layout.addWidget(self.view, 1)
        layout.addWidget(self.empty)

    def show_records(self, records: list[HistoryRecord]) -> None:
        self.model.set_records(records)
        self.view.resizeRowsToContents()
        self.empty.setVisible(not records)
