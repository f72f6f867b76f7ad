"""The review table: a ``QTableView`` that paints the rows on screen in one Python call per repaint.

Paging through a million outputs, a delegate cost about 33 µs a cell (14,455 cells for 2,000 rows): Qt made a
``QStyleOptionViewItem`` and an index for each cell, asked the model's ``rowCount``/``columnCount`` (Python) to
check every index, and called the delegate's ``paint`` through PySide, which wraps painter, option and index
each time; the delegate's own work (a text already laid out, drawn) was the smaller part. Here the view asks
the model once a row (``ReviewModel.cells``), fills a row's background once, draws each cell's text laid out
once (``QStaticText``) and the grid in one call. What it paints is what Qt's per-cell painting with the former
delegate painted, pixel for pixel: the same rectangles, grid, alternate rows, selection and elided texts.
Everything else (selection, keys, sorting, moving and hiding columns, tooltips) is the ``QTableView``'s.
"""
from __future__ import annotations

from PySide6.QtCore import QLine, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QFontMetricsF, QPainter, QPaintEvent, QPalette, QPen, QStaticText
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem, QTableView, QWidget

from gui.review.delegate import focus_start, paint_spans, shown_from
from gui.review.model import ReviewModel
from suite.engine.rules import Span

_TEXTS_KEPT = 5_000  # texts laid out that are remembered: a few pages' worth
_PADDING = 4  # between a cell's edge and its text, as Qt's item delegates leave it


class ReviewTable(QTableView):
    def __init__(self, model: ReviewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self._model = model
        self._laid_out: dict[tuple[str, bool, int], QStaticText] = {}
        self._starts: dict[tuple[str, int, int, bool, int], int] = {}
        self._bold = QFont(self.font())
        self._bold.setBold(True)
        self._metrics = {False: QFontMetrics(self.font()), True: QFontMetrics(self._bold)}
        # A line's height as ``drawText`` centres it (fractional, so that texts sit where it would put them).
        self._line = {bold: metrics.ascent() + metrics.descent()
                      for bold, metrics in ((False, QFontMetricsF(self.font())), (True, QFontMetricsF(self._bold)))}

    def keyboardSearch(self, search: str) -> None:  # noqa: N802  (Qt's name)
        """Nothing: in Review a letter is a decision (P, F, U…), and a letter that reached the table because its
        shortcut did not fire (no active window after a dialog, 2026-12-03) moved the cursor to the next item
        starting with it ("p": pun-01), away from the rows the reviewer meant, without a word."""

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802  (Qt's name)
        model = self._model
        area = event.rect()
        first = self.rowAt(area.top())
        if first < 0 or self.horizontalHeader().count() == 0:
            return
        last = self.rowAt(area.bottom())
        last = model.rowCount() - 1 if last < 0 else last
        columns = self._columns(area)
        if not columns:
            return
        palette = self.palette()
        grid_pen = QPen(QColor.fromRgba(self.style().styleHint(QStyle.StyleHint.SH_Table_GridLineColor,
                                                                 QStyleOptionViewItem(), self) & 0xFFFFFFFF))
        highlight, alternate = palette.highlight(), palette.alternateBase()
        text_colour = palette.color(QPalette.ColorRole.Text)
        selected_colour = palette.color(QPalette.ColorRole.HighlightedText)
        alternating = self.alternatingRowColors()
        selected_rows = self._selected_rows()
        left, right = columns[0][1], columns[-1][1] + columns[-1][2] - 1
        painter = QPainter(self.viewport())
        lines = []
        for row in range(first, last + 1):
            top, height = self.rowViewportPosition(row), self.rowHeight(row)
            selected = any(start <= row <= end for start, end in selected_rows)
            if selected:
                painter.fillRect(QRect(left, top, right - left, height - 1), highlight)
            elif alternating and row & 1:
                painter.fillRect(QRect(left, top, right - left, height - 1), alternate)
            lines.append(QLine(area.left(), top + height - 1, area.right(), top + height - 1))
            cells = model.cells(row)
            if cells is None:
                continue
            for logical, x, width in columns:
                cell = cells[logical]
                if not cell.text:
                    continue
                bold = cell.bold
                inner = width - 1 - 2 * _PADDING
                start = 0
                if cell.spans:
                    start = self._focus(cell.text, cell.spans, bold, inner)
                    paint_spans(painter, self._metrics[bold], QRect(x + _PADDING, top, inner, height - 1), cell.text,
                                cell.spans, start)
                painter.setPen(selected_colour if selected else cell.colour or text_colour)
                where = QPointF(x + _PADDING, top + (height - 1 - self._line[bold]) / 2)
                if bold:
                    painter.setFont(self._bold)
                painter.drawStaticText(where, self._text_of(shown_from(cell.text, start), bold, inner))
                if bold:
                    painter.setFont(self.font())
        if self.showGrid():
            bottom = self.rowViewportPosition(last) + self.rowHeight(last) - 1
            lines.extend(QLine(x + width - 1, area.top(), x + width - 1, bottom) for _, x, width in columns)
            painter.setPen(grid_pen)
            painter.drawLines(lines)
        painter.end()

    def _columns(self, area: QRect) -> list[tuple[int, int, int]]:
        """The shown columns meeting ``area``, left to right: (logical index, x in the viewport, width)."""
        header = self.horizontalHeader()
        first = header.visualIndexAt(area.left())
        last = header.visualIndexAt(area.right())
        last = header.count() - 1 if last < 0 else last
        shown = []
        for visual in range(max(first, 0), last + 1):
            logical = header.logicalIndex(visual)
            if not header.isSectionHidden(logical):
                shown.append((logical, header.sectionViewportPosition(logical), header.sectionSize(logical)))
        return shown

    def _selected_rows(self) -> list[tuple[int, int]]:
        """The selection as row ranges: a few ranges however many rows, asked once a repaint."""
        selection = self.selectionModel().selection()
        return [(ranged.top(), ranged.bottom()) for ranged in (selection.at(i) for i in range(selection.count()))]

    def _focus(self, text: str, spans: list[Span], bold: bool, width: int) -> int:
        """``focus_start`` of an output cell, remembered like its laid-out text: a repaint measures nothing again."""
        first = min(spans)
        key = (text, first.start, first.end, bold, width)
        start = self._starts.get(key)
        if start is None:
            if len(self._starts) >= _TEXTS_KEPT:
                self._starts.clear()
            start = self._starts[key] = focus_start(text, spans, width, self._metrics[bold].horizontalAdvance)
        return start

    def _text_of(self, text: str, bold: bool, width: int) -> QStaticText:
        """The text elided to the width (unchanged when it fits), laid out once."""
        key = (text, bold, width)
        laid_out = self._laid_out.get(key)
        if laid_out is None:
            if len(self._laid_out) >= _TEXTS_KEPT:
                self._laid_out.clear()
            laid_out = QStaticText(self._metrics[bold].elidedText(text, Qt.TextElideMode.ElideRight, width))
            laid_out.setTextFormat(Qt.TextFormat.PlainText)
            laid_out.prepare(font=self._bold if bold else self.font())
            self._laid_out[key] = laid_out
        return laid_out
