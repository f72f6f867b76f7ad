"""Several metrics' system-level correlations with human scores in one table, over all systems and the top K.

``tsqe correlate`` answers for one metric; a researcher choosing a metric wants them side by side, and the
Difficulty-Aware paper's Table 1 puts all systems beside the K best. Each figure is
:func:`filters.correlation.correlate`'s, so the table and the command never disagree.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from filters.correlation import CorrelationResult, correlate
from store import Database
from suite.references import RefChoice
from suite.tables import Cell, Column, Table
from suite.tasks import TaskState, progress_of


@dataclass(frozen=True)
class MetricCorrelation:
    metric: str
    overall: CorrelationResult
    top: CorrelationResult | None


@dataclass(frozen=True)
class CorrelationSummary:
    top: int | None
    rows: list[MetricCorrelation]

    def to_table(self) -> Table:
        columns = [Column("metric", "text"), Column("systems", "count"), Column("Pearson r", "number", 4),
                   Column("Kendall tau", "number", 4)]
        if self.top is not None:
            columns += [Column(f"Pearson r top {self.top}", "number", 4),
                        Column(f"Kendall tau top {self.top}", "number", 4)]
        body = []
        for row in self.rows:
            cells = [Cell(row.metric), Cell(len(row.overall.systems)), Cell(row.overall.pearson),
                     Cell(row.overall.kendall)]
            if row.top is not None:
                cells += [Cell(row.top.pearson), Cell(row.top.kendall)]
            body.append(cells)
        notes = [("System-level correlation of each metric with the imported human scores (Pearson r, Kendall "
                 "tau-b) on the raw metric values: for a lower-is-better metric (TER) agreement is negative; "
                 "missing: constant scores.")]
        notes += [f"{row.metric}: {row.overall.signature}" for row in self.rows]
        return Table(title="Correlation of metrics with human scores", columns=columns, body=body, notes=notes)


def correlate_metrics(db: Database, metrics: Sequence[str], *, top: int | None = None,
                      suite_name: str | None = None, refs: RefChoice | None = None,
                      task: TaskState | None = None) -> CorrelationSummary:
    """``correlate`` for each metric over all systems with human scores, and over the ``top`` best if given."""
    progress = progress_of(task)
    rows = []
    for done, metric in enumerate(metrics):
        progress.progress(done, len(metrics), f"correlating {metric}")
        overall = correlate(db, metric, suite_name=suite_name, refs=refs, task=task)
        best = None if top is None else correlate(db, metric, suite_name=suite_name, top=top, refs=refs, task=task)
        rows.append(MetricCorrelation(metric, overall, best))
    progress.progress(len(metrics), len(metrics), "done")
    return CorrelationSummary(top, rows)
