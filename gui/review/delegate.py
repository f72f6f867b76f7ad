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


def span_colour(span: Span) -> QColor:
    return QColor(POSITIVE if span.polarity == "positive" else NEGATIVE)


class SpanDelegate(QStyledItemDelegate):
    """Paints the whole cell itself: the style's generic item painting cost more than everything else while
    scrolling a long table."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
              ) -> None:
        spans: list[Span] | None = index.data(SPANS_ROLE)
        text: str = index.data(DISPLAY) or ""
        rect: QRect = option.rect  # type: ignore[attr-defined]
        palette = option.palette  # type: ignore[attr-defined]
        selected = bool(option.state & QStyle.StateFlag.State_Selected)  # type: ignore[attr-defined]
        if selected:
            painter.fillRect(rect, palette.highlight())
        elif option.features & QStyleOptionViewItem.ViewItemFeature.Alternate:  # type: ignore[attr-defined]
            painter.fillRect(rect, palette.alternateBase())
        metrics = option.fontMetrics  # type: ignore[attr-defined]
        inner = rect.adjusted(4, 0, -4, 0)
        painter.save()
        painter.setClipRect(inner)
        baseline = inner.top() + (inner.height() + metrics.ascent() - metrics.descent()) // 2
        for span in spans or []:
            left = inner.left() + metrics.horizontalAdvance(text[:span.start])
            if left > inner.right():
                continue
            width = metrics.horizontalAdvance(text[span.start:span.end])
            colour = span_colour(span)
            tint = QColor(colour)
            tint.setAlpha(70)
            painter.fillRect(QRect(left, inner.top() + 2, width, inner.height() - 4), tint)
            painter.setPen(QPen(colour, 2))
            painter.drawLine(left, baseline + 2, left + width, baseline + 2)
        painter.setPen(palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text))
        elided = metrics.elidedText(text, Qt.TextElideMode.ElideRight, inner.width())
        painter.drawText(inner, _ALIGN, elided)
        painter.restore()


_ALIGN = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
