"""Paints outputs with where their item's rules match: positive spans in the pass colour, negative in fail
(the review table's output column, painted by ``gui.review.table``, and the output column of the editor's
preview, by ``SpanDelegate``).

A tint alone is lost on a selected row and a colour alone on a colour-blind reader, so each span is tinted
and underlined; the tooltip names the rules.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from gui.colours import NEGATIVE, POSITIVE
from gui.review.model import DISPLAY, SPANS_ROLE
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
_TEXTS_KEPT = 5_000  # texts laid out that are remembered: a few pages' worth
_ROWS_KEPT = 10_000  # rows whose selection is remembered until the selection changes


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
    table, which paints its rows itself: ``gui.review.table``)."""

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
