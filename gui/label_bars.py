"""The suite tree's label column: a node's outputs as one bar stacked by label state, in the label colours."""
from __future__ import annotations

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRect,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QPainter, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

from gui.colours import LABEL_COLOURS
from gui.tree_model import COUNTS_ROLE
from suite.engine.label_counts import LabelCounts

BAR_SEGMENTS = (("pass", "passed"), ("fail", "failed"), ("conflict", "conflict"), ("unknown", "unknown"),
                ("error", "error"), ("not labelled", "unlabelled"))
"""The stacked bar's segments left to right: label word (and colour) and ``LabelCounts`` field."""
_UNLABELLED_COLOUR = "#E4E4E4"
_MIN_SEGMENT_PX = 2  # a single conflict among 500 outputs still shows


def bar_segments(counts: LabelCounts, width: int) -> list[tuple[str, int, int]]:
    """(label word, count, width in pixels) of each non-empty segment of a stacked bar ``width`` pixels wide: in
    proportion to the counts, every non-empty one at least a couple of pixels (taken from the widest)."""
    values = [(word, getattr(counts, name)) for word, name in BAR_SEGMENTS]
    total = sum(n for _, n in values)
    if total == 0 or width <= 0:
        return []
    segments = [[word, n, max(_MIN_SEGMENT_PX, round(width * n / total))] for word, n in values if n]
    widest = max(segments, key=lambda s: s[2])
    widest[2] = max(widest[2] - (sum(s[2] for s in segments) - width), 1)
    return [(str(word), int(n), int(w)) for word, n, w in segments]


def _text_colour(background: QColor) -> QColor:
    """Black or white, whichever reads on the segment's colour."""
    return QColor("#000000") if background.lightnessF() > 0.55 else QColor("#FFFFFF")


class LabelBarDelegate(QStyledItemDelegate):
    """A node's outputs as one bar stacked by label state in the label colours, each count written on its
    segment where it fits: a node with 7 of its 11 outputs unknown shows mostly grey, with the 7 on it. The pass
    rate alone (pass / judged) showed such an item as a full green 100 %.

    A bar is drawn once into a pixmap and reused while its counts and size stay: a search repaints a screenful
    of them at every keystroke, and laying out their numbers each time was most of a repaint."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bars: dict[tuple[LabelCounts, int, int, float], QPixmap] = {}

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
              ) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        counts = index.data(COUNTS_ROLE)
        if not isinstance(counts, LabelCounts):
            return
        rect: QRect = opt.rect.adjusted(3, 2, -3, -2)
        if rect.width() <= 0 or rect.height() <= 0:
            return
        ratio = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        key = (counts, rect.width(), rect.height(), ratio)
        bar = self._bars.get(key)
        if bar is None:
            if len(self._bars) >= _BARS_KEPT:
                self._bars.clear()
            bar = self._bars[key] = _bar(counts, rect.width(), rect.height(), ratio, painter.font())
        painter.drawPixmap(rect.topLeft(), bar)


_BARS_KEPT = 10_000


def _bar(counts: LabelCounts, width: int, height: int, ratio: float, font: QFont) -> QPixmap:
    pixmap = QPixmap(round(width * ratio), round(height * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    small = QFont(font)
    small.setPointSizeF(max(font.pointSizeF() - 1, 6))
    painter.setFont(small)
    metrics = painter.fontMetrics()
    x = 0
    for word, count, segment_width in bar_segments(counts, width):
        colour = QColor(LABEL_COLOURS.get(word, _UNLABELLED_COLOUR))
        segment = QRect(x, 0, segment_width, height)
        painter.fillRect(segment, colour)
        text = f"{count:,}"
        if metrics.horizontalAdvance(text) + 2 <= segment_width:
            painter.setPen(_text_colour(colour))
            painter.drawText(segment, int(Qt.AlignmentFlag.AlignCenter), text)
        x += segment_width
    painter.end()
    return pixmap
