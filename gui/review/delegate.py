"""Paints an output with where its item's rules match: positive spans in the pass colour, negative in fail.

A tint alone is lost on a selected row and a colour alone on a colour-blind reader, so each span is tinted
and underlined; the tooltip names the rules.
"""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

from gui.colours import NEGATIVE, POSITIVE
from gui.review.model import SPANS_ROLE
from suite.rules import Span


def span_colour(span: Span) -> QColor:
    return QColor(POSITIVE if span.polarity == "positive" else NEGATIVE)


class SpanDelegate(QStyledItemDelegate):
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
              ) -> None:
        spans: list[Span] | None = index.data(SPANS_ROLE)
        text = index.data(Qt.ItemDataRole.DisplayRole) or ""
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        rect: QRect = option.rect.adjusted(4, 0, -4, 0)
        metrics = option.fontMetrics
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.save()
        painter.setClipRect(rect)
        baseline = rect.top() + (rect.height() + metrics.ascent() - metrics.descent()) // 2
        for span in spans or []:
            left = rect.left() + metrics.horizontalAdvance(text[:span.start])
            width = metrics.horizontalAdvance(text[span.start:span.end])
            if left > rect.right():
                continue
            colour = span_colour(span)
            tint = QColor(colour)
            tint.setAlpha(70)
            painter.fillRect(QRect(left, rect.top() + 2, width, rect.height() - 4), tint)
            painter.setPen(QPen(colour, 2))
            painter.drawLine(left, baseline + 2, left + width, baseline + 2)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.setPen(option.palette.color(role))
        elided = metrics.elidedText(text, Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), elided)
        painter.restore()
