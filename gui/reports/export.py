"""Saving and copying what a report screen shows, through the core's one table layer.

A screen hands over the core ``Table`` (and the matplotlib ``Figure``) it displays; the file written is then
byte for byte what the command line writes for the same options, because both call ``suite.tables`` (and
``suite.figures.save_figure``).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu, QToolButton, QToolTip, QWidget

from gui.dialogs import show_error
from suite.errors import TsqeError
from suite.tables import SUFFIXES, Table, render, suffix_format, write_table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TABLE_FILTERS: dict[str, str] = {
    "csv": "CSV (*.csv)", "tsv": "TSV (*.tsv)", "xlsx": "Excel workbook (*.xlsx)", "md": "Markdown (*.md)",
    "latex": "LaTeX (*.tex)", "html": "HTML page (*.html)", "json": "JSON (*.json)",
}
TABLE_SUFFIXES: dict[str, str] = {"csv": ".csv", "tsv": ".tsv", "xlsx": ".xlsx", "md": ".md", "latex": ".tex",
                                  "html": ".html", "json": ".json"}
CHART_FILTERS: dict[str, str] = {".png": "PNG image (*.png)", ".svg": "SVG drawing (*.svg)",
                                 ".pdf": "PDF document (*.pdf)"}
CLIPBOARD_FORMATS = {"latex": "LaTeX", "md": "Markdown"}


def copy_table(table: Table, fmt: str) -> str:
    """Put the table on the clipboard as LaTeX or Markdown, ready to paste into a paper."""
    text = render(table, fmt)
    QGuiApplication.clipboard().setText(text)
    return text


class ExportButton(QToolButton):
    """One "Export" menu per report: save the table in any format, copy it, save the chart.

    The table and figure are asked for when the user acts, so the menu always exports what is on screen;
    a screen with nothing computed yet answers None and the actions say so instead of writing an empty file.
    """

    def __init__(self, name: str, table: Callable[[], Table | None],
                 figure: Callable[[], Figure | None] | None = None, parent: QWidget | None = None, *,
                 document: Callable[[], str | None] | None = None) -> None:
        super().__init__(parent)
        self._name = name
        self._table = table
        self._figure = figure
        self._document = document
        self.setText("Export")
        self.setToolTip(f"Save or copy the {name}")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self)
        self.save_table_action = menu.addAction("Save table as…", lambda: self._reporting(self._save_table))
        for fmt, label in CLIPBOARD_FORMATS.items():
            menu.addAction(f"Copy as {label}", partial(self._reporting, partial(self._copy, fmt)))
        self.save_chart_action: QAction | None = None
        if figure is not None:
            menu.addSeparator()
            self.save_chart_action = menu.addAction("Save chart as…", lambda: self._reporting(self._save_chart))
        self.setMenu(menu)

    def _reporting(self, action: Callable[[], object]) -> None:
        """A menu action has no caller to raise to: say what went wrong where the user clicked."""
        try:
            action()
        except (TsqeError, OSError, MemoryError) as error:
            show_error(self, f"export of the {self._name}", error)

    def _current_table(self) -> Table:
        table = self._table()
        if table is None:
            raise TsqeError(f"the {self._name} is not computed yet")
        return table

    def _save_table(self) -> None:
        table = self._current_table()
        filters = ";;".join(TABLE_FILTERS.values())
        path, chosen = QFileDialog.getSaveFileName(self, f"Save the {self._name}", _default_name(table), filters)
        if path:
            target, fmt = table_target(path, chosen)
            # what the CLI's --out writes, a result's own JSON document included
            write_table(table, target, fmt, document=self._document() if self._document is not None else None)
            self._tell(f"wrote the {self._name} to {target}")

    def _copy(self, fmt: str) -> None:
        copy_table(self._current_table(), fmt)
        self._tell(f"copied the {self._name} as {CLIPBOARD_FORMATS[fmt]}: paste it where it goes")

    def _tell(self, text: str) -> None:
        """Say what was done where the user looks: in the window's status bar, and beside the button."""
        window = self.window()
        if isinstance(window, QMainWindow):
            window.statusBar().showMessage(text, 8000)
        QToolTip.showText(self.mapToGlobal(QPoint(0, self.height())), text, self)

    def _save_chart(self) -> None:
        from suite.figures import save_figure

        figure = self._figure() if self._figure is not None else None
        if figure is None:
            raise TsqeError(f"the {self._name} has no chart yet")
        path, chosen = QFileDialog.getSaveFileName(self, f"Save the {self._name} chart", "chart.png",
                                                   ";;".join(CHART_FILTERS.values()))
        if path:
            target = Path(path)
            if target.suffix.lower() not in CHART_FILTERS:
                target = target.with_suffix(next(s for s, label in CHART_FILTERS.items() if label == chosen))
            save_figure(figure, target)


def table_target(path: str, chosen_filter: str) -> tuple[Path, str]:
    """The file and format a Save table as… dialog asked for: a suffix typed with the name decides, as for the command
    line's --out (typing table2.tex with the CSV filter selected wrote CSV); without one, the filter chosen does and
    its suffix is added."""
    target = Path(path)
    if target.suffix.lower() in SUFFIXES:
        return target, suffix_format(target)
    fmt = next((f for f, label in TABLE_FILTERS.items() if label == chosen_filter), "csv")
    return target.with_name(target.name + TABLE_SUFFIXES[fmt]), fmt


def _default_name(table: Table) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in table.title.lower()).strip("-") or "table"
