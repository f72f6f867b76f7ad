"""A table over one list of the editor's draft (one polarity's rules, the known translations, the references).

The model edits that list in place and says so with ``edited``: the draft stays the one place that holds
what the linguist typed, so the preview and the save read exactly what the tables show.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QModelIndex, QObject, Signal

from gui.row_table_model import ROOT, ModelIndex, R, RowColumn, RowTableModel
from suite.editing.item_draft import EditorDraft


class DraftRowModel(RowTableModel[R]):
    edited = Signal()

    def __init__(self, columns: Sequence[RowColumn], rows_of: Callable[[EditorDraft], list[R]],
                 parent: QObject | None = None) -> None:
        super().__init__(columns, parent)
        self._rows_of = rows_of
        self._draft: EditorDraft | None = None

    def set_draft(self, draft: EditorDraft | None) -> None:
        self.beginResetModel()
        self._draft = draft
        self.endResetModel()

    def rows(self) -> list[R]:
        return [] if self._draft is None else self._rows_of(self._draft)

    def append(self, row: R) -> int:
        """Add ``row`` at the end; its row number."""
        assert self._draft is not None, "rows are added to a draft on screen"
        number = self.rowCount()
        self.beginInsertRows(QModelIndex(), number, number)
        self.rows().append(row)
        self.endInsertRows()
        self.edited.emit()
        return number

    def removeRows(self, row: int, count: int, parent: ModelIndex = ROOT) -> bool:
        if parent.isValid() or row < 0 or count < 1 or row + count > self.rowCount():
            return False
        self.beginRemoveRows(QModelIndex(), row, row + count - 1)
        del self.rows()[row:row + count]
        self.endRemoveRows()
        self.edited.emit()
        return True
