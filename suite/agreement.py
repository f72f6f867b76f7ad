"""How well a metric agrees with human scores, as the WMT metrics task measures it since 2023: pure arithmetic on
score matrices, equal to google-research/mt-metrics-eval's functions (``stats.py``, ``pce.py``,
``tau_optimization.py``) on the same vectors, and vectorised.

Every function takes ``gold``, the human scores, and ``metric``, a metric's scores, as (systems, items) arrays
(system level: one item). A missing human score is NaN and leaves its entry out, as mt-metrics-eval's
``filter_gold_nones`` does; metric scores are all present. Higher is better in both (negate TER and MQM errors
before). ``Grouping`` says over which vectors a statistic is computed before the mean (mt-metrics-eval's
``average_by``): one vector of every score, one per item, one per system; vectors of fewer than two scores and
statistics that are undefined on a vector (NaN: a constant vector for Pearson and tau-b) are left out of the mean,
and the mean of none is 0, as there.

- :func:`tie_calibrated_accuracy` is ``KendallWithTiesOpt(variant='acc23')`` with ``sample_rate=1.0``: pairwise
  accuracy where a pair is right when metric and humans order it the same way or both call it a tie, the metric's
  tie threshold ε chosen to maximise it. mt-metrics-eval samples a tenth of the pairs by default because its exact
  search walks every pair in Python; here every pair is counted (the optimum is exact), for one value and its
  threshold as for the draws of a permutation test, without enumerating the pairs (:mod:`suite.pair_counts`).
- :func:`correlation` is Pearson, Kendall's tau-b (``scipy.stats.kendalltau``'s value, from the same pair counts
  as the ``23`` variant of ``KendallVariants``: ties in both count as agreement, a tie in one as disagreement;
  counted by :mod:`suite.pair_counts` in O(n log n) a vector).
- :func:`soft_pairwise_accuracy` is ``PairwiseConfidenceError``: 1 - mean |p_human - p_metric| over system pairs,
  the p-values of "system i is better than j" from a paired permutation test over segments (``pce.py``: 1,000
  sign flips, seed 4, float32, as there, so the values are the same).
- :func:`compare` is ``CompareMetrics``: every metric's value, ``PermutationSigDiff`` between every two (the
  metrics' z-scored scores swapped entry by entry at random, 1,000 times, the statistic recomputed on both
  mixtures: ε is calibrated again on each, as there), and ``AssignRanks``' clusters. Its draws are numpy's seeded
  generator, not mt-metrics-eval's global ``np.random``, so p-values agree in distribution, not digit for digit.
- :func:`chance` is what a metric of random scores is expected to get (mt-metrics-eval#14 asks; no formula is
  published): 0 for the correlations, -(share of human ties) for tau-23, max(share of ties, half the untied
  pairs) for calibrated accuracy (a random metric's ε picks between calling every pair a tie and none), and
  1 - mean (p² + (1-p)²)/2 for soft pairwise accuracy (a random metric's p-value is uniform).
"""
from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from suite.domain import Grouping, Statistic
from suite.significance import ALPHA

PERMUTATIONS = 1000
SPA_PERMUTATIONS = 1000
SPA_SEED = 4
"""``pce.compute_pairwise_p_values``' seed: the same sign flips, so the same soft pairwise accuracy."""


@dataclass(frozen=True)
class Value:
    value: float
    epsilon: float | None = None
    """The chosen tie threshold (tie-calibrated accuracy), on the metric's own scale."""


def rows(matrix: np.ndarray, grouping: Grouping) -> np.ndarray:
    """(..., vectors, entries) from (..., systems, items): mt-metrics-eval's ``_Reshape`` (system-major when
    flat)."""
    if grouping is Grouping.NONE:
        return matrix.reshape(*matrix.shape[:-2], 1, matrix.shape[-2] * matrix.shape[-1])
    if grouping is Grouping.SYSTEM:
        return matrix
    return np.swapaxes(matrix, -1, -2)


