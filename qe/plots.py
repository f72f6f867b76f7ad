"""Figures of the evaluation, drawn headless: horizontal grouped bars, one row per category or phenomenon.

``accuracy_figure`` draws the QE accuracy table (``tsqe plot accuracy``) as bars, ``systems_figure`` the MT
systems' pass rates (``tsqe report systems``) as a heat map; the desktop application shows and saves the same
figures.

The figure is built on ``matplotlib.figure.Figure`` directly rather than through ``pyplot``: no global state,
no interactive backend, safe from worker threads of the GUI, and it renders with Agg (PNG) or the SVG/PDF
backends picked from the file suffix.

Rows run down the y axis, each label on its own line, and the figure grows taller with the rows. Vertical bars
with rotated labels ran into each other past a dozen rows and were unreadable for DFKI's hundred phenomena;
a figure taller than the window's pane is scrolled there, not squeezed.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from qe.accuracy import AccuracyResult
from suite.figures import save_figure
from suite.reading.report import SystemsReport
from suite.safe_export import figure_text

if TYPE_CHECKING:
    from matplotlib.figure import Figure

WIDTH_INCHES = 7.5
BAR_INCHES = 0.06
"""A bar's thickness while a row's bars fit in ``BARS_INCHES``; with more series they are thinner, down to
``THINNEST_BAR_INCHES``, below which a bar would be a hairline."""
BARS_INCHES = 0.2
THINNEST_BAR_INCHES = 0.025
ROW_GAP_INCHES = 0.05
LABEL_INCHES = 0.15
"""A row is never thinner than a line of its label."""
FRAME_INCHES = 0.9
"""The caption, legend and percent scale above the rows, and a margin below them."""
SUMMARY_GAP = 0.7
"""Space (in rows) between the rows and the summary rows after them (Total, weighed)."""


def new_figure(width: float, height: float) -> Figure:
    """A figure of its own (no pyplot), with matplotlib imported only now: every command and the window import
    this module, and matplotlib costs them half a second at start (issue 16)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


@dataclass(frozen=True)
class Bars:
    """One series: a value per row in % (NaN: none, drawn as no bar), and whiskers when ``low``/``high`` given."""

    name: str
    values: Sequence[float]
    low: Sequence[float] | None = None
    high: Sequence[float] | None = None
    colour: str | None = None


def row_bars(labels: Sequence[str], series: Sequence[Bars], *, title: str, summary: int = 0,
             reference: float | None = None) -> Figure:
    """Grouped horizontal bars, the rows top to bottom in the given order; the last ``summary`` rows are set
    apart by a gap and a rule, their labels in bold. ``reference`` draws a dashed line (50 %: chance)."""
    count, per_row = len(labels), max(len(series), 1)
    y = np.arange(count, dtype=float)
    if 0 < summary < count:
        y[count - summary:] += SUMMARY_GAP
    extent = (y[-1] + 1.0) if count else 1.0
    bar_inches = min(BAR_INCHES, max(BARS_INCHES / per_row, THINNEST_BAR_INCHES))
    row_inches = max(per_row * bar_inches + ROW_GAP_INCHES, LABEL_INCHES)
    figure = new_figure(WIDTH_INCHES, FRAME_INCHES + extent * row_inches)
    axes = figure.add_subplot()
    thickness = 0.8 / per_row
    for j, bars in enumerate(series):
        values = np.asarray(bars.values, dtype=float)
        error = None
        if bars.low is not None and bars.high is not None:
            low, high = np.asarray(bars.low, dtype=float), np.asarray(bars.high, dtype=float)
            error = np.nan_to_num(np.vstack([values - low, high - values]), nan=0.0).clip(min=0)
        axes.barh(y - 0.4 + thickness * (j + 0.5), np.nan_to_num(values), thickness, xerr=error, capsize=1.5,
                  label=figure_text(bars.name), color=bars.colour, error_kw={"elinewidth": 0.7, "capthick": 0.7})
    axes.set_yticks(y, [figure_text(label) for label in labels], fontsize=8)
    axes.set_ylim(extent - 0.4, -0.6)  # the first row at the top
    if 0 < summary < count:
        axes.axhline(y[count - summary] - (1 + SUMMARY_GAP) / 2, color="grey", linewidth=0.6)
        for tick in axes.get_yticklabels()[count - summary:]:
            tick.set_fontweight("bold")
    axes.set_xlim(0, 100)
    axes.xaxis.tick_top()  # the scale is read at the top, where a tall chart starts
    axes.xaxis.set_major_formatter("{x:.0f}%")
    axes.tick_params(axis="x", labelsize=8)
    axes.grid(axis="x", linewidth=0.4, alpha=0.5)
    axes.set_axisbelow(True)
    if reference is not None:
        axes.axvline(reference, color="grey", linewidth=0.8, linestyle="--")
    # The caption as the legend's title: one block centred on the figure, which the layout keeps clear of the
    # axes (a suptitle and a legend above the axes were drawn over each other).
    figure.legend(loc="outside upper center", ncols=min(per_row, 4), fontsize=8, frameon=False,
                  title=figure_text(title), title_fontsize=9)
    return figure


