"""What the figures of ``qe`` and ``filters`` share: saving one, and the heat map of counts between every two of
a list of things (datasets, categories).

Both disagreement views draw the heat map: between datasets in the meta-evaluation of metrics (``filters``) and
between categories of a suite in the QE evaluation (``qe``), which never import each other, hence here. Figures
are built on ``matplotlib.figure.Figure`` without ``pyplot`` (no global state, no interactive backend, safe from
the GUI's worker threads) and saved with Agg (PNG) or the SVG/PDF backends picked from the file suffix.

Each heat map cell shows its number; colour runs from white (0) to a dark blue at the largest count, a sequential scale
that reads the same for colour-blind readers and in greyscale. Cells without a value (NaN: the diagonal, or a row
left out because it has too few pairs) are hatched grey, and the labels of left-out rows and columns are grey.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from suite.errors import TsqeError
from suite.safe_export import figure_text, writing

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PLOT_SUFFIXES = (".png", ".svg", ".pdf")
CELL_INCHES = 0.42
LABEL_INCHES = 2.4
"""Room for the row labels at the left and the column labels (turned 45°) at the bottom."""
TITLE_CHARACTER_INCHES = 0.075
"""About one character of the 9 pt title: a small map is widened so that its title is not cut."""
COUNT_COLOURS = ("#FFFFFF", "#9ECAE1", "#08519C")
"""The count scale, white to dark blue (matplotlib is imported when a map is drawn: the window starts without
it)."""
LEFT_OUT = "#9A9A9A"


def heat_map(labels: Sequence[str], values: np.ndarray, *, title: str, left_out: Sequence[int] = (),
             column_labels: Sequence[str] | None = None, note: str | None = None,
             scale: tuple[str, float, float] | None = None) -> Figure:
    """``values`` (rows x columns, NaN where there is none) with a number in every cell; ``left_out`` are the
    indices of rows (and, in a square map, columns) shown grey and without numbers. ``scale`` (label, lowest,
    highest) is for values that are not counts (an accuracy from 50 % to 100 %); the default: counts from 0 to
    the largest."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    columns = list(labels if column_labels is None else column_labels)
    rows, cols = values.shape
    title_inches = TITLE_CHARACTER_INCHES * max(len(line) for line in title.splitlines())
    width = max(LABEL_INCHES + max(cols, 2) * CELL_INCHES + 0.8, LABEL_INCHES + title_inches)
    height = LABEL_INCHES * 0.6 + max(rows, 2) * CELL_INCHES + 0.9
    figure = Figure(figsize=(width, height), layout="constrained")
    axes = figure.add_subplot()
    shown = values.astype(float).copy()
    for index in left_out:
        shown[index, :] = np.nan
        if column_labels is None:
            shown[:, index] = np.nan
    top = np.nanmax(shown) if np.any(~np.isnan(shown)) else 0.0
    label, low, high = scale if scale is not None else ("count", 0.0, max(top, 1.0))
    axes.set_facecolor("#E6E6E6")
    image = axes.imshow(np.ma.masked_invalid(shown), cmap=count_colours(), vmin=low, vmax=high, aspect="equal")
    for i in range(rows):
        for j in range(cols):
            if np.isnan(shown[i, j]):
                axes.add_patch(_hatch(i, j))
                continue
            dark = shown[i, j] > low + 0.6 * (high - low)
            axes.text(j, i, f"{shown[i, j]:.0f}" if scale is None else f"{shown[i, j]:.1f}", ha="center",
                      va="center", fontsize=8,
                      color="white" if dark else "black")
    axes.set_xticks(range(cols), [figure_text(label) for label in columns], rotation=45, ha="right",
                    rotation_mode="anchor", fontsize=8)
    axes.set_yticks(range(rows), [figure_text(label) for label in labels], fontsize=8)
    for index in left_out:
        axes.get_yticklabels()[index].set_color(LEFT_OUT)
        if column_labels is None:
            axes.get_xticklabels()[index].set_color(LEFT_OUT)
    axes.tick_params(length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)
    bar = figure.colorbar(image, ax=axes, shrink=0.6, label=label)
    if scale is None:
        bar.ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no ticks at 0.2, 0.4...
    axes.set_title(figure_text(title), fontsize=9, loc="left")
    if note:
        figure.text(0.01, 0.0, figure_text(note), fontsize=7, color="#555555", ha="left", va="bottom")
    return figure


CLUSTER_COLOURS = ("#1F5FA8", "#5B9BD5", "#9DC3E6", "#C9DDF0")
"""Rank 1 darkest; ranks past the fourth share the palest."""


def cluster_bars(names: Sequence[str], values: Sequence[float], ranks: Sequence[int], *, title: str,
                 baseline: float | None = None) -> Figure:
    """A bar per entry (best first, as given) coloured and labelled by significance cluster, as the WMT metrics
    findings draw them; ``baseline`` a dashed line (the chance level)."""
    from matplotlib.figure import Figure

    width = max(4.0, LABEL_INCHES + 0.45 * len(names) + 0.8, LABEL_INCHES + TITLE_CHARACTER_INCHES * len(title))
    figure = Figure(figsize=(width, 3.2), layout="constrained")
    axes = figure.add_subplot()
    colours = [CLUSTER_COLOURS[min(rank, len(CLUSTER_COLOURS)) - 1] for rank in ranks]
    bars = axes.bar(range(len(names)), values, color=colours)
    for bar, rank, value in zip(bars, ranks, values):
        axes.text(bar.get_center()[0], bar.get_height(), _bar_label(value, rank), ha="center",
                  va="bottom", fontsize=7)
    if baseline is not None:
        axes.axhline(baseline, color="#555555", linestyle="--", linewidth=0.8)
        axes.text(0.995, baseline, "chance", fontsize=7, color="#555555", ha="right", va="bottom",
                  transform=axes.get_yaxis_transform(),  # inside the axes' right edge, whatever the bars' count
                  bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0})  # readable over a bar
    axes.set_xticks(range(len(names)), [figure_text(name) for name in names], rotation=45, ha="right",
                    rotation_mode="anchor", fontsize=8)
    top = max([*values, baseline or 0.0, 0.0])
    bottom = min([*values, baseline or 0.0, 0.0])
    axes.set_ylim(bottom - 0.05 * abs(top - bottom), top + 0.25 * abs(top - bottom or 1.0))
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    axes.set_title(figure_text(title), fontsize=9, loc="left")
    return figure


def _bar_label(value: float, rank: int) -> str:
    return f"{value:.3f}\n({rank})"


@cache
def count_colours():  # type: ignore[no-untyped-def]  # a matplotlib colour map
    """The count scale as a colour map: a value in [0, 1] -> (red, green, blue, alpha); made once."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("counts", COUNT_COLOURS)


def _hatch(i: int, j: int):  # type: ignore[no-untyped-def]  # a matplotlib patch
    from matplotlib.patches import Rectangle

    return Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="#E6E6E6", edgecolor="#C8C8C8", hatch="///",
                     linewidth=0)


def save_figure(figure: Figure, path: str | Path) -> Path:
    """PNG at print resolution, or a vector SVG or PDF, picked by the suffix."""
    path = Path(path)
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise TsqeError(f"{path}: the plot file must end in one of {', '.join(PLOT_SUFFIXES)}")
    with writing(path) as temporary:
        figure.savefig(temporary, dpi=150)
    return path
