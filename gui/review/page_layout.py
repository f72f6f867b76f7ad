"""The layout the Review tab's side pages share (My assignments, Disagreements): in a module of its own so that
neither page imports the other."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QTableView, QVBoxLayout, QWidget


def lay_out_page(page: QWidget, table: QTableView, detail: QWidget, widths: tuple[int, ...], summary: QLabel,
                 control: QWidget) -> None:
    """A page of the Review tab beside the queue: a line saying what is there with one control at its end, and
    the page's table (``widths``) with its detail panel."""
    table.setAlternatingRowColors(True)
    for column, width in enumerate(widths):
        table.setColumnWidth(column, width)
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
