"""Figures of QE accuracy, drawn headless.

The figure is built on ``matplotlib.figure.Figure`` directly rather than through ``pyplot``: no global state,
no interactive backend, safe from worker threads of the GUI, and it renders with Agg (PNG) or the SVG/PDF
backends picked from the file suffix.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from qe.accuracy import AccuracyResult, AccuracyRow
from suite.errors import TsqeError

PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def accuracy_figure(result: AccuracyResult) -> Figure:
    """Grouped bars: one group per row (then Total and weighed), one bar per QE system, CI whiskers."""
    rows: list[AccuracyRow] = [*result.rows, result.total, result.weighed]
    labels = [r.name + ("†" if r.too_few else "") for r in rows]
    names = result.qe_systems
    x = np.arange(len(rows), dtype=float)
    x[-2:] += 0.5  # a gap before the summary groups
    width = 0.8 / max(len(names), 1)
    figure = Figure(figsize=(float(np.clip(2.5 + len(rows) * (0.1 * len(names) + 0.2), 6, 18)), 4.8),
                    layout="constrained")
    axes = figure.add_subplot()
    for j, name in enumerate(names):
        heights = np.array([r.accuracy[name] for r in rows]) * 100
        error = None
        if result.bootstrap:
            low = np.array([r.ci.get(name, (np.nan, np.nan))[0] for r in rows]) * 100
            high = np.array([r.ci.get(name, (np.nan, np.nan))[1] for r in rows]) * 100
            error = np.nan_to_num(np.vstack([heights - low, high - heights]), nan=0.0).clip(min=0)
        axes.bar(x - 0.4 + width * (j + 0.5), np.nan_to_num(heights), width, yerr=error, capsize=2,
                 label=name, error_kw={"elinewidth": 0.8})
    axes.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xticks(x, labels, rotation=45, ha="right")
    axes.set_ylim(0, 100)
    axes.set_ylabel("pairwise accuracy (%)")
    where = f"{result.by} in {result.category}" if result.category else result.by
    # Two lines: on one, a narrow figure (a category with three phenomena) cut the title off at both ends.
    caption = f"QE pairwise accuracy per {where}\n(ties: {result.ties}"
    caption += f"; whiskers: {result.confidence:.0%} item bootstrap)" if result.bootstrap else ")"
    axes.set_title(caption, fontsize=10)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), title="QE system",
                title_fontsize=8)
    return figure


def save_accuracy_plot(result: AccuracyResult, path: str | Path) -> Path:
    path = Path(path)
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise TsqeError(f"{path}: the plot file must end in one of {', '.join(PLOT_SUFFIXES)}")
    accuracy_figure(result).savefig(path, dpi=150)
    return path
