"""Significance statistics that the evaluation of metrics (``filters``) and of QE systems (``qe``) both use.

- **Resampling**: :func:`resample_counts` draws bootstrap resamples of ``n`` units (items, segments) as count
  matrices, so a resampled sum over units is one matrix product ``counts @ values``; every statistic computed
  from the same matrices is paired.
- **Pairwise tests between systems**: :class:`PairwiseTest` holds one-sided p-values ``p[i, j]`` of "system i is
  better than system j". :func:`wilcoxon_rank_sum` is WMT's test for DA (Graham et al.; the WMT findings): a
  one-sided Wilcoxon rank-sum (Mann-Whitney U) test on each system's segment z-scores, unpaired because each
  system is judged on its own sample of segments. It calls scipy's ``mannwhitneyu`` with the normal
  approximation and continuity correction, R's ``wilcox.test`` default that WMT's scripts use; on newstest2021
  de-en it reproduces every star of WMT's own ``ad-DA-diff-wilcoxon-rs-deen.csv`` (380 of 380 ordered pairs).
  :func:`paired_bootstrap_test` is the option for those who prefer a paired test: the segments judged for both
  systems, resampled, and the share of resamples in which the difference of the means is not positive.
- **Ranks with shared places**: :func:`significance_ranks` turns point values and paired resamples into ranks
  where systems (or metrics) that are not significantly different share a rank, after ``AssignRanks`` of
  google-research/mt-metrics-eval (the WMT metrics task's clusters): entries sorted best first; a new rank starts
  at an entry that some entry of the current rank beats significantly.
- **Disagreement**: :func:`disagreeing_pairs` lists the pairs that two rankings order the opposite way, each
  with a strict rank difference on both sides (Xiang et al. 2022's disagreement number is their count). Pairs
  that share a rank on either side are not a disagreement: one side has no firm order to contradict.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

ALPHA = 0.05
RESAMPLES = 1000
# Draws per chunk: bounds the (chunk x units) count matrix to a few MB whatever the number of units.
DRAWS_PER_CHUNK = 1 << 20

TestMethod = Literal["wilcoxon", "bootstrap", "imported"]


def resample_counts(units: int, resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Bootstrap resamples of ``units`` units as (chunk x units) float count matrices, ``resamples`` rows in all.

    Reproducible for a given generator state: chunk sizes depend only on ``units``, and each chunk draws
    ``rng.integers(0, units, size=(chunk, units))``.
    """
    chunk = max(1, min(resamples, DRAWS_PER_CHUNK // max(units, 1)))
    for start in range(0, resamples, chunk):
        rows = min(chunk, resamples - start)
        draws = rng.integers(0, units, size=(rows, units))
        draws += (np.arange(rows) * units)[:, None]
        yield np.bincount(draws.ravel(), minlength=rows * units).reshape(rows, units).astype(np.float64)


def share_at_least(best: np.ndarray, other: np.ndarray) -> float:
    """Share of resamples in which ``other`` is at least as good as ``best`` (higher is better): the one-sided
    p-value of "best is better than other". Resamples where either is undefined (NaN) are left out."""
    present = ~(np.isnan(best) | np.isnan(other))
    if not present.any():
        return math.nan
    return float(np.mean(other[present] >= best[present]))


def significance_ranks(point: Sequence[float] | np.ndarray, samples: np.ndarray | None,
                       alpha: float = ALPHA) -> list[int | None]:
    """Ranks (1 = best; higher values are better) where entries not significantly different share a rank.

    ``samples`` is (resamples x entries), the entries evaluated on the same resamples; entry i beats entry j
    significantly when j is at least as good as i in no more than ``alpha`` of them (:func:`share_at_least`).
    Without samples every distinct point value has its own rank (equal values share one). An entry without a
    value (NaN) has no rank (None). Ties in the point values keep the given order, so callers pass entries in
    a stable order (by name).
    """
    values = np.asarray(point, dtype=float)
    order = [int(j) for j in np.argsort(-values, kind="stable") if not np.isnan(values[j])]
    ranks: list[int | None] = [None] * values.size
    rank, start = 1, 0
    for position, j in enumerate(order):
        if position > 0:
            group = order[start:position]
            if samples is None:
                beaten = values[group[-1]] > values[j]
            else:
                beaten = any(share_at_least(samples[:, i], samples[:, j]) <= alpha for i in group)
            if beaten:
                rank, start = rank + 1, position
        ranks[j] = rank
    return ranks


def disagreeing_pairs(first: Mapping[str, int | None], second: Mapping[str, int | None]) -> list[tuple[str, str]]:
    """The pairs (a, b) of names ranked in both where ``first`` puts a strictly above b and ``second`` puts b
    strictly above a, or the other way round; each pair once, as (better in first, better in second)."""
    names = [name for name in first if first[name] is not None and second.get(name) is not None]
    pairs = []
    for a, b in combinations(names, 2):
        ra, rb, sa, sb = first[a], first[b], second[a], second[b]
        assert ra is not None and rb is not None and sa is not None and sb is not None
        if ra < rb and sa > sb:
            pairs.append((a, b))
        elif ra > rb and sa < sb:
            pairs.append((b, a))
    return pairs


@dataclass(frozen=True)
class PairwiseTest:
    """One-sided p-values between systems: ``p[i, j]`` of "``names[i]`` is better than ``names[j]``".

    NaN where the pair was not tested (the diagonal; pairs without shared segments). An imported file reports
    thresholds instead of p-values (WMT's stars: p < 0.05, 0.01, 0.001): there ``p`` holds the smallest threshold
    the difference passed (1 when it passed none), and :meth:`better` reads it as "p below this".
    """

    names: list[str]
    p: np.ndarray
    method: TestMethod

    def index(self, name: str) -> int:
        return self.names.index(name)

    def better(self, a: str, b: str, alpha: float = ALPHA) -> bool:
        """Whether ``a`` is significantly better than ``b``."""
        if a not in self.names or b not in self.names:
            return False
        value = self.p[self.index(a), self.index(b)]
        return bool(not np.isnan(value) and (value < alpha if self.method != "imported" else value <= alpha))

    def separates(self, higher: str, lower: str, alpha: float = ALPHA) -> bool:
        """Whether the system with the higher human score, ``higher``, is significantly better than ``lower``.

        Only this direction counts: when the test finds the lower-scored system significantly better (a rank
        test can disagree with the means), the two kinds of human evidence contradict each other and the pair
        is not one the humans firmly order.
        """
        return self.better(higher, lower, alpha)


def wilcoxon_rank_sum(scores: Mapping[str, Sequence[float] | np.ndarray]) -> PairwiseTest:
    """WMT's DA significance: for every ordered pair, the one-sided Wilcoxon rank-sum test that the first
    system's segment scores are higher (scipy's ``mannwhitneyu``, asymptotic with continuity correction)."""
    from scipy.stats import mannwhitneyu

    names = list(scores)
    arrays = [np.asarray(scores[name], dtype=float) for name in names]
    p = np.full((len(names), len(names)), np.nan)
    for i, j in ((i, j) for i in range(len(names)) for j in range(len(names)) if i != j):
        if arrays[i].size and arrays[j].size:
            p[i, j] = float(mannwhitneyu(arrays[i], arrays[j], alternative="greater", method="asymptotic").pvalue)
    return PairwiseTest(names, p, "wilcoxon")


def paired_bootstrap_test(names: Sequence[str], segments: np.ndarray, *, resamples: int = RESAMPLES,
                          seed: int | None = 0) -> PairwiseTest:
    """A paired bootstrap between every two systems over the segments both were judged on.

    ``segments`` is (segments x systems) with NaN where a system has no score. ``p[i, j]`` is the share of
    resamples in which the mean difference of i over j on their shared segments is not positive.
    """
    names = list(names)
    k = len(names)
    present = ~np.isnan(segments)
    values = np.nan_to_num(segments)
    left, right = np.triu_indices(k, 1)
    both = present[:, left] & present[:, right]  # (segments x pairs)
    difference = np.where(both, values[:, left] - values[:, right], 0.0)
    counts = both.astype(np.float64)
    not_positive = np.zeros(left.size)
    not_negative = np.zeros(left.size)
    drawn = np.zeros(left.size)
    rng = np.random.default_rng(seed)
    for weights in resample_counts(segments.shape[0], resamples, rng):
        sums, shared = weights @ difference, weights @ counts
        defined = shared > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = sums / shared
        not_positive += ((mean <= 0) & defined).sum(axis=0)
        not_negative += ((mean >= 0) & defined).sum(axis=0)
        drawn += defined.sum(axis=0)
    p = np.full((k, k), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        tested = both.any(axis=0)
        p[left[tested], right[tested]] = (not_positive / drawn)[tested]
        p[right[tested], left[tested]] = (not_negative / drawn)[tested]
    return PairwiseTest(names, p, "bootstrap")
