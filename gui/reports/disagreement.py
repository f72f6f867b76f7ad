"""The QE tab's Disagreement page: where does the ranking of QE systems flip between two rows of the table?

The heat map is the core's table of disagreement numbers (``qe.disagreement.row_disagreement`` of the accuracy
table on screen, as ``tsqe accuracy --table disagreement``) shown as a grid whose cells are shaded by their count
with the figure's colours; rows with too few pairs are grey and hold no numbers. Clicking a cell lists the QE
system pairs that flip between its two rows with both accuracies, intervals and ranks (``flips_table``). A grid of
cells rather than the rendered figure: cells can be clicked and walked with the keyboard, and read at any size;
the Export menu saves the figure ``tsqe accuracy --heat-map`` draws.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from gui.reports.export import ExportButton
from gui.reports.tab import note_label, with_notes
from gui.reports.table_model import TableModel, report_view
from qe.disagreement import RankingDisagreement
from suite.figures import count_colours
from suite.tables import Table

_Index = QModelIndex | QPersistentModelIndex
LEFT_OUT = QColor("#EEEEEE")
NO_VALUE = QBrush(QColor("#C8C8C8"), Qt.BrushStyle.BDiagPattern)


class HeatMapModel(TableModel):
    """The disagreement table with its count cells shaded from white (0) to dark blue (the largest count).

    The columns of a square map are headed by numbers, and the rows are numbered to match (full names in the
    tooltips): headed by category or phenomenon names, a map of 14 categories was three screens wide.
    """

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.disagreement: RankingDisagreement | None = None
        self._top = 1.0

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        d = self.disagreement
        square = d is not None and d.columns is None and orientation == Qt.Orientation.Horizontal and section > 0
        if square and role == Qt.ItemDataRole.DisplayRole:
            return str(section)
        if square and role == Qt.ItemDataRole.ToolTipRole:
            return super().headerData(section, orientation, Qt.ItemDataRole.DisplayRole)
        return super().headerData(section, orientation, role)

    def set_disagreement(self, disagreement: RankingDisagreement | None) -> None:
        self.disagreement = disagreement
        if disagreement is not None:
            counts = disagreement.counts()
            self._top = max(float(np.nanmax(counts)) if not np.isnan(counts).all() else 0.0, 1.0)
        self.set_table(None if disagreement is None else disagreement.to_table())

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        d = self.disagreement
        if d is None or not index.isValid():
            return super().data(index, role)
        row, column = index.row(), index.column() - 1  # the first column names the row
        left_out = row in d.left_out
        if column < 0:
            if role == Qt.ItemDataRole.ForegroundRole and row in d.too_few:
                return QColor("#8A8A8A")
            if role == Qt.ItemDataRole.DisplayRole and d.columns is None:
                return f"{row + 1}  {super().data(index, role)}"
            return super().data(index, role)
        cell = d.cells[row][column]
        if role == Qt.ItemDataRole.BackgroundRole:
            if left_out:
                return LEFT_OUT
            if cell is None:
                return NO_VALUE
            red, green, blue, _ = count_colours()(len(cell) / self._top)
            return QColor.fromRgbF(red, green, blue)
        if role == Qt.ItemDataRole.ForegroundRole and cell is not None:
            return QColor("white") if len(cell) > 0.6 * self._top else QColor("#1a1a1a")
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            other = d.column_labels[column]
            if left_out or (d.columns is None and column in d.left_out):
                return "too few pairs for a conclusion: left out"
            if cell is None:
                return None
            return f"{d.rows[row]} vs {other}: {len(cell)} QE system pair(s) ranked the other way — click to list"
        return super().data(index, role)


class DisagreementPage(QWidget):
    """The heat map above, the flipping pairs of the clicked cell below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.disagreement: RankingDisagreement | None = None
        self.status = QLabel()
        self.status.setStyleSheet("color: #555")
        self.count_too_few = QCheckBox("count rows with too few pairs")
        self.count_too_few.setToolTip("Rows with fewer than 30 pairs or 5 items (†) are left out of the counts: "
                                      "their ranks say little. Count them anyway, to look at a small suite.")
        self.export = ExportButton("QE disagreement table", self.table, self.figure, self, document=self.document)
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Where does the ranking of the QE systems flip between two rows? Click a cell."))
        controls.addStretch(1)
        controls.addWidget(self.count_too_few)
        controls.addWidget(self.status)
        controls.addWidget(self.export)
        self.model = HeatMapModel(self)
        self.view = report_view(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.view.clicked.connect(self._cell_clicked)
        self.view.activated.connect(self._cell_clicked)  # Enter on a cell walked to with the arrow keys
        self.notes = note_label()
        self.flips_model = TableModel(self)
        self.flips_view = report_view(self.flips_model)
        self.flips_notes = note_label()
        self.flips_notes.setText("Click a cell of the heat map to list the QE system pairs that flip between its rows.")
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(with_notes(self.view, self.notes))
        self.splitter.addWidget(with_notes(self.flips_view, self.flips_notes))
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([560, 200])  # a map of 14 categories whole; a flip is two lines below
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.splitter)

    def table(self) -> Table | None:
        return self.model.table

    def figure(self) -> Figure | None:
        return None if self.disagreement is None else self.disagreement.heat_map()

    def document(self) -> str | None:
        return None if self.disagreement is None else self.disagreement.to_json() + "\n"

    def show_disagreement(self, disagreement: RankingDisagreement) -> None:
        self.disagreement = disagreement
        self.model.set_disagreement(disagreement)
        self.view.resizeColumnsToContents()
        table = self.model.table
        self.notes.setText("  ".join(table.display_notes()[:3]) if table is not None else "")
        counted = len(disagreement.rows) - len(disagreement.left_out)
        if counted < 2:
            self.status.setText(f"{len(disagreement.left_out)} of {len(disagreement.rows)} rows have too few pairs "
                                "for a conclusion: nothing to compare unless they are counted")
        else:
            total = sum(len(cell) for i, row in enumerate(disagreement.cells) for j, cell in enumerate(row)
                        if cell is not None and i < j)
            self.status.setText(f"{total:,} flips between {counted} rows")
        self.flips_model.set_table(None)
        self.flips_notes.setText("Click a cell of the heat map to list the QE system pairs that flip between its "
                                 "rows.")

    def clear(self, message: str) -> None:
        self.disagreement = None
        self.model.set_disagreement(None)
        self.flips_model.set_table(None)
        self.notes.setText("")
        self.status.setText(message)

    def show_flips(self, row: int, column: int) -> None:
        d = self.disagreement
        if d is None or column < 0 or d.cells[row][column] is None:
            return
        table = d.flips_table(row, column)
        self.flips_model.set_table(table)
        self.flips_view.resizeColumnsToContents()
        self.flips_notes.setText("  ".join(table.display_notes()))

    def _cell_clicked(self, index: QModelIndex) -> None:
        self.show_flips(index.row(), index.column() - 1)
