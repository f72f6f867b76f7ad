"""Distributions of a value drawn side by side, for two of the papers' figures:

- Zhan et al. 2021 (DA-BERTScore), Figure 3: the reference tokens' difficulty weights over all WMT19 en-de systems
  and over the top 30 % (most tokens are easy for every system, and over the competitive top systems still more
  so). A weight is 1 minus the mean over the systems of a token's best similarity in each output
  (``filters.metrics.da_bertscore``), one per reference token of every item scored, the paper's unit.
- Zhan et al. 2021 (VAT), Figure 8: each item's mean filtering metric over the systems, for the items a
  selection keeps and those it removes (the kept ones are of middling difficulty).

The papers draw densities without saying how they binned them; tsqe counts shares in bins of one width
(``WIDTH``) spanning every distribution drawn together, so that the distributions share their bins.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from suite.errors import TsqeError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

WIDTH = 0.05


@dataclass(frozen=True)
class Distribution:
    label: str
    """What was counted ("all 22 systems", "top 6", "kept")."""
    count: int
    mean: float
    median: float
    shares: list[float]
    """The share of the values in each bin of ``edges``."""
    edges: list[float]


def shared_edges(values: Mapping[str, Sequence[float]], width: float = WIDTH) -> list[float]:
    """Bins [a, a + width) of ``width`` from the multiple of it at or below the smallest value to the first one
    above the largest, over every distribution (one bin when all values are equal)."""
    every = [value for group in values.values() for value in group]
    low = math.floor(round(min(every) / width, 9))
    high = math.floor(round(max(every) / width, 9)) + 1
    return [round(k * width, 10) for k in range(low, high + 1)]


def distributions(values: Mapping[str, Sequence[float]], width: float = WIDTH) -> list[Distribution]:
    """One distribution per label, all on the same bins."""
    empty = [label for label, group in values.items() if not group]
    if empty or not values:
        raise TsqeError(f"no values to count for {', '.join(empty) or 'any distribution'}")
    edges = shared_edges(values, width)
    found = []
    for label, group in values.items():
        array = np.asarray(group, dtype=float)
        counts, _ = np.histogram(array, bins=edges)
        found.append(Distribution(label, len(array), float(array.mean()), float(np.median(array)),
                                  [float(c) / len(array) for c in counts], edges))
    return found


def distribution_figure(drawn: Sequence[Distribution], *, title: str, xlabel: str) -> Figure:
    """The distributions as step outlines over their shared bins, so that two of them overlap readably."""
    from matplotlib.figure import Figure

    from filters.correlation_figure import LINE_COLOURS
    from suite.safe_export import figure_text

    figure = Figure(figsize=(6.0, 3.4), layout="constrained")
    axes = figure.add_subplot()
    for index, distribution in enumerate(drawn):
        axes.stairs(distribution.shares, distribution.edges, color=LINE_COLOURS[index % len(LINE_COLOURS)],
                    linewidth=1.6, label=figure_text(f"{distribution.label} ({distribution.count:,}, "
                                                     f"median {distribution.median:.3f})"))
    axes.set_xlabel(figure_text(xlabel))
    axes.set_ylabel("share")
    axes.set_title(figure_text(title), fontsize=9, loc="left")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    return figure
