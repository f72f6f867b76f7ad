"""A table header whose columns from ``first`` on show their titles turned upright, read bottom to top.

The Systems tab of DFKI de-en has 19 systems: titled across, "VolcTrans-GLAT" or "NVIDIA-NeMo" made each column
90–100 px for a figure of 30 ("88*"), and the table scrolled sideways at 1,280×720. Turned upright, a title costs
the header's height once instead of each column's width, every name still reads whole (an abbreviation would
need its tooltip to be read at all), and the column is as narrow as its figures, as the chart's labels already are.
"""
from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QHeaderView, QStyle, QStyleOptionHeader, QWidget

MARGIN = 4
"""Room before and after an upright title, as the style's margin gives a title across."""


class VerticalTitles(QHeaderView):
    def __init__(self, first: int, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.first = first
        self.setSectionsClickable(True)
        self.setHighlightSections(True)

    def upright(self, logical: int) -> bool:
        return logical >= self.first

    def title(self, logical: int) -> str:
        return "" if self.model() is None else str(self.model().headerData(logical, self.orientation()) or "")

    def title_width(self, logical: int) -> int:
        """How wide the column must be for its title to read whole: the text's height once turned upright."""
        return self.fontMetrics().height() + 2 * MARGIN

    def sectionSizeFromContents(self, logical: int) -> QSize:  # noqa: N802  (Qt's name)
        if not self.upright(logical):
            return super().sectionSizeFromContents(logical)
        return QSize(self.title_width(logical), self.fontMetrics().horizontalAdvance(self.title(logical)) + 3 * MARGIN)

    def paintSection(self, painter: QPainter, rect: QRect, logical: int) -> None:  # noqa: N802  (Qt's name)
        if not self.upright(logical):
            super().paintSection(painter, rect, logical)
            return
        option = QStyleOptionHeader()
        self.initStyleOption(option)
        option.rect = rect
        option.section = logical
        option.text = ""
        painter.save()
        self.style().drawControl(QStyle.ControlElement.CE_Header, option, painter, self)
        painter.translate(rect.left(), rect.bottom())
        painter.rotate(-90)
        text = QRect(MARGIN, 0, rect.height() - 2 * MARGIN, rect.width())
        painter.drawText(text, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                         self.fontMetrics().elidedText(self.title(logical), Qt.TextElideMode.ElideMiddle,
                                                       text.width()))
        painter.restore()
