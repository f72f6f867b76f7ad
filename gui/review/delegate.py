"""Paints outputs with where their item's rules match: positive spans in the pass colour, negative in fail
(every cell of the review table, and the output column of the editor's preview).

A tint alone is lost on a selected row and a colour alone on a colour-blind reader, so each span is tinted
and underlined; the tooltip names the rules.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QFontMetricsF, QPainter, QPalette, QPen, QStaticText
from PySide6.QtWidgets import QAbstractItemView, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from gui.colours import NEGATIVE, POSITIVE
from gui.review.model import DISPLAY, SPANS_ROLE, ReviewModel
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
    """Paints the review table's cells from ``ReviewModel.cell``, with as few calls between Qt and Python per
    cell as it can: a page is about 250 cells, and each call across costs more than the drawing it asks for.

    Measured on a million outputs: the style's generic item painting asked the model for seven roles a cell
    and laid every text out anew; reading fonts, colours, selection and alternation through ``option`` built
    Python enum objects for each flag test; ``QItemSelectionModel.isRowSelected`` calls back into the model
    three times. So the cell comes from the model as one Python call, whether a row is selected is asked once
    a row until the selection changes, the view already paints the alternate rows' background, empty cells
    draw nothing, and texts are kept laid out (``QStaticText``) fitted to their column, since item ids, labels
    and sources repeat down a page.
    """

    def __init__(self, view: QAbstractItemView, model: ReviewModel) -> None:
        """For ``view`` showing ``model`` with its selection model as it is now."""
        super().__init__(view)
        self._cell = model.cell
        selection = view.selectionModel()
        self._is_row_selected = selection.isRowSelected
        self._selected: dict[int, bool] = {}  # row -> selected, for the rows painted since the selection changed
        selection.selectionChanged.connect(self._selected.clear)
        model.modelReset.connect(self._selected.clear)
        self._laid_out: dict[tuple[str, bool, int], QStaticText] = {}
        palette = view.palette()
        self._text = palette.color(QPalette.ColorRole.Text)
        self._selected_text = palette.color(QPalette.ColorRole.HighlightedText)
        self._highlight = palette.highlight()
        self._font = view.font()
        self._bold = QFont(self._font)
        self._bold.setBold(True)
        self._metrics = QFontMetrics(self._font)
        self._bold_metrics = QFontMetrics(self._bold)
        # A line's height as ``drawText`` centres it (fractional, so that texts sit where it would put them).
        self._line = {bold: metrics.ascent() + metrics.descent()
                      for bold, metrics in ((False, QFontMetricsF(self._font)), (True, QFontMetricsF(self._bold)))}

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
              ) -> None:
        row = index.row()
        selected = self._selected.get(row)
        if selected is None:
            if len(self._selected) >= _ROWS_KEPT:
                self._selected.clear()
            selected = self._selected[row] = self._is_row_selected(row, _NO_PARENT)
        rect: QRect = option.rect
        if selected:
            painter.fillRect(rect, self._highlight)
        cell = self._cell(row, index.column())
        if cell is None or not cell.text:
            return
        metrics = self._bold_metrics if cell.bold else self._metrics
        inner = rect.adjusted(4, 0, -4, 0)
        if cell.spans:
            paint_spans(painter, metrics, inner, cell.text, cell.spans)
        painter.setPen(self._selected_text if selected else cell.colour or self._text)
        where = QPointF(inner.left(), inner.top() + (inner.height() - self._line[cell.bold]) / 2)
        text = self._text_of(cell.text, cell.bold, inner.width())
        if cell.bold:
            painter.setFont(self._bold)
            painter.drawStaticText(where, text)
            painter.setFont(self._font)
        else:
            painter.drawStaticText(where, text)

    def _text_of(self, text: str, bold: bool, width: int) -> QStaticText:
        """The text elided to the width (unchanged when it fits), laid out once."""
        key = (text, bold, width)
        laid_out = self._laid_out.get(key)
        if laid_out is None:
            if len(self._laid_out) >= _TEXTS_KEPT:
                self._laid_out.clear()
            metrics = self._bold_metrics if bold else self._metrics
            laid_out = QStaticText(metrics.elidedText(text, Qt.TextElideMode.ElideRight, width))
            laid_out.setTextFormat(Qt.TextFormat.PlainText)
            laid_out.prepare(font=self._bold if bold else self._font)
            self._laid_out[key] = laid_out
        return laid_out
