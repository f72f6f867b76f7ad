"""Paints an output with where its item's rules match: positive spans in the pass colour, negative in fail.

A tint alone is lost on a selected row and a colour alone on a colour-blind reader, so each span is tinted
and underlined; the tooltip names the rules.
"""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

from gui.colours import NEGATIVE, POSITIVE
from gui.review.model import DISPLAY, SPANS_ROLE
from suite.rules import Span


def _tint(colour: str) -> QColor:
    tint = QColor(colour)
    tint.setAlpha(70)
    return tint


_PENS = {"positive": QPen(QColor(POSITIVE), 2), "negative": QPen(QColor(NEGATIVE), 2)}
_TINTS = {"positive": _tint(POSITIVE), "negative": _tint(NEGATIVE)}
_SELECTED = QStyle.StateFlag.State_Selected
_ALTERNATE = QStyleOptionViewItem.ViewItemFeature.Alternate
_ALIGN = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)


class SpanDelegate(QStyledItemDelegate):
    """Paints the whole cell itself: the style's generic item painting cost more than everything else while
    scrolling a long table."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
              ) -> None:
        spans: list[Span] | None = index.data(SPANS_ROLE)
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
        painter.save()
        painter.setClipRect(inner)
        baseline = inner.top() + (inner.height() + metrics.ascent() - metrics.descent()) // 2
        for span in spans or []:
            left = inner.left() + metrics.horizontalAdvance(text[:span.start])
            if left > inner.right():
                continue
            width = metrics.horizontalAdvance(text[span.start:span.end])
            polarity = "positive" if span.polarity == "positive" else "negative"
            painter.fillRect(QRect(left, inner.top() + 2, width, inner.height() - 4), _TINTS[polarity])
            painter.setPen(_PENS[polarity])
            painter.drawLine(left, baseline + 2, left + width, baseline + 2)
        painter.setPen(palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text))
        elided = metrics.elidedText(text, Qt.TextElideMode.ElideRight, inner.width())
        painter.drawText(inner, _ALIGN, elided)
        painter.restore()
