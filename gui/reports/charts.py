"""Charts on report screens: matplotlib figures built without pyplot and rendered off the main thread.

A chart is given as a function that builds a fresh ``Figure`` (``qe.plots.accuracy_figure`` for QE, the
systems' bars here). The view renders it with matplotlib's Agg canvas at the pane's pixel size in a background
read and shows the image; a resize renders again once the user stops dragging. Rendering on the main thread,
as ``FigureCanvasQTAgg`` does in its paint event, froze the window for 0.4–0.9 s per chart on a two-core
machine (most of it constrained layout, pure Python): the window could not repaint or take a click meanwhile.
Nothing here is interactive (no zoom or pan), so an image loses nothing. An export draws the chart afresh at
its designed size, the file ``tsqe plot`` would write, not the copy squeezed into the pane.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QImage, QPixmap, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from gui.operations import Operations
from suite.report import SystemsReport

# Okabe–Ito without the label colours' meaning: bars are systems here, not labels.
SERIES_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
RESIZE_DELAY_MS = 150


def render(draw: Callable[[], Figure], width: int, height: int, ratio: float) -> QImage:
    """The chart as an image of ``width`` x ``height`` device pixels (safe on a worker thread: a QImage, and a
    figure of its own)."""
    figure = draw()
    dpi = 100.0 * ratio
    figure.set_size_inches(width / dpi, height / dpi)
    figure.set_dpi(dpi)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())
    image = QImage(pixels.tobytes(), pixels.shape[1], pixels.shape[0], 4 * pixels.shape[1],
                   QImage.Format.Format_RGBA8888)
    image.setDevicePixelRatio(ratio)
    return image.copy()  # own the pixels: the bytes object dies with this frame


class ChartView(QWidget):
    """Shows the chart a screen hands over; keeps the function that draws it for exports."""

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
        self.setMinimumSize(320, 200)  # a splitter would otherwise squeeze a label without a size hint to nothing
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._label)
        self._resized = QTimer(self)
        self._resized.setSingleShot(True)
        self._resized.setInterval(RESIZE_DELAY_MS)
        self._resized.timeout.connect(self._render)

    def set_chart(self, draw: Callable[[], Figure] | None) -> None:
        self._draw = draw
        if draw is None:
            self.image = None
            self._label.setPixmap(QPixmap())
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
        self._ops.read(lambda task: render(draw, round(width * ratio), round(height * ratio), ratio),
                       self._show, key=self._key)

    def _show(self, image: QImage) -> None:
        self.image = image
        self._label.setPixmap(QPixmap.fromImage(image))


def systems_figure(report: SystemsReport) -> Figure:
    """Grouped bars: one group per row of the report, one bar per system (best overall first), in %."""
    rows = report.rows
    names = report.systems
    labels = [row.phenomenon if report.by == "phenomenon" else row.category for row in rows]
    x = np.arange(len(rows), dtype=float)
    width = 0.8 / max(len(names), 1)
    figure = Figure(figsize=(float(np.clip(2.0 + len(rows) * (0.12 * len(names) + 0.25), 6, 20)), 3.6),
                    layout="constrained")
    axes = figure.add_subplot()
    for j, name in enumerate(names):
        heights = [row.cells[name].rate for row in rows]
        axes.bar(x - 0.4 + width * (j + 0.5), [100 * h if h is not None else 0.0 for h in heights], width,
                 label=name, color=SERIES_COLOURS[j % len(SERIES_COLOURS)])
    axes.set_xticks(x, [str(label) for label in labels], rotation=30, ha="right", fontsize=8)
    axes.set_ylim(0, 100)
    axes.set_ylabel("pass rate (%)")
    axes.grid(axis="y", linewidth=0.4, alpha=0.5)
    axes.set_axisbelow(True)
    axes.set_title(f"Pass rate per system and {report.by}: {report.suite}", fontsize=10)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="MT system", title_fontsize=8)
    return figure
