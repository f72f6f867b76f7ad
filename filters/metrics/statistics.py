"""What a system-level score is computed from, per segment, so that resampling segments recomputes it exactly.

A corpus BLEU is not a mean of sentence BLEUs, so a bootstrap over segments cannot resample system scores:
it resamples the segments' sufficient statistics (sacrebleu's own, the ones its paired bootstrap uses) and
computes each system's score from their weighted sum. The mean of segment scores is the same with the
statistics ``[score, 1]``; difficulty-aware BERTScore's DA-F is the harmonic mean of resampled DA-P and DA-R
means. Joined reference sets combined by ``max`` or ``mean`` resample the union of their segments, each
set's statistics over the segments it has.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from suite.domain import Combine

RESAMPLES = 1000
"""Bootstrap resamples of segments behind a correlation's interval, by default."""
SEED = 0


class Resamplable(Protocol):
    @property
    def items(self) -> list[int]:
        """The segments (ids unique in the suite) whose weights :meth:`scores` takes, in order."""
        ...

    def scores(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """Each system's score under each row of ``weights`` (resamples x segments: how often each segment
        is drawn); a row of ones gives the scores themselves."""
        ...


@dataclass(frozen=True)
class SegmentStatistics:
    items: list[int]
    stats: dict[str, np.ndarray]
    """Per system, one row of statistics per segment of ``items`` (zeros where the system has none)."""
    finish: Callable[[np.ndarray], float]
    """Summed statistics -> the system's score."""
    finish_rows: Callable[[np.ndarray], np.ndarray] | None = None
    """Rows of summed statistics -> each row's ``finish``, all at once (``filters.metrics.summed_scores``)."""

    def scores(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        finish_rows = self.finish_rows
        if finish_rows is not None:
            return {system: finish_rows(weights @ stats) for system, stats in self.stats.items()}
        return {system: np.array([self.finish(total) for total in weights @ stats])
                for system, stats in self.stats.items()}


def mean_statistics(items: list[int], values: dict[str, np.ndarray]) -> SegmentStatistics:
    """Statistics of the mean of segment scores: ``[score, 1]`` per scored segment, zeros where NaN."""
    def stats(column: np.ndarray) -> np.ndarray:
        scored = ~np.isnan(column)
        return np.column_stack([np.where(scored, column, 0.0), scored.astype(float)])

    return SegmentStatistics(items, {system: stats(column) for system, column in values.items()}, _ratio)


def _ratio(total: np.ndarray) -> float:
    return float(total[0] / total[1]) if total[1] else float("nan")


def combine(stacked: np.ndarray, how: Combine, higher_is_better: bool) -> np.ndarray:
    """The one rule that joins single-set scores along the first axis: ``max`` takes the best (the lowest for a
    lower-is-better metric), ``mean`` the mean, each ignoring sets without a score (NaN). ``multi`` is a metric's
    own multi-reference form, never a join of single-set scores: whoever holds single-set scores under ``multi``
    chose beforehand what stands for it."""
    if how == Combine.MEAN:
        return np.asarray(np.nanmean(stacked, axis=0))
    if how == Combine.MAX:
        return np.asarray((np.fmax if higher_is_better else np.fmin).reduce(stacked, axis=0))
    raise ValueError(f"{how!r} is a metric's own multi-reference form, not a join of single-set scores")


@dataclass(frozen=True)
class CombinedStatistics:
    """The best (``max``; the lowest for a lower-is-better metric) or the mean of several sets' scores."""

    parts: Sequence[Resamplable]
    how: Combine
    higher_is_better: bool

    @property
    def items(self) -> list[int]:
        return sorted({item for part in self.parts for item in part.items})

    def scores(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        column = {item: k for k, item in enumerate(self.items)}
        per_part = [part.scores(weights[:, [column[item] for item in part.items]]) for part in self.parts]
        return {system: combine(np.vstack([scores[system] for scores in per_part]), self.how, self.higher_is_better)
                for system in per_part[0]}
