"""A Qt table model over a list of rows, one row object per line, with its columns as data.

After Anki's browser table (``aqt.browser.table``): the columns are values that say their header, its
tooltip, how their cells line up and what may be done with them, and the model asks a row only for what a
cell shows. What every such table answers Qt the same way (counting rows and columns, the header, refusing
an index outside the rows, the flags) is written once here; a model says only its columns and its ``cell``.
Every flat table of the window stands on it (the editor's lists, the review side pages, the reports' tables)
but two: the Review table, whose rows are read in blocks as they scroll into view (``gui.review.model``), and
the suite tree, which is a tree (``gui.tree``).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtWidgets import QAbstractItemView, QTableView, QWidget

ModelIndex = QModelIndex | QPersistentModelIndex
ROOT = QModelIndex()
"""The invalid index: Qt's "top level", the parent of every row of a flat table."""
R = TypeVar("R")

SELECTABLE = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_DISPLAY = Qt.ItemDataRole.DisplayRole
_TOOLTIP = Qt.ItemDataRole.ToolTipRole
_ALIGNMENT = Qt.ItemDataRole.TextAlignmentRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


@dataclass(frozen=True)
class RowColumn:
    header: str
    tip: str | None = None
    """The header's tooltip: what the column means where its header is too short to say."""
    flags: Qt.ItemFlag = SELECTABLE
    numeric: bool = False
    """Right-aligned, as counts are."""


class RowTableModel(QAbstractTableModel, Generic[R]):
    """The Qt side of a flat table; a subclass says where its rows are (``rows``) and what a cell shows."""

    root_flags = Qt.ItemFlag.NoItemFlags
    """The flags of the space below the rows (a list that takes drops says so here)."""

    def __init__(self, columns: Sequence[RowColumn], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.columns = tuple(columns)

    def rows(self) -> list[R]:
        raise NotImplementedError

    def cell(self, row: R, number: int, column: int, role: int) -> Any:
        """What ``role`` of the cell in ``column`` shows of ``row`` (row ``number``); None for nothing."""
        raise NotImplementedError

    def row(self, number: int) -> R:
        return self.rows()[number]

    def rowCount(self, parent: ModelIndex = ROOT) -> int:
        return 0 if parent.isValid() else len(self.rows())

    def columnCount(self, parent: ModelIndex = ROOT) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.columns):
            return None
        if role == _DISPLAY:
            return self.columns[section].header
        if role == _TOOLTIP:
            return self.columns[section].tip
        return None

    def data(self, index: ModelIndex, role: int = _DISPLAY) -> Any:
        """Asked for every role of every cell on each repaint (some 750 times for the editor's preview), so the
        index is read once, as a call into Qt costs a third of a microsecond, and ``cell`` gets plain numbers."""
        number, column = index.row(), index.column()
        rows = self.rows()
        if not (0 <= number < len(rows) and 0 <= column < len(self.columns)):
            return None
        if role == _ALIGNMENT and self.columns[column].numeric:
            return _RIGHT
        return self.cell(rows[number], number, column, role)

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        return self.columns[index.column()].flags if index.isValid() else self.root_flags


class RowListModel(RowTableModel[R]):
    """A table of rows it holds itself, replaced as a whole when the screen shows something else."""

    def __init__(self, columns: Sequence[RowColumn], parent: QObject | None = None) -> None:
        super().__init__(columns, parent)
        self._rows: list[R] = []

    def rows(self) -> list[R]:
        return self._rows

    def set_rows(self, rows: Iterable[R], columns: Sequence[RowColumn] | None = None) -> None:
        """``columns`` for a table whose columns come with its rows (one per MT system of a report)."""
        self.beginResetModel()
        self._rows = list(rows)
        if columns is not None:
            self.columns = tuple(columns)
        self.endResetModel()


class RowCursor(Generic[R]):
    """The current row of a view over a ``RowListModel``, for pages worked with the keyboard: which row it is,
    putting it on a row (selected alone, scrolled to) and moving it by a step."""

    def __init__(self, view: QTableView, model: RowListModel[R]) -> None:
        self._view, self._model = view, model

    def current(self) -> R | None:
        index = self._view.currentIndex()
        rows = self._model.rows()
        return rows[index.row()] if index.isValid() and index.row() < len(rows) else None

    def set_current(self, number: int) -> None:
        index = self._model.index(number, 0)
        self._view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        self._view.scrollTo(index)

    def step(self, step: int) -> None:
        count = self._model.rowCount()
        if count:
            self.set_current(min(max(self._view.currentIndex().row() + step, 0), count - 1))


def row_view(model: QAbstractItemModel, parent: QWidget, *, wrap: bool = False,
             edit_triggers: QAbstractItemView.EditTrigger = QAbstractItemView.EditTrigger.NoEditTriggers,
             ) -> QTableView:
    """A view of such a table: whole rows are selected, rows have no numbers, a cell is one line unless ``wrap``."""
    view = QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setEditTriggers(edit_triggers)
    view.verticalHeader().hide()
    view.setWordWrap(wrap)
    return view


def fit_to_rows(view: QTableView) -> None:
    """Keep ``view`` as tall as its rows (one at the least), now and whenever rows come or go, for the short
    lists (an item has one to five rules per polarity) that should show every row without a scroll bar."""
    model = view.model()

    def fit(*_: object) -> None:
        rows = max(1, model.rowCount())
        view.setFixedHeight(view.horizontalHeader().sizeHint().height()
                            + rows * view.verticalHeader().defaultSectionSize() + 2 * view.frameWidth() + 2)

    model.modelReset.connect(fit)
    model.rowsInserted.connect(fit)
    model.rowsRemoved.connect(fit)
    fit()
