"""Charts on report screens: a matplotlib ``Figure`` embedded with the QtAgg canvas, never through pyplot.

Figures are built without pyplot (no global state, safe to build anywhere), shown in a ``ChartView``, and
saved with ``Figure.savefig`` by the export menu, so the picture on screen is the picture in the file.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from suite.report import SystemsReport

# Okabe–Ito without the label colours' meaning: bars are systems here, not labels.
SERIES_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


class ChartView(QWidget):
    """Shows a chart and keeps the function that drew it.

    The canvas stretches its figure to the pane, which may be small; an export therefore draws the chart
    afresh at its designed size, the file ``tsqe plot`` would write, rather than saving the squeezed copy.
    A new chart replaces the canvas (a canvas is bound to one figure).
    """

    def __init__(self, empty_text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._placeholder = QLabel(empty_text)
        self._placeholder.setStyleSheet("color: #666")
        self._layout.addWidget(self._placeholder)
        self._canvas: FigureCanvasQTAgg | None = None
        self._draw: Callable[[], Figure] | None = None

    def set_chart(self, draw: Callable[[], Figure] | None) -> None:
        if self._canvas is not None:
            self._layout.removeWidget(self._canvas)
            self._canvas.deleteLater()
            self._canvas = None
        self._draw = draw
        self._placeholder.setVisible(draw is None)
        if draw is not None:
            self._canvas = FigureCanvasQTAgg(draw())
            self._canvas.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
            self._canvas.setMinimumHeight(160)
            self._layout.addWidget(self._canvas)
            self._canvas.draw_idle()

    @property
    def shown(self) -> Figure | None:
        """The figure on screen (sized to the pane)."""
        return None if self._canvas is None else self._canvas.figure

    def export_figure(self) -> Figure | None:
        """The chart drawn afresh at its designed size, for saving."""
        return None if self._draw is None else self._draw()


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
