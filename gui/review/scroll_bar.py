"""The review table's vertical scroll bar, painted in Fusion without filling its groove anew on every page.

Fusion fills the groove with a gradient as tall as the bar, and Qt's raster engine fills a shape that tall line
by line on a pool of threads, waiting for them: the bar cost 0.3-0.4 ms of CPU and 0.4-0.8 ms of wall time a
page on the 2-core benchmark machine under load (15% of the main thread's time paging through a million
outputs). The groove does not move with the slider, so it is painted once per size and look into a transparent
pixmap, laid over the background on each repaint (0.1-0.2 ms CPU, 0.2-0.3 ms wall), and the style paints the
rest (slider, arrows) as usual; the result is the same pixels. Other styles paint their bars otherwise (some
animate them) and are left alone.
"""
from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QProxyStyle, QScrollBar, QStyle, QStyleOptionComplex, QStyleOptionSlider, QWidget

_GROOVE = QStyle.SubControl.SC_ScrollBarGroove
_KEPT = 8  # grooves remembered (sizes and looks); a resize makes a new one


class _GrooveOnce(QProxyStyle):
    def __init__(self) -> None:
        super().__init__("fusion")
        self._grooves: dict[tuple[object, ...], QPixmap] = {}

    def drawComplexControl(self, control: QStyle.ComplexControl, option: QStyleOptionComplex, painter: QPainter,
                           widget: QWidget | None = None) -> None:
        if control != QStyle.ComplexControl.CC_ScrollBar or not isinstance(option, QStyleOptionSlider) \
                or not option.subControls & _GROOVE:
            super().drawComplexControl(control, option, painter, widget)
            return
        rect = option.rect
        ratio = painter.device().devicePixelRatio()
        key = (rect.width(), rect.height(), ratio, option.orientation, option.state, option.activeSubControls,
               option.palette.cacheKey())
        groove = self._grooves.get(key)
        if groove is None:
            if len(self._grooves) >= _KEPT:
                self._grooves.clear()
            groove = self._grooves[key] = self._groove(option, ratio, widget)
        painter.drawPixmap(rect.topLeft(), groove)
        rest = QStyleOptionSlider(option)
        rest.subControls = option.subControls & ~_GROOVE
        super().drawComplexControl(control, rest, painter, widget)

    def _groove(self, option: QStyleOptionSlider, ratio: float, widget: QWidget | None) -> QPixmap:
        groove = QPixmap(option.rect.size() * ratio)
        groove.setDevicePixelRatio(ratio)
        groove.fill(Qt.GlobalColor.transparent)  # its edges are drawn half-transparent over what lies beneath
        only = QStyleOptionSlider(option)
        only.subControls = _GROOVE
        only.rect = QRect(QPoint(0, 0), option.rect.size())
        painter = QPainter(groove)
        super().drawComplexControl(QStyle.ComplexControl.CC_ScrollBar, only, painter, widget)
        painter.end()
        return groove


def paint_groove_once(bar: QScrollBar) -> None:
    """Give ``bar`` the groove painted once, when the application's style is Fusion."""
    if bar.style().name() == "fusion":
        style = _GrooveOnce()
        style.setParent(bar)  # a widget does not own the style it is given
        bar.setStyle(style)
