"""Correlation with human scores as variance-aware filtering drops more of the test set: Zhan et al. 2021 (VAT),
Figure 2 (one filtering metric, drop fraction 0 to 0.9) and Figure 4 (several filtering metrics).

For each drop fraction the items are filtered as ``tsqe variance`` filters them (:func:`filters.variance.filter_matrix`:
keep an item iff its deviation over systems is strictly above the fraction's percentile), each system is scored on
the kept items, and the system scores are correlated with the human scores. A system's score on a subset is the
mean of its segment scores there: the paper recomputes corpus BLEU on the subset, which for BLEU gives other
figures (``tsqe correlate`` on an exported VAT suite does that); for the segment-averaged metrics (BERTScore,
chrF's segment mean here) it is the same.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from filters.correlation import choose_systems, correlations, human_scores
from filters.scoring import score_outputs
from filters.variance import filter_matrix
from store import Database
from store.domain import HumanScoreKind
from suite.errors import TsqeError
from suite.references import RefChoice
from suite.tables import Cell, Column, Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DROPS = tuple(round(0.1 * k, 1) for k in range(10))
"""The paper's drop fractions, 0 to 0.9."""


@dataclass(frozen=True)
class DropPoint:
    drop: float
    kept: int
    pearson: float
    kendall: float
    spearman: float


@dataclass(frozen=True)
class DropCurve:
    filter_metric: str
    metric: str
    points: list[DropPoint]


@dataclass(frozen=True)
class DropCurves:
    suite: str
    metric: str
    systems: int
    curves: list[DropCurve]

    def to_table(self) -> Table:
        columns = [Column("filtering metric", "text"), Column("drop", "number", 1), Column("kept", "count"),
                   Column("Pearson r", "number", 3), Column("Kendall tau", "number", 3),
                   Column("Spearman rho", "number", 3)]
        body = [[Cell(c.filter_metric), Cell(p.drop), Cell(p.kept), Cell(p.pearson), Cell(p.kendall),
                 Cell(p.spearman)] for c in self.curves for p in c.points]
        return Table(title=f"Correlation of {self.metric} with human scores against the share of items dropped",
                     columns=columns, body=body,
                     notes=[f"Suite {self.suite}, {self.systems} systems with human scores. Items kept iff their "
                            "deviation of the filtering metric over systems is strictly above the drop's "
                            f"percentile; a system's score is the mean of its {self.metric} segment scores on the "
                            "kept items."])

    def to_dict(self) -> dict[str, object]:
        return {"suite": self.suite, "metric": self.metric, "systems": self.systems,
                "curves": [{"filter_metric": c.filter_metric,
                            "points": [{"drop": p.drop, "kept": p.kept, "pearson": p.pearson, "kendall": p.kendall,
                                        "spearman": p.spearman} for p in c.points]} for c in self.curves]}

    def figure(self) -> Figure:
        from matplotlib.figure import Figure

        from filters.correlation_figure import LINE_COLOURS, MARKERS
        from suite.safe_export import figure_text

        figure = Figure(figsize=(6.0, 3.6), layout="constrained")
        axes = figure.add_subplot()
        for index, curve in enumerate(self.curves):
            axes.plot([p.drop for p in curve.points], [p.pearson for p in curve.points],
                      color=LINE_COLOURS[index % len(LINE_COLOURS)], marker=MARKERS[index % len(MARKERS)],
                      label=figure_text(f"filtered by {curve.filter_metric}"))
        axes.set_xlabel("share of items dropped")
        axes.set_ylabel(figure_text(f"Pearson r of {self.metric}"))
        axes.set_title(figure_text(f"{self.suite}: correlation against the share dropped"), fontsize=9, loc="left")
        axes.grid(alpha=0.3)
        axes.legend(fontsize=8)
        return figure


def curve(filter_values: np.ndarray, metric_values: np.ndarray, human: Sequence[float],
          drops: Sequence[float] = DROPS) -> list[DropPoint]:
    """Items x systems matrices (NaN: no score) of the filtering metric and the metric correlated, the systems'
    human scores in the same column order."""
    items = [str(i) for i in range(filter_values.shape[0])]
    points = []
    for drop in drops:
        kept = [int(i) for i in filter_matrix(items, filter_values, drop=drop).kept]
        if not kept:
            raise TsqeError(f"dropping {drop:.0%} of the items keeps none of them")
        scores = np.nanmean(metric_values[kept], axis=0)
        found = correlations(human, scores)
        points.append(DropPoint(drop, len(kept), found.pearson, found.kendall, found.spearman))
    return points


def drop_curves(db: Database, filter_metrics: Sequence[str], metric: str, *, suite_name: str | None = None,
                refs: RefChoice | None = None, drops: Sequence[float] = DROPS,
                human_kind: HumanScoreKind | None = None) -> DropCurves:
    """One curve per filtering metric, over the systems with human scores."""
    from suite.suites import find_suite

    human = human_scores(db, suite_name, human_kind)
    systems = choose_systems(human)
    with db.session() as session:
        name = find_suite(session, suite_name).name
    _, metric_values = score_outputs(db, metric, suite_name=suite_name, systems=systems, refs=refs).columns(systems)
    curves = []
    for filter_metric in dict.fromkeys(filter_metrics):
        _, filter_values = score_outputs(db, filter_metric, suite_name=suite_name, systems=systems,
                                         refs=refs).columns(systems)
        curves.append(DropCurve(filter_metric, metric, curve(filter_values, metric_values,
                                                             [human[s] for s in systems], drops)))
    return DropCurves(name, metric, len(systems), curves)
