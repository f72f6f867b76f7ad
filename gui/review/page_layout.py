"""The layout the Review tab's side pages share (My assignments, Disagreements): in a module of its own so that
neither page imports the other."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QTableView, QVBoxLayout, QWidget

from gui.review.column_fit import FittedColumns, at_least, header_width


@dataclass(frozen=True)
class PageParts:
    """What the screen keeps of a laid-out page: the splitter (remembered in the settings) and the column fitter."""
    splitter: QSplitter
    columns: FittedColumns


def lay_out_page(page: QWidget, table: QTableView, detail: QWidget, widths: tuple[int | None, ...], summary: QLabel,
                 control: QWidget) -> PageParts:
    """A page of the Review tab beside the queue: a line saying what is there with one control at its end, and
    the page's table (``widths``; None for the output, which takes what the others leave) with its detail panel.
    The columns are fitted to the table as the queue's are: at 1,280 px fixed widths put "your answer" off-screen."""
    table.setAlternatingRowColors(True)
    header = table.horizontalHeader()
    for column, width in enumerate(widths):
        if width is not None:
            table.setColumnWidth(column, width)
    fitted = FittedColumns(table, [None if width is None else at_least(width, header_width(header, column))
                                   for column, width in enumerate(widths)])
    fitted.adopt_widths()
    splitter = QSplitter(Qt.Orientation.Horizontal, page)
    splitter.addWidget(table)
    splitter.addWidget(detail)
    splitter.setStretchFactor(0, 3)
    splitter.setStretchFactor(1, 1)
    bar = QHBoxLayout()
    bar.addWidget(summary, 1)
    bar.addWidget(control)
    layout = QVBoxLayout(page)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addLayout(bar)
    layout.addWidget(splitter, 1)
    return PageParts(splitter, fitted)
