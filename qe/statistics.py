"""Bootstrap intervals and paired significance for pairwise accuracy, resampling ITEMS.

Pairs of one item share a source sentence and usually the same outputs on one side, so they are not
independent: resampling pairs would make intervals too narrow. We resample items with replacement and take
all of each drawn item's pairs (a cluster bootstrap). Resampling is stratified by table row: each row's
items are drawn from that row only, as a test suite's composition by category is fixed by its authors, not
sampled; ``Total`` and ``weighed`` are computed from the same per-row resamples.

Speed comes from never touching pairs inside the loop: accuracy is a ratio of per-item sums (credit earned,
pairs counted), so one resample of a row is a vector of item draw counts ``w`` and its sums are ``w @ S``
with ``S`` the row's (items x 2K) matrix of per-item sums. A chunk of resamples is a (chunk x items) count
matrix from one ``bincount`` over the draws, and one matrix product gives all systems at once. All systems
are evaluated on the same resamples, which is what makes the comparison between them paired.

Significance (Koehn 2004's paired bootstrap, one-sided): system A beats system B significantly when B is at
least as good as A in no more than ``alpha`` of the resamples (p <= alpha), i.e. the one-sided ``1 - alpha``
percentile interval of their difference excludes zero. Each row ranks its systems with shared places
(:func:`suite.significance.significance_ranks`: best first, a new rank where a system of the current rank beats
the next significantly), and the systems of rank 1 are marked as best: the best system and those not
significantly worse than it (nor than another of rank 1). The ranks are decided on the same data they
describe, so they describe this suite; they are not a multiple-comparison-corrected claim.
"""
from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from suite.significance import resample_counts

CONFIDENCE = 0.95


def bootstrap_group_sums(values: np.ndarray, groups: list[np.ndarray], resamples: int,
                         rng: np.random.Generator) -> np.ndarray:
    """Column sums of ``values`` (items x M) over ``resamples`` item resamples of each group: (G, B, M).

    Reproducible for a given generator state: groups are drawn in order, chunk sizes depend only on the
    group size. The products are (chunk x items) by (items x 2K), tall and very narrow: multi-threaded BLAS
    gains nothing on them and, on a busy machine, loses several times over to thread synchronisation, so
    BLAS is held to one thread here.
    """
    result = np.empty((len(groups), resamples, values.shape[1]))
    with threadpool_limits(limits=1, user_api="blas"):
        _fill_group_sums(result, values, groups, resamples, rng)
    return result


def _fill_group_sums(result: np.ndarray, values: np.ndarray, groups: list[np.ndarray], resamples: int,
                     rng: np.random.Generator) -> None:
    for g, members in enumerate(groups):
        block = values[members]
        start = 0
        for weights in resample_counts(members.size, resamples, rng):
            result[g, start:start + weights.shape[0]] = weights @ block
            start += weights.shape[0]


def percentile_interval(samples: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Two-sided percentile interval, ignoring resamples where the statistic is undefined (NaN)."""
    present = samples[~np.isnan(samples)]
    if present.size == 0:
        return (float("nan"), float("nan"))
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(present, [tail, 100 - tail])
    return (float(low), float(high))
