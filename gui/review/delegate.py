"""Paints outputs with where their item's rules match: positive spans in the pass colour, negative in fail
(the review table's output column, painted by ``gui.review.table``, and the output column of the editor's
preview, by ``SpanDelegate``).

A tint alone is lost on a selected row and a colour alone on a colour-blind reader, so each span is tinted
and underlined; the tooltip names the rules.

A long output is cut where the words that matter are: when its first match would fall past the cell's right edge,
the text is shown from a few words before it, after an "…" (``focus_start``), and cut at the right as any text. Cut
at the right only, outputs read "…you get a ba…" with the match on "bank" out of sight (issue 16). The whole text is
the cell's tooltip, and in Review the detail panel beside the table.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from gui.colours import NEGATIVE, POSITIVE
from gui.review.columns import DISPLAY, SPANS_ROLE
from suite.engine.preview import PreviewSpan
from suite.engine.rules import Span


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
_WORD = re.compile(r"(?<!\S)\S")  # where a word starts


ELLIPSIS = "…"
CONTEXT = 0.4
"""At most this share of the cell goes to the words before a match that had to be brought into view."""


def focus_start(text: str, spans: Sequence[Span | PreviewSpan], width: int, advance: Callable[[str], int]) -> int:
    """Where to start showing ``text`` in ``width`` pixels so that its first match is in view: 0 when it is anyway
    (the text fits, or the match ends before the right edge), else the start of a word before the match, as far
    back as leaves the whole match in view and takes at most ``CONTEXT`` of the width. ``advance`` measures a
    string in pixels (the cell's font)."""
    if not spans or advance(text) <= width:
        return 0
    first = min(spans, key=lambda span: span.start)
    if advance(text[:first.end] + ELLIPSIS) <= width:  # in view, with room for the "…" cutting the rest
        return 0
    budget = min(width * CONTEXT, width - advance(text[first.start:first.end]) - 2 * advance(ELLIPSIS))
    start = first.start
    for word in reversed([m.start() for m in _WORD.finditer(text, 0, first.start)]):
        if advance(text[word:first.start]) > budget:
            break
        start = word
    return start


def shown_from(text: str, start: int) -> str:
    """The text as drawn from ``start``: behind an ellipsis unless it starts at its beginning."""
    return text if start <= 0 else ELLIPSIS + text[start:]


def paint_spans(painter: QPainter, metrics: QFontMetrics, inner: QRect, text: str,
                spans: Sequence[Span | PreviewSpan], start: int = 0) -> None:
    """Tints and underlines each span of ``text`` drawn left-aligned in ``inner`` (clipped to it), the text shown
    from ``start`` (``shown_from``)."""
    baseline = inner.top() + (inner.height() + metrics.ascent() - metrics.descent()) // 2
    shown = shown_from(text, start)
    hidden = 0 if start <= 0 else len(ELLIPSIS)  # where the text shown begins, after the ellipsis
    shift = 0 if start <= 0 else start - len(ELLIPSIS)
    for span in spans:
        begin, end = max(span.start - shift, hidden), span.end - shift
        if end <= begin:
            continue
        left = inner.left() + metrics.horizontalAdvance(shown[:begin])
        if left > inner.right():
            continue
        width = min(metrics.horizontalAdvance(shown[begin:end]), inner.right() - left)
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
        start = focus_start(text, spans or [], inner.width(), metrics.horizontalAdvance)
        paint_spans(painter, metrics, inner, text, spans or [], start)
        painter.setPen(palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text))
        painter.drawText(inner, _ALIGN, metrics.elidedText(shown_from(text, start), Qt.TextElideMode.ElideRight,
                                                           inner.width()))