def _mean(values: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """Mean over the last axis of the counted, defined values; 0 where there is none."""
    keep = counted & ~np.isnan(values)
    n = keep.sum(axis=-1)
    total = np.where(keep, values, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.maximum(n, 1), 0.0)


# --- correlations ------------------------------------------------------------------------------------------------

def _pearson(g: np.ndarray, mask: np.ndarray, m: np.ndarray) -> np.ndarray:
    """(draws, vectors) Pearson r; ``g``, ``mask`` (vectors, entries), ``m`` (draws, vectors, entries)."""
    count = mask.sum(axis=-1)
    safe = np.maximum(count, 1)
    gc = np.where(mask, g - np.where(mask, g, 0.0).sum(axis=-1, keepdims=True) / safe[:, None], 0.0)
    mean_m = np.where(mask, m, 0.0).sum(axis=-1, keepdims=True) / safe[:, None]
    mc = np.where(mask, m - mean_m, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (gc * mc).sum(axis=-1) / np.sqrt((gc * gc).sum(axis=-1) * (mc * mc).sum(axis=-1))
    constant_g = np.where(mask, g, -np.inf).max(axis=-1) == np.where(mask, g, np.inf).min(axis=-1)
    constant_m = np.where(mask, m, -np.inf).max(axis=-1) == np.where(mask, m, np.inf).min(axis=-1)
    return np.where(constant_g | constant_m, np.nan, np.clip(r, -1.0, 1.0))


@dataclass(frozen=True)
class _Ragged:
    """The entries with a human score of every vector, for :mod:`suite.pair_counts` (see there): flat positions
    in descending human order, vector by vector, and the human scores' dense ranks."""

    index: np.ndarray
    offsets: np.ndarray
    rank: np.ndarray
    ranks: int
    weight: np.ndarray
    """A pair's weight in the mean over vectors: 1 / (its vector's pairs x vectors with pairs)."""

    @classmethod
    def of(cls, g: np.ndarray, mask: np.ndarray) -> _Ragged:
        indices, ranks, offsets, pairs = [], [], [0], []
        width = g.shape[1]
        for v in range(g.shape[0]):
            present = np.flatnonzero(mask[v]).astype(np.int64)
            values = g[v, present]
            order = np.argsort(-values, kind="stable")
            _, dense = np.unique(values[order], return_inverse=True)
            indices.append(present[order] + v * width)
            ranks.append(dense.astype(np.int64))
            offsets.append(offsets[-1] + present.size)
            pairs.append(present.size * (present.size - 1) // 2)
        counts = np.array(pairs, dtype=float)
        with_pairs = max(int((counts > 0).sum()), 1)
        weight = np.where(counts > 0, 1.0 / (np.maximum(counts, 1) * with_pairs), 0.0)
        rank = np.concatenate(ranks) if ranks else np.zeros(0, dtype=np.int64)
        return cls(np.concatenate(indices) if indices else np.zeros(0, dtype=np.int64),
                   np.array(offsets, dtype=np.int64), rank, int(rank.max()) + 1 if rank.size else 1, weight)


def _kendall(ragged: _Ragged, first: np.ndarray, second: np.ndarray, swap: np.ndarray,
             variant: Statistic) -> np.ndarray:
    """(2, draws, vectors) tau-b or tau-23 of both mixtures of each draw (:func:`suite.pair_counts.kendall_counts`;
    ``first``, ``second`` flat (vectors x entries), ``swap`` (draws, vectors x entries))."""
    from suite.pair_counts import kendall_counts, union

    counts = kendall_counts(swap.astype(np.uint8), ragged.index, ragged.offsets, ragged.rank, ragged.ranks,
                            *union(ragged.index, ragged.offsets, first, second))
    con, dis, th, tm, tb = (c.astype(float) for c in np.moveaxis(counts, -1, 0))
    total = con + dis + th + tm + tb
    with np.errstate(invalid="ignore", divide="ignore"):
        if variant is Statistic.KENDALL_23:
            return np.where(total > 0, (con + tb - dis - th - tm) / total, np.nan)
        gold_ties, metric_ties = th + tb, tm + tb
        defined = (total > 0) & (gold_ties < total) & (metric_ties < total)
        return np.where(defined, (con - dis) / np.sqrt(total - metric_ties) / np.sqrt(total - gold_ties), np.nan)


def _single(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One flat vector as the mixture of itself with itself (first, second, swap), for the kernels of draws."""
    flat = np.ascontiguousarray(m.reshape(-1), dtype=float)
    return flat, flat, np.zeros((1, flat.size), dtype=bool)


def _correlations(statistic: Statistic, g: np.ndarray, mask: np.ndarray, m: np.ndarray,
                  ragged: _Ragged | None = None) -> np.ndarray:
    """(draws,) the mean over vectors; ``m`` (draws, vectors, entries)."""
    counted = mask.sum(axis=-1) >= 2
    if statistic is Statistic.PEARSON:
        values = _pearson(g, mask, m)
    else:
        values = np.stack([_kendall(ragged or _Ragged.of(g, mask), *_single(d), statistic)[0, 0] for d in m])
    return _mean(values, np.broadcast_to(counted, values.shape))


def correlation(statistic: Statistic, gold: np.ndarray, metric: np.ndarray, grouping: Grouping) -> float:
    """Pearson, Kendall tau-b or tau-23, averaged over the grouping's vectors (mt-metrics-eval's ``Pearson``,
    ``Kendall`` and ``KendallVariants(variant='23')`` of ``Correlation``)."""
    g = rows(gold, grouping)
    mask = ~np.isnan(g)
    return float(_correlations(statistic, g, mask, rows(metric, grouping)[None])[0])


# --- tie calibration -------------------------------------------------------------------------------------------

def _calibrated_point(ragged: _Ragged, flat: np.ndarray) -> Value:
    """The best accuracy over every tie threshold and the smallest threshold that reaches it, without enumerating
    the pairs (:func:`suite.pair_counts.calibrated_point`)."""
    from suite.pair_counts import calibrated_point, union

    flat = np.ascontiguousarray(flat, dtype=float)
    best, epsilon = calibrated_point(np.zeros(flat.size, dtype=np.uint8), ragged.index, ragged.offsets, ragged.rank,
                                     ragged.ranks, ragged.weight, *union(ragged.index, ragged.offsets, flat, flat))
    return Value(float(best), float(epsilon))


def _calibrated_values(ragged: _Ragged, first: np.ndarray, second: np.ndarray, swap: np.ndarray) -> np.ndarray:
    """(2, draws) the best accuracy of both mixtures of each draw (see :func:`_kendall`): :func:`_calibrated_point`'s
    value without its threshold (:func:`suite.pair_counts.calibrated_accuracy`)."""
    from suite.pair_counts import calibrated_accuracy, union

    return np.asarray(calibrated_accuracy(swap.astype(np.uint8), ragged.index, ragged.offsets, ragged.rank,
                                          ragged.ranks, ragged.weight,
                                          *union(ragged.index, ragged.offsets, first, second)))


def tie_calibrated_accuracy(gold: np.ndarray, metric: np.ndarray, grouping: Grouping) -> Value:
    """Pairwise accuracy with ties, ε optimised exactly over every pair (``KendallWithTiesOpt``, ``acc23``,
    ``sample_rate=1.0``); pairs whose human scores are both present, averaged over the grouping's vectors."""
    g = rows(gold, grouping)
    return _calibrated_point(_Ragged.of(g, ~np.isnan(g)), rows(metric, grouping).reshape(-1))


# --- soft pairwise accuracy ------------------------------------------------------------------------------------

def _signs(segments: int) -> np.ndarray:
    """``pce.compute_pairwise_p_values``' sign flips, drawn the same way."""
    rng = np.random.default_rng(SPA_SEED)
    flips = rng.random(size=(SPA_PERMUTATIONS, segments), dtype=np.float32)
    np.rint(flips, out=flips, casting="same_kind")
    flips *= 2.0
    flips -= 1.0
    return flips


def pairwise_p_values(segments: np.ndarray, flips: np.ndarray | None = None) -> np.ndarray:
    """p-values of "system i is better than j" for i < j (the rest NaN) from (..., systems, segments) scores by
    the paired permutation test of ``pce.py``."""
    flips = _signs(segments.shape[-1]) if flips is None else flips
    scores = segments.astype(np.float32)
    return _p_values(_flipped(scores, flips), scores.sum(axis=-1), flips.shape[0])


def _flipped(scores: np.ndarray, flips: np.ndarray) -> np.ndarray:
    """(..., permutations, systems) the sign-flipped sums: one product for every matrix, (permutations,
    segments) @ (segments, matrices x systems)."""
    lead, systems = scores.shape[:-2], scores.shape[-2]
    return np.moveaxis((flips @ scores.reshape(-1, scores.shape[-1]).T).reshape(flips.shape[0], *lead, systems),
                       0, -2)


def _p_values(partial: np.ndarray, totals: np.ndarray, permutations: int) -> np.ndarray:
    systems = partial.shape[-1]
    i, j = np.triu_indices(systems, 1)
    p = np.full((*partial.shape[:-2], systems, systems), np.nan)
    null = partial[..., :, i] - partial[..., :, j]
    test = (totals[..., i] - totals[..., j])[..., None, :]
    p[..., i, j] = (null >= test).sum(axis=-2) / permutations
    return p


def soft_pairwise_accuracy(gold: np.ndarray, metric: np.ndarray) -> float:
    """1 - mean |p_human - p_metric| over system pairs (``PairwiseConfidenceError``), on the items every system
    has a human score for."""
    complete = ~np.isnan(gold).any(axis=0)
    return float(_spa(pairwise_p_values(gold[:, complete]), metric[None, :, complete])[0])


def _spa(gold_p: np.ndarray, metrics: np.ndarray) -> np.ndarray:
    systems = gold_p.shape[0]
    i, j = np.triu_indices(systems, 1)
    flips = _signs(metrics.shape[-1])
    out = np.empty(metrics.shape[0])
    for start in range(0, metrics.shape[0], 50):
        p = pairwise_p_values(metrics[start:start + 50], flips)
        out[start:start + 50] = 1.0 - np.abs(gold_p[i, j] - p[:, i, j]).mean(axis=-1)
    return out


# --- one statistic, many draws ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Setting:
    """A statistic as asked: which, and over which vectors (system level: one item per system)."""

    statistic: Statistic
    grouping: Grouping = Grouping.NONE

    def __str__(self) -> str:
        return str(self.statistic) if self.grouping is Grouping.NONE else f"{self.statistic}/{self.grouping}"


class _Evaluator:
    """A setting's statistic on many metric matrices with the same human scores; what depends on the human
    scores alone is made once."""

    def __init__(self, setting: Setting, gold: np.ndarray) -> None:
        self.setting = setting
        self.gold = gold
        if setting.statistic is Statistic.SPA:
            self.complete = ~np.isnan(gold).any(axis=0)
            self.gold_p = pairwise_p_values(gold[:, self.complete])
        else:
            self.g = rows(gold, setting.grouping)
            self.mask = ~np.isnan(self.g)
            self.ragged = _Ragged.of(self.g, self.mask)

    def values(self, metrics: np.ndarray) -> list[Value]:
        """One value per (systems, items) matrix of ``metrics`` (draws, systems, items)."""
        statistic = self.setting.statistic
        if statistic is Statistic.SPA:
            return [Value(float(v)) for v in _spa(self.gold_p, metrics[:, :, self.complete])]
        if statistic is Statistic.ACC_EQ:
            # the point estimate with its threshold
            return [_calibrated_point(self.ragged, rows(m, self.setting.grouping).reshape(-1)) for m in metrics]
        out: list[Value] = []
        for start in range(0, metrics.shape[0], 100):
            m = rows(metrics[start:start + 100], self.setting.grouping)
            out += [Value(float(v)) for v in _correlations(statistic, self.g, self.mask, m, self.ragged)]
        return out

    def mixtures(self, first: np.ndarray, second: np.ndarray, swap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(draws,) the statistic of both mixtures of two (systems, items) matrices, ``first`` where ``swap`` is
        false and ``second`` where it is true, and the other way round."""
        statistic, grouping = self.setting.statistic, self.setting.grouping
        if statistic is Statistic.PEARSON:
            return (np.array([v.value for v in self.values(np.where(swap, second, first))]),
                    np.array([v.value for v in self.values(np.where(swap, first, second))]))
        if statistic is not Statistic.SPA:
            # both mixtures sorted from one order of both metrics' scores, every draw in one compiled call
            flat_first, flat_second = (np.ascontiguousarray(rows(x, grouping).reshape(-1)) for x in (first, second))
            flat_swap = rows(swap, grouping).reshape(swap.shape[0], -1)
            if statistic is Statistic.ACC_EQ:
                both = _calibrated_values(self.ragged, flat_first, flat_second, flat_swap)
            else:
                counted = np.broadcast_to(self.mask.sum(axis=-1) >= 2, (swap.shape[0], self.g.shape[0]))
                taus = _kendall(self.ragged, flat_first, flat_second, flat_swap, statistic)
                both = np.stack([_mean(taus[0], counted), _mean(taus[1], counted)])
            return both[0], both[1]
        # a sign-flipped sum is linear in the scores: the second mixture's sums are both matrices' sums less the
        # first's, one product for both mixtures
        keep = self.complete
        flips = _signs(int(keep.sum()))
        both = (first[:, keep] + second[:, keep]).astype(np.float32)
        both_partial, both_totals = _flipped(both, flips), both.sum(axis=-1)
        systems = self.gold_p.shape[0]
        i, j = np.triu_indices(systems, 1)
        out = np.empty((2, swap.shape[0]))
        for start in range(0, swap.shape[0], 50):
            a = np.where(swap[start:start + 50][:, :, keep], second[:, keep], first[:, keep]).astype(np.float32)
            partial, totals = _flipped(a, flips), a.sum(axis=-1)
            for k, (pk, tk) in enumerate(((partial, totals), (both_partial - partial, both_totals - totals))):
                p = _p_values(pk, tk, flips.shape[0])
                out[k, start:start + 50] = 1.0 - np.abs(self.gold_p[i, j] - p[:, i, j]).mean(axis=-1)
        return out[0], out[1]


def value(setting: Setting, gold: np.ndarray, metric: np.ndarray) -> Value:
    """One statistic of one metric."""
    return _Evaluator(setting, gold).values(metric[None])[0]


def chance(setting: Setting, gold: np.ndarray) -> float:
    """What a metric of random scores is expected to get (see the module's docstring)."""
    statistic = setting.statistic
    if statistic is Statistic.SPA:
        p = pairwise_p_values(gold[:, ~np.isnan(gold).any(axis=0)])
        upper = p[np.triu_indices(p.shape[0], 1)]
        return float(1.0 - np.mean((upper ** 2 + (1 - upper) ** 2) / 2))
    if statistic in (Statistic.PEARSON, Statistic.KENDALL):
        return 0.0
    g = rows(gold, setting.grouping)
    ragged = _Ragged.of(g, ~np.isnan(g))
    if not ragged.weight.any():
        return 0.0
    # a vector's human-tied pairs: those within each run of equal dense ranks (its entries are in human order)
    vector = np.repeat(np.arange(ragged.weight.size), np.diff(ragged.offsets))
    keys, runs = np.unique(vector * ragged.ranks + ragged.rank, return_counts=True)
    tied = float((ragged.weight[keys // ragged.ranks] * runs * (runs - 1) / 2).sum())
    if statistic is Statistic.KENDALL_23:
        return -tied
    return max(tied, (1.0 - tied) / 2)


# --- comparing metrics -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Compared:
    """Metrics in order of their value (best first, then by name), as ``CompareMetrics`` returns them."""

    metrics: list[str]
    values: list[Value]
    ranks: list[int]
    p: np.ndarray
    """p[i, j] (i < j): the p-value of "metric i is better than metric j" (NaN without a test)."""
    draws: int

    def p_vs_best(self, index: int) -> float | None:
        return None if index == 0 or self.draws == 0 else float(self.p[0, index])


def assign_ranks(p: np.ndarray, alpha: float = ALPHA) -> list[int]:
    """``AssignRanks``: metrics sorted best first; a new rank starts at a metric that some metric of the current
    rank beats significantly (p ≤ alpha)."""
    ranks, rank, start = [], 1, 0
    for i in range(p.shape[0]):
        if i > 0 and bool(np.any(p[start:i, i] <= alpha)):
            rank, start = rank + 1, i
        ranks.append(rank)
    return ranks


def _zscore(metric: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """``scipy.stats.zscore`` over the kept entries (``PermutationSigDiff`` standardises each metric so that a
    swap mixes like with like)."""
    kept = metric[keep]
    std = float(kept.std())
    centred: np.ndarray = metric - float(kept.mean())
    return centred / (std if std > 0 else 1.0)


def compare(setting: Setting, gold: np.ndarray, metrics: dict[str, np.ndarray], *, permutations: int = PERMUTATIONS,
            seed: int = 0, alpha: float = ALPHA,
            progress: Callable[[int, int], None] | None = None) -> Compared:
    """Every metric's value, and with ``permutations`` > 0 ``PermutationSigDiff`` between every two and their
    significance clusters (without: every metric its own rank by value, as ``CompareMetrics`` with k=0)."""
    evaluator = _Evaluator(setting, gold)
    names = sorted(metrics)
    stacked = np.stack([np.asarray(metrics[n], dtype=float) for n in names])
    point = [evaluator.values(m[None])[0] for m in stacked]  # one at a time: with the threshold
    order = sorted(range(len(names)), key=lambda k: (-point[k].value, names[k]))
    names = [names[k] for k in order]
    point = [point[k] for k in order]
    stacked = stacked[order]
    p = np.full((len(names), len(names)), np.nan)
    if permutations <= 0 or len(names) < 2:
        ranks = [1 + sum(1 for q in point if q.value > v.value) for v in point]
        return Compared(names, point, ranks, p, 0)
    # mt-metrics-eval standardises over the entries with human scores, except for the tie-calibrated accuracy,
    # which is handed the unfiltered vectors
    keep = np.ones(gold.shape, bool) if setting.statistic is Statistic.ACC_EQ else ~np.isnan(gold)
    z = [_zscore(m, keep) for m in stacked]
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    for done, (i, j) in enumerate(pairs):
        if progress is not None:
            progress(done, len(pairs))
        rng = np.random.default_rng([seed, *sorted((_name_seed(names[i]), _name_seed(names[j])))])
        swap = rng.integers(0, 2, size=(permutations, *gold.shape)).astype(bool)
        delta = point[i].value - point[j].value
        a, b = evaluator.mixtures(z[i], z[j], swap)
        p[i, j] = float(np.mean(a - b >= delta))
    return Compared(names, point, assign_ranks(p, alpha), p, permutations)


def _name_seed(name: str) -> int:
    """A metric's share of a pair's seed, so that a pair's draws do not depend on which other metrics came."""
    return zlib.crc32(name.encode("utf-8"))


def compare_all(settings: Sequence[Setting], gold: np.ndarray, metrics: dict[str, np.ndarray], *,
                permutations: int = PERMUTATIONS, seed: int = 0, alpha: float = ALPHA) -> dict[Setting, Compared]:
    return {s: compare(s, gold, metrics, permutations=permutations, seed=seed, alpha=alpha) for s in settings}
