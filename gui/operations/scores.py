"""The Discriminative tab's scoring (after Anki's ``operations``): a metric's scores of every output, DA-BERTScore,
correlations with human scores. They read more than they write: what they store are caches of metric scores
(``suite.changes.METRIC_SCORES``), which no other screen shows, and their results go to the tab that asked.
"""
from __future__ import annotations

from filters.correlation_table import CorrelationTable, correlate_table
from filters.metrics.da_bertscore import DifficultyResult, da_bertscore
from filters.scoring import SegmentScores, score_outputs
from gui.operations.runner import Write
from store import Database
from suite.changes import METRIC_SCORES
from suite.references import RefChoice


def score(db: Database, suite: str | None, metric: str, refs: RefChoice | None = None) -> Write[SegmentScores]:
    return Write(f"scoring with {metric}",
                 lambda task: score_outputs(db, metric, suite_name=suite, refs=refs, task=task),
                 said=lambda scores: f"{len(scores.rows):,} outputs scored", changes=lambda _: METRIC_SCORES)


def difficulty(db: Database, suite: str | None, refs: RefChoice | None = None) -> Write[DifficultyResult]:
    return Write("difficulty-aware BERTScore", lambda task: da_bertscore(db, suite_name=suite, refs=refs, task=task),
                 said=lambda result: f"{len(result.systems):,} systems scored", changes=lambda _: METRIC_SCORES)


def correlate(db: Database, suite: str | None, metrics: list[str], entries: list[RefChoice],
              top: int | None) -> Write[CorrelationTable]:
    return Write("correlating metrics with human scores", lambda task: correlate_table(
        db, metrics, entries, top=top, suite_name=suite, task=task),
        said=lambda table: f"{len(table.rows):,} metric and reference row{'s' if len(table.rows) != 1 else ''} "
                           "correlated",
        changes=lambda _: METRIC_SCORES)
