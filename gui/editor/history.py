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
from suite.editing.api import HistoryRecord
from suite.editing.history import change_text

WHEN, WHO, WHAT, CHANGE = range(4)
_COLUMNS = tuple(RowColumn(header) for header in ("When", "Who", "What", "Before → after"))


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
                    f"{record.entity.replace('_', ' ')} {record.entity_id or ''}\n{change_text(record)}")
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
