"""The item's history beside the editor: who changed what when, and what it was before and after."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QWidget,
)

from gui.editor.pane import pane_layout
from gui.row_table_model import RowColumn, RowListModel, row_view
from suite.editing import HistoryRecord

WHEN, WHO, WHAT, CHANGE = range(4)
_COLUMNS = tuple(RowColumn(header) for header in ("When", "Who", "What", "Before → after"))


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


class HistoryModel(RowListModel[HistoryRecord]):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(_COLUMNS, parent)

    def cell(self, record: HistoryRecord, number: int, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            what = f"{record.action} {record.entity.replace('_', ' ')}"
            return (record.at.astimezone().strftime("%d %b %H:%M"), record.author, what,
                    change_text(record))[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return (f"{record.at.astimezone():%Y-%m-%d %H:%M:%S} {record.author}: {record.action} "
                    f"{record.entity} {record.entity_id or ''}\nbefore: {_fields(record.before)}\n"
                    f"after: {_fields(record.after)}")
        return None


class HistoryPane(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = HistoryModel(self)
        self.view = row_view(self.model, self, wrap=True)
        header = self.view.horizontalHeader()
        for column in (WHEN, WHO, WHAT):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(CHANGE, QHeaderView.ResizeMode.Stretch)
        self.empty = QLabel("no edits yet", self)
        self.empty.setStyleSheet("color: #666")
        layout = pane_layout(self)
        layout.addWidget(QLabel("<b>History</b>"))
        layout.addWidget(self.view, 1)
        layout.addWidget(self.empty)

    def show_records(self, records: list[HistoryRecord]) -> None:
        self.model.set_rows(records)
        self.view.resizeRowsToContents()
        self.empty.setVisible(not records)