def accuracy_figure(result: AccuracyResult) -> Figure:
    """A row per category or phenomenon (then Total and weighed), a bar per QE system, CI whiskers."""
    rows = result.table_rows
    labels = [r.name + ("†" if r.too_few else "") for r in rows]
    series = []
    for name in result.qe_systems:
        values = [r.accuracy[name] * 100 for r in rows]
        if result.bootstrap:
            low = [r.ci.get(name, (np.nan, np.nan))[0] * 100 for r in rows]
            high = [r.ci.get(name, (np.nan, np.nan))[1] * 100 for r in rows]
            series.append(Bars(name, values, low, high))
        else:
            series.append(Bars(name, values))
    where = f"{result.by} in {result.category}" if result.category else result.by
    caption = f"QE pairwise accuracy per {where}\n(ties: {result.ties}"
    caption += f"; whiskers: {result.confidence:.0%} item bootstrap" if result.bootstrap else ""
    caption += "; † too few pairs)" if any(r.too_few for r in rows) else ")"
    return row_bars(labels, series, title=caption, summary=2, reference=50)


HEAT_ROW_INCHES = 0.2
HEAT_NAMES_INCHES = 1.1
"""Room above the heat map for the systems' names, written at an angle."""


def systems_figure(report: SystemsReport) -> Figure:
    """The MT systems' pass rates as a heat map laid out as the table: a row per category or phenomenon (then
    overall and macro average), a column per system (best overall first), each cell shaded by its rate and the
    rate written in it, bold for the row's best cluster; rows without judged outputs are left blank.

    Grouped bars put 19 indistinguishable bars in each row for the WMT21 systems (issue 16): a heat map reads at
    20 systems and more, and a cell is found by the same row and column as in the table beside it.
    """
    from matplotlib import colormaps

    rows = [*report.rows, report.overall, report.macro]
    labels = [("overall (micro)" if row.kind == "overall" else "macro average" if row.kind == "macro" else
               row.phenomenon if report.by == "phenomenon" else row.category) or "" for row in rows]
    rates = np.array([[np.nan if (rate := row.cells[name].rate) is None else 100 * rate for name in report.systems]
                      for row in rows], dtype=float).reshape(len(rows), len(report.systems))
    figure = new_figure(WIDTH_INCHES, FRAME_INCHES + HEAT_NAMES_INCHES + HEAT_ROW_INCHES * len(rows))
    axes = figure.add_subplot()
    figure.suptitle(f"Pass rate (%) per system and {report.by}: {report.suite}", fontsize=9)
    if not report.systems:
        axes.text(0.5, 0.5, "no MT outputs imported yet", ha="center", va="center", color="grey")
        axes.set_axis_off()
        return figure
    colours = colormaps["viridis"].with_extremes(bad="#EEEEEE")
    image = axes.imshow(np.ma.masked_invalid(rates), cmap=colours, vmin=0, vmax=100, aspect="auto",
                        interpolation="nearest")
    size = 7 if len(report.systems) <= 12 else 6
    for i, row in enumerate(rows):
        for j, name in enumerate(report.systems):
            if np.isnan(rates[i, j]):
                continue
            # Not in the layout: a cell's figure lies inside the axes, and constrained layout measured each of
            # them (some 2,000 per phenomenon on DFKI de-en) on every draw for margins they never need.
            axes.text(j, i, f"{rates[i, j]:.0f}", ha="center", va="center", fontsize=size,
                      color="black" if rates[i, j] >= 55 else "white",
                      fontweight="bold" if row.cells[name].best_cluster else "normal", in_layout=False)
    axes.set_xticks(range(len(report.systems)), report.systems, rotation=50, ha="left", rotation_mode="anchor",
                    fontsize=7)
    axes.xaxis.tick_top()
    axes.set_yticks(range(len(rows)), labels, fontsize=8)
    for tick in axes.get_yticklabels()[len(report.rows):]:
        tick.set_fontweight("bold")
    axes.axhline(len(report.rows) - 0.5, color="white", linewidth=2.5)
    axes.tick_params(length=0)
    for spine in axes.spines.values():
        spine.set_visible(False)
    colourbar = figure.colorbar(image, ax=axes, location="bottom", fraction=0.04, pad=0.02, aspect=40)
    colourbar.ax.tick_params(labelsize=7)
    colourbar.set_label("pass rate (%); bold: the row's best system and those not significantly worse", fontsize=7)
    return figure


def save_accuracy_plot(result: AccuracyResult, path: str | Path) -> Path:
    return save_figure(accuracy_figure(result), path)
