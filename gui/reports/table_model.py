"""A Qt model over the core's ``suite.tables.Table``: the screen shows exactly the table it exports.

Cells are formatted as the display formats render them (fractions as percentages with one decimal, the
interval in brackets, marks such as † appended) and bold where the table says so; fraction cells are shaded
on a light ramp so that strong and weak rows stand out without making the text hard to read. Summary rows
(Total, weighed) follow the body in italics. Flag columns, which display formats fold into marks, are hidden.
"""
from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QAbstractTableModel, Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView

from gui.colours import POSITIVE
from gui.row_table_model import RowColumn, RowListModel
from suite.tables import Cell, Column, Table

RAW_ROLE = Qt.ItemDataRole.UserRole + 1
"""The cell's value as the core computed it (a fraction in [0, 1], a count, a name), for tests and copying."""


def ramp(fraction: float | None) -> QColor | None:
    """White at 0 to a pale tint of the pass colour at 1: dark text stays readable on every shade."""
    if fraction is None or math.isnan(fraction):
        return None
    strength = 0.45 * min(max(fraction, 0.0), 1.0)
    tint = QColor(POSITIVE)
    return QColor(round(255 + (tint.red() - 255) * strength), round(255 + (tint.green() - 255) * strength),
                  round(255 + (tint.blue() - 255) * strength))


def interval_text(cell: Cell) -> str:
    """A fraction cell's interval, " [58.1, 66.4]", or nothing."""
    if cell.ci is None or any(map(_missing, cell.ci)):
        return ""
    return f" [{100 * cell.ci[0]:.1f}, {100 * cell.ci[1]:.1f}]"


def cell_text(cell: Cell, column: Column, *, interval: bool = True) -> str:
    """As the display formats render the cell; without its ``interval`` for a screen that shows it as a tooltip."""
    value = cell.value
    kind = cell.kind or column.kind
    if kind == "fraction":
        if _missing(value):
            text = "–"
        else:
            text = f"{100 * float(value):.1f}"  # type: ignore[arg-type]
            if interval:
                text += interval_text(cell)
    elif kind == "number":
        text = "–" if _missing(value) else f"{float(value):.{column.decimals}f}"  # type: ignore[arg-type]
    elif kind == "count":
        text = "" if _missing(value) else f"{int(value):,}"  # type: ignore[arg-type]
    else:
        text = "" if value is None else str(value)
    return text + cell.mark


class TableModel(RowListModel[list[Cell]]):
    """The table's body, then its footer; one column per column of the table that is not a flag."""

    def __init__(self, parent: Any = None, *, intervals_in_tooltip: bool = False) -> None:
        """``intervals_in_tooltip``: a fraction's interval is its tooltip rather than part of its text, so that a
        table of several systems fits 1,280 px without scrolling sideways (the export keeps them)."""
        super().__init__((), parent)
        self._intervals_in_tooltip = intervals_in_tooltip
        self._table: Table | None = None
        self._columns: list[int] = []

    @property
    def table(self) -> Table | None:
        return self._table

    def set_table(self, table: Table | None) -> None:
        self._table = table
        self._columns = [] if table is None else [j for j, c in enumerate(table.columns) if c.kind != "flag"]
        if table is None:
            self.set_rows([], ())
            return
        self.set_rows(table.body + table.footer, [RowColumn(table.columns[j].name, numeric=table.columns[j].kind
                                                            != "text") for j in self._columns])

    def is_footer(self, row: int) -> bool:
        return self._table is not None and row >= len(self._table.body)

    def cell(self, row: list[Cell], number: int, column: int, role: int) -> Any:
        assert self._table is not None  # there are rows
        j = self._columns[column]
        cell, spec = row[j], self._table.columns[j]
        if role == Qt.ItemDataRole.DisplayRole:
            return cell_text(cell, spec, interval=not self._intervals_in_tooltip)
        if role == RAW_ROLE:
            return cell.value
        if role == Qt.ItemDataRole.FontRole:
            if cell.bold or self.is_footer(number):
                font = QFont()
                font.setBold(cell.bold)
                font.setItalic(self.is_footer(number) and spec.kind == "text")
                return font
            return None
        if role == Qt.ItemDataRole.BackgroundRole and (cell.kind or spec.kind) == "fraction" and spec.shaded \
                and not _missing(cell.value):
            return ramp(float(cell.value))  # type: ignore[arg-type]
        if role == Qt.ItemDataRole.ForegroundRole and spec.kind == "fraction":
            return QColor("#1a1a1a")
        if role == Qt.ItemDataRole.TextAlignmentRole:  # numbers are right-aligned by their column
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            tips = [f"interval{interval_text(cell)}"] if self._intervals_in_tooltip and interval_text(cell) else []
            if cell.bold and self._table.bold_note:
                tips.append(f"bold: {self._table.bold_note}")
            return "\n".join(tips) or None
        return None


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def report_view(model: QAbstractTableModel, *, whole_rows: bool = False) -> QTableView:
    """A read-only, compact table view, the same on every report screen."""
    view = QTableView()
    view.setModel(model)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    if whole_rows:
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.setWordWrap(False)
    view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a long phenomenon keeps its start and its end
    return view
