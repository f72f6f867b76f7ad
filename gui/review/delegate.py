"""Paints outputs with where their item's rules match: positive spans in the pass colour, negative in fail
(every cell of the review table, and the output column of the editor's preview).

A tint alone is lost on a selected row and a colour alone on a colour-blind reader, so each span is tinted
and underlined; the tooltip names the rules.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import QAbstractItemView, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from gui.colours import NEGATIVE, POSITIVE
from gui.review.model import CELL_ROLE, DISPLAY, SPANS_ROLE, Cell
from suite.preview import PreviewSpan
from suite.rules import Span


def _tint(colour: str) -> QColor:
    tint = QColor(colour)
    tint.setAlpha(70)
    return tint


_PENS = {"positive": QPen(QColor(POSITIVE), 2), "negative": QPen(QColor(NEGATIVE), 2)}
_TINTS = {"positive": _tint(POSITIVE), "negative": _tint(NEGATIVE)}
_ALIGN = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
_SELECTED = QStyle.StateFlag.State_Selected
_ALTERNATE = QStyleOptionViewItem.ViewItemFeature.Alternate
_NO_PARENT = QModelIndex()
_FITTED_KEPT = 20_000  # texts fitted to a width that are remembered (ids, labels and sources repeat down a page)


def paint_spans(painter: QPainter, metrics: QFontMetrics, inner: QRect, text: str,
                spans: Sequence[Span | PreviewSpan]) -> None:
    """Tints and underlines each span of ``text`` drawn left-aligned in ``inner`` (clipped to it)."""
    baseline = inner.top() + (inner.height() + metrics.ascent() - metrics.descent()) // 2
    for span in spans:
        left = inner.left() + metrics.horizontalAdvance(text[:span.start])
        if left > inner.right():
            continue
        width = min(metrics.horizontalAdvance(text[span.start:span.end]), inner.right() - left)
        polarity = "positive" if span.polarity == "positive" else "negative"
        painter.fillRect(QRect(left, inner.top() + 2, width, inner.height() - 4), _TINTS[polarity])
        painter.setPen(_PENS[polarity])
        painter.drawLine(left, baseline + 2, left + width, baseline + 2)


class SpanDelegate(QStyledItemDelegate):
    """Paints an output cell from its display text and ``SPANS_ROLE`` (for tables other than the review
    table, whose cells ``CellDelegate`` paints)."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
              ) -> None:
        spans: Sequence[Span | PreviewSpan] | None = index.data(SPANS_ROLE)
        text: str = index.data(DISPLAY) or ""
        rect: QRect = option.rect
        palette = option.palette
        selected = bool(option.state & _SELECTED)
        if selected:
            painter.fillRect(rect, palette.highlight())
        elif option.features & _ALTERNATE:
            painter.fillRect(rect, palette.alternateBase())
        metrics = option.fontMetrics
        inner = rect.adjusted(4, 0, -4, 0)
        paint_spans(painter, metrics, inner, text, spans or [])
        painter.setPen(palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text))
        painter.drawText(inner, _ALIGN, metrics.elidedText(text, Qt.TextElideMode.ElideRight, inner.width()))


class CellDelegate(QStyledItemDelegate):
    """Paints the whole cell itself from one ``CELL_ROLE`` value: the style's generic item painting asks the
    model for seven roles a cell (each a call into Python) and lays the text out in full. Measured per page:
    fonts, colours, selection and alternation read through ``option`` cost more than drawing (each flag test
    builds Python enum objects), so they come from the view, and a text's fitting to its column is
    remembered, since item ids, labels and sources repeat down a page."""

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self._selection = view.selectionModel
        self._alternating = view.alternatingRowColors()
        self._fitted: dict[tuple[str, bool, int], str] = {}
        palette = view.palette()
        self._text = palette.color(QPalette.ColorRole.Text)
        self._selected_text = palette.color(QPalette.ColorRole.HighlightedText)
        self._highlight = palette.highlight()
        self._alternate = palette.alternateBase()
        self._font = view.font()
        self._bold = QFont(self._font)
        self._bold.setBold(True)
        self._metrics = QFontMetrics(self._font)
        self._bold_metrics = QFontMetrics(self._bold)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
              ) -> None:
        rect: QRect = option.rect
        row = index.row()
        selected = self._selection().isRowSelected(row, _NO_PARENT)
        if selected:
            painter.fillRect(rect, self._highlight)
        elif self._alternating and row & 1:
            painter.fillRect(rect, self._alternate)
        cell: Cell | None = index.data(CELL_ROLE)
        if cell is None:
            return
        text = cell.text
        metrics = self._bold_metrics if cell.bold else self._metrics
        inner = rect.adjusted(4, 0, -4, 0)
        if cell.spans:
            paint_spans(painter, metrics, inner, text, cell.spans)
        painter.setPen(self._selected_text if selected else cell.colour or self._text)
        if cell.bold:
            painter.setFont(self._bold)
            painter.drawText(inner, _ALIGN, self._fit(text, True, inner.width()))
            painter.setFont(self._font)
        else:
            painter.drawText(inner, _ALIGN, self._fit(text, False, inner.width()))

    def _fit(self, text: str, bold: bool, width: int) -> str:
        """The text elided to the width (unchanged when it fits)."""
        key = (text, bold, width)
        fitted = self._fitted.get(key)
        if fitted is None:
            if len(self._fitted) >= _FITTED_KEPT:
                self._fitted.clear()
            metrics = self._bold_metrics if bold else self._metrics
            fitted = self._fitted[key] = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
        return fitted
