"""Charts on report screens: matplotlib figures built without pyplot and rendered off the main thread.

A chart is given as a function that builds a fresh ``Figure`` (``qe.plots.accuracy_figure`` for QE,
``qe.plots.systems_figure`` for the MT systems). The view renders it with matplotlib's Agg canvas at the pane's
width in a background read and shows the image; a resize renders again once the user stops dragging. Rendering
on the main thread, as ``FigureCanvasQTAgg`` does in its paint event, froze the window for 0.4–0.9 s per chart
on a two-core machine (most of it constrained layout, pure Python): the window could not repaint or take a
click meanwhile. Nothing here is interactive (no zoom or pan), so an image loses nothing. A figure designed
taller than the pane (a row per phenomenon) keeps its height and the pane scrolls: squeezed to the pane, its
rows ran into each other. An export draws the chart afresh at its designed size, the file ``tsqe plot`` would write.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QImage, QPixmap, QResizeEvent
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from gui.operations import Operations

if TYPE_CHECKING:
    from matplotlib.figure import Figure

RESIZE_DELAY_MS = 150
PANE_DPI = 100.0
"""Points to pixels in the pane, so the figure's 8 pt labels are the 11 px of the window's small text."""


def render(draw: Callable[[], Figure], width: int, height: int, ratio: float, scrollbar: int) -> QImage:
    """The chart as an image ``width`` (logical) pixels wide, filling ``height`` or, when the figure is designed
    taller, as tall as designed and ``scrollbar`` narrower, to scroll. Safe on a worker thread: a QImage, and a
    figure of its own."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # here: the window starts without matplotlib

    figure = draw()
    designed = round(figure.get_size_inches()[1] * PANE_DPI)
    if designed > height:
        width, height = width - scrollbar, designed
    figure.set_size_inches(width / PANE_DPI, height / PANE_DPI)
    figure.set_dpi(PANE_DPI * ratio)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())
    image = QImage(pixels.tobytes(), pixels.shape[1], pixels.shape[0], 4 * pixels.shape[1],
                   QImage.Format.Format_RGBA8888)
    image.setDevicePixelRatio(ratio)
    return image.copy()  # own the pixels: the bytes object dies with this frame


class ChartView(QWidget):
    """Shows the chart a screen hands over, scrolled when taller than the pane; keeps the function that draws
    it for exports."""

    def __init__(self, empty_text: str, ops: Operations, key: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._ops = ops
        self._key = key
        self._draw: Callable[[], Figure] | None = None
        self._empty_text = empty_text
        self.image: QImage | None = None
        self._label = QLabel(empty_text)
        self._label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._label.setStyleSheet("color: #666; background: white")
        self._label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.area = QScrollArea(self)
        self.area.setWidget(self._label)
        self.area.setWidgetResizable(True)  # the label fills the pane, or is as tall as the chart and scrolls
        self.area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.area.setFrameShape(QFrame.Shape.NoFrame)
        self.setMinimumSize(320, 200)  # a splitter would otherwise squeeze a label without a size hint to nothing
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.area)
        self._resized = QTimer(self)
        self._resized.setSingleShot(True)
        self._resized.setInterval(RESIZE_DELAY_MS)
        self._resized.timeout.connect(self._render)

    def set_chart(self, draw: Callable[[], Figure] | None) -> None:
        self._draw = draw
        if draw is None:
            self._ops.supersede(self._key)  # a rendering on its way is of what was shown before
            self.image = None
            self._label.setPixmap(QPixmap())
            self._label.setMinimumHeight(0)
            self._label.setText(self._empty_text)
            return
        self._render()

    def export_figure(self) -> Figure | None:
        """The chart drawn afresh at its designed size, for saving."""
        return None if self._draw is None else self._draw()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._draw is not None:
            self._resized.start()

    def _render(self) -> None:
        draw = self._draw
        if draw is None:
            return
        ratio = self.devicePixelRatioF()
        width, height = max(self.width(), 200), max(self.height(), 160)
        scrollbar = self.area.verticalScrollBar().sizeHint().width()
        self._ops.read(lambda task: render(draw, width, height, ratio, scrollbar), self._show, key=self._key)

    def _show(self, image: QImage) -> None:
        self.image = image
        self._label.setMinimumHeight(round(image.height() / image.devicePixelRatio()))
        self._label.setPixmap(QPixmap.fromImage(image))

