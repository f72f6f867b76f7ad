"""Pair counts of a metric against human scores, compiled: Kendall's concordant, discordant and tied pairs, and
the tie-calibrated accuracy's exact optimum, for many permutation draws at once, without enumerating the pairs.

A permutation test computes a statistic on a thousand mixtures of two metrics for every pair of metrics; over
vectors of hundreds of scores (TED en-de by system: 13 vectors of 529, 1.8 million pairs a draw) enumerating the
pairs of each draw, or sorting their differences, takes minutes to hours. Here each vector is sorted once per
draw (by metric score, ties broken by human score descending, so that no two entries with equal metric scores
count as ordered) and the pairs are counted in one pass with a Fenwick tree over the human scores' ranks:
O(n log k) a vector instead of O(n^2). The draws are independent and run over the cores (numba's ``prange``):
on TED en-de, 1,000 draws of three metric pairs take half the time on the 2-core machine, the same values.

The tie-calibrated accuracy at threshold ε is the weighted count of pairs the metric orders as the humans do with
a gap above ε, plus the human-tied pairs with a gap of at most ε: ``C_total - C(ε) + T(ε)``, where ``C(ε)`` (the
concordant pairs a tie would lose) and ``T(ε)`` (the human ties it would win) are counted over a sliding window
of width ε. Its maximum over ε is found by branch and bound on ε: on an interval (a, b] the accuracy is at most
``C_total - C(a) + T(b)``; an interval whose bound does not beat the best value seen, or that holds no human tie
to win (the maximum is at a) or no concordant pair to lose (at b), is not split. This gives the same maximum as
sorting every pair's gap (every threshold is tried where the value can change), the value mt-metrics-eval's
``KendallWithTiesOpt(sample_rate=1.0)`` finds.

Vectors are ragged: ``index`` holds, vector after vector (``offsets``), the flat positions of the entries with a
human score, in descending order of the human score, and ``rank`` their human score's dense rank within the
vector (0 the lowest).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange


@njit(cache=True)
def _add(tree: np.ndarray, at: int, value: int) -> None:
    at += 1
    while at < tree.size:
        tree[at] += value
        at += at & -at


@njit(cache=True)
def _below(tree: np.ndarray, at: int) -> int:
    """How many counted entries have a rank below ``at``."""
    total = 0
    while at > 0:
        total += tree[at]
        at -= at & -at
    return total


def union(index: np.ndarray, offsets: np.ndarray, first: np.ndarray, second: np.ndarray) -> Union:
    """Both metrics' scores of every vector in one order, made once for all the draws of a permutation test."""
    k = np.arange(index.size, dtype=np.int64)
    vector = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    values = np.concatenate([first[index], second[index]])
    entries, vectors = np.concatenate([k, k]), np.concatenate([vector, vector])
    source = np.concatenate([np.zeros(index.size, np.uint8), np.ones(index.size, np.uint8)])
    order = np.lexsort((entries, values, vectors))
    return Union(entries[order], source[order], values[order])


class Union(NamedTuple):
    """The scores of two metrics, vector by vector, ascending, equal scores in descending human order (``index``'s
    order): a mixture of the two, sorted, is the subsequence of the entries it takes (O(n) a draw, no sort)."""

    entry: np.ndarray
    """Into ``index``: which entry a score is of."""
    source: np.ndarray
    """0: the first metric's score, 1: the second's."""
    value: np.ndarray


@njit(cache=True)
def _mixture(swap: np.ndarray, side: int, index: np.ndarray, offsets: np.ndarray, rank: np.ndarray,
             entry: np.ndarray, source: np.ndarray, scores: np.ndarray, xs: np.ndarray, rs: np.ndarray) -> None:
    """Every vector of one mixture sorted, the second metric's scores where ``swap`` is 1 (``side`` 0) or 0 (1): its
    metric scores ascending, human ranks descending among equal metric scores."""
    for v in range(offsets.size - 1):
        at = offsets[v]
        for u in range(2 * offsets[v], 2 * offsets[v + 1]):
            k = entry[u]
            if source[u] == swap[index[k]] ^ side:
                xs[at] = scores[u]
                rs[at] = rank[k]
                at += 1


@njit(cache=True)
def _kendall_vector(xs: np.ndarray, rs: np.ndarray, tree: np.ndarray, count: np.ndarray, out: np.ndarray) -> None:
    """One sorted vector's five counts (see :func:`kendall_counts`) into ``out``."""
    n = xs.size
    tree[:] = 0
    count[:] = 0
    con = 0
    gold_ties = 0
    for j in range(n):
        con += _below(tree, rs[j])  # earlier entries have a lower metric score or (equal) a higher rank
        gold_ties += count[rs[j]]
        _add(tree, rs[j], 1)
        count[rs[j]] += 1
    metric_ties = 0
    both = 0
    run = 1
    joint = 1
    for j in range(1, n + 1):
        if j < n and xs[j] == xs[j - 1]:
            run += 1
            joint = joint + 1 if rs[j] == rs[j - 1] else 1
            if rs[j] == rs[j - 1]:
                both += joint - 1
        else:
            metric_ties += run * (run - 1) // 2
            run = 1
            joint = 1
    total = n * (n - 1) // 2
    out[0] = con
    out[1] = total - con - gold_ties - metric_ties + both
    out[2] = gold_ties - both
    out[3] = metric_ties - both
    out[4] = both


@njit(cache=True, parallel=True)
def kendall_counts(swap: np.ndarray, index: np.ndarray, offsets: np.ndarray, rank: np.ndarray, ranks: int,
                   entry: np.ndarray, source: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """(2, draws, vectors, 5) for both mixtures of each draw (``swap``: draws x entries, see :func:`_mixture`):
    concordant, discordant, tied in humans only, in the metric only, in both."""
    vectors = offsets.size - 1
    out = np.zeros((2, swap.shape[0], vectors, 5), dtype=np.int64)
    for d in prange(swap.shape[0]):  # numba: the draws over the cores
        xs = np.empty(index.size)
        rs = np.empty(index.size, dtype=np.int64)
        tree = np.zeros(ranks + 1, dtype=np.int64)
        count = np.zeros(ranks, dtype=np.int64)
        for side in range(2):
            _mixture(swap[d], side, index, offsets, rank, entry, source, scores, xs, rs)
            for v in range(vectors):
                start, stop = offsets[v], offsets[v + 1]
                if stop - start >= 2:
                    _kendall_vector(xs[start:stop], rs[start:stop], tree, count, out[side, d, v])
    return out


@njit(cache=True)
def _prefix(rs: np.ndarray, starts: np.ndarray, below: np.ndarray, own: np.ndarray) -> None:
    """``below[p + v, r]``: how many entries of vector ``v`` before position ``p`` (in metric order) have a human
    rank below ``r``; ``own[v]``: the vector's (concordant, human-tied) pairs, counted the same way. With a few
    dozen human ranks (MQM: 35 values on TED en-de), one table a draw makes every threshold's pass two lookups an
    entry instead of three Fenwick operations."""
    for v in range(starts.size - 1):
        row = starts[v] + v
        below[row, :] = 0
        own[v, 0] = 0
        own[v, 1] = 0
        if starts[v + 1] - starts[v] < 2:
            continue  # not sorted, never counted
        for p in range(starts[v], starts[v + 1]):
            r = rs[p]
            own[v, 0] += below[row, r]
            own[v, 1] += below[row, r + 1] - below[row, r]
            for c in range(below.shape[1]):
                below[row + 1, c] = below[row, c] + (c > r)
            row += 1


@njit(cache=True)
def _window(xs: np.ndarray, rs: np.ndarray, starts: np.ndarray, weight: np.ndarray, epsilon: float,
            below: np.ndarray, own: np.ndarray) -> tuple[float, float, float]:
    """Weighted (concordant pairs, human-tied pairs) with a metric gap of at most ``epsilon``, and how many pairs
    have such a gap (unweighted): an entry's pairs are those between the window's first entry and it, that is its
    pairs with every earlier entry less those with the entries before the window (:func:`_prefix`'s table)."""
    concordant = 0.0
    tied = 0.0
    pairs = 0.0
    for v in range(starts.size - 1):
        start, stop = starts[v], starts[v + 1]
        if stop - start < 2:
            continue
        con = own[v, 0]
        ties = own[v, 1]
        first = start
        for j in range(start, stop):
            while xs[j] - xs[first] > epsilon:
                first += 1
            r = rs[j]
            lower = below[first + v, r]
            con -= lower
            ties -= below[first + v, r + 1] - lower
            pairs += j - first
        concordant += weight[v] * con
        tied += weight[v] * ties
    return concordant, tied, pairs


_ENUMERATED = 1024
"""An interval of thresholds with at most this many pairs' gaps inside is solved by sorting those gaps: deeper
splits around the optimum cost more than one pass that lists them. On TED en-de by system (100 draws of one
metric pair, CPU at load 9) 512 and 1,024 take 0.37 s, 4,096 0.47 s: sorting 4,096 gaps costs several passes."""


@njit(cache=True)
def _inside(xs: np.ndarray, rs: np.ndarray, starts: np.ndarray, weight: np.ndarray, a: float, b: float,
            gaps: np.ndarray, deltas: np.ndarray) -> int:
    """The pairs with a metric gap in (a, b]: their gaps and what a tie does to each (a human tie won: +weight; a
    concordant pair lost: -weight; a discordant one: 0)."""
    k = 0
    for v in range(starts.size - 1):
        near = starts[v]
        far = starts[v]
        for j in range(starts[v], starts[v + 1]):
            while xs[j] - xs[far] > b:
                far += 1
            while xs[j] - xs[near] > a:
                near += 1
            for i in range(far, near):
                gaps[k] = xs[j] - xs[i]
                deltas[k] = weight[v] if rs[i] == rs[j] else -weight[v] if rs[i] < rs[j] else 0.0
                k += 1
    return k


@njit(cache=True)
def _split(stack: np.ndarray, top: int, a: float, ca: float, ta: float, ua: float, middle: float, cm: float,
           tm: float, um: float, b: float, cb: float, tb: float, ub: float) -> np.ndarray:
    """Push the interval (a, b) as its two halves at ``top``, the right half below the left, so that the left is
    searched first; the stack grown (doubled) when full, and returned."""
    if top + 2 > stack.shape[0]:
        grown = np.empty((stack.shape[0] * 2, 8))
        grown[:top] = stack[:top]
        stack = grown
    stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = middle, cm, tm, um
    stack[top, 4], stack[top, 5], stack[top, 6], stack[top, 7] = b, cb, tb, ub
    stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3] = a, ca, ta, ua
    stack[top + 1, 4], stack[top + 1, 5], stack[top + 1, 6], stack[top + 1, 7] = middle, cm, tm, um
    return stack


@njit(cache=True)
def _best(xs: np.ndarray, rs: np.ndarray, offsets: np.ndarray, weight: np.ndarray, below: np.ndarray,
          own: np.ndarray, last: float, gaps: np.ndarray, deltas: np.ndarray) -> tuple[float, float, float]:
    """One sorted mixture's best accuracy over every threshold, a threshold that reaches it, and the accuracy of
    every concordant pair (the value with no tie at all but the humans'), by branch and bound (module docstring);
    ``last``: a threshold to try first (the previous draw's)."""
    widest = 0.0
    for v in range(offsets.size - 1):
        start, stop = offsets[v], offsets[v + 1]
        if stop - start >= 2:
            widest = max(widest, xs[stop - 1] - xs[start])
    _prefix(rs, offsets, below, own)
    # every concordant pair; at threshold 0 the ties are the metric's exact ties
    total, _, _ = _window(xs, rs, offsets, weight, np.inf, below, own)
    c0, t0, u0 = _window(xs, rs, offsets, weight, 0.0, below, own)
    c1, t1, u1 = _window(xs, rs, offsets, weight, widest, below, own)
    best, at = total - c0 + t0, 0.0
    if total - c1 + t1 > best:
        best, at = total - c1 + t1, widest
    # the previous draw's best threshold is near this one's: a high value early prunes most intervals
    if 0.0 < last < widest:
        cl, tl, _ = _window(xs, rs, offsets, weight, last, below, own)
        if total - cl + tl > best:
            best, at = total - cl + tl, last
    stack = np.empty((256, 8))
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0.0, c0, t0, u0
    stack[0, 4], stack[0, 5], stack[0, 6], stack[0, 7] = widest, c1, t1, u1
    top = 1
    while top > 0:
        top -= 1
        a, ca, ta, ua = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        b, cb, tb, ub = stack[top, 4], stack[top, 5], stack[top, 6], stack[top, 7]
        if total - ca + tb <= best + 1e-13 or tb - ta <= 1e-15 or cb - ca <= 1e-15:
            continue  # nothing better inside, or monotone inside (its end already counted)
        if ub - ua <= _ENUMERATED:
            inside = _inside(xs, rs, offsets, weight, a, b, gaps, deltas)
            order = np.argsort(gaps[:inside])
            value = total - ca + ta
            for k in range(inside):
                value += deltas[order[k]]
                if (k + 1 == inside or gaps[order[k + 1]] != gaps[order[k]]) and value > best:
                    best, at = value, gaps[order[k]]
            continue
        middle = a + (b - a) / 2
        if middle <= a or middle >= b:
            continue
        cm, tm, um = _window(xs, rs, offsets, weight, middle, below, own)
        if total - cm + tm > best:
            best, at = total - cm + tm, middle
        stack = _split(stack, top, a, ca, ta, ua, middle, cm, tm, um, b, cb, tb, ub)
        top += 2
    return best, at, total


@njit(cache=True)
def _scratch(index: np.ndarray, offsets: np.ndarray, ranks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                           np.ndarray, np.ndarray, np.ndarray]:
    """The arrays one mixture's calibration works in, made once for all the draws."""
    vectors = offsets.size - 1
    return (np.empty(index.size), np.empty(index.size, dtype=np.int64),
            np.empty((index.size + vectors, ranks + 1), dtype=np.int32), np.empty((vectors, 2), dtype=np.int64),
            np.empty(_ENUMERATED), np.empty(_ENUMERATED))


_CHAINS = 8
"""The draws of a permutation test are calibrated in this many chains, in parallel over the cores (numba's
``prange``); within a chain each draw's search starts at the previous draw's threshold (a high value early prunes
most intervals). A fixed number, not the machine's cores, so that the values never depend on the machine: the
first draw of a chain starts cold, which changes a value by rounding at most (the same optimum, reached through
another threshold)."""


@njit(cache=True, parallel=True)
def calibrated_accuracy(swap: np.ndarray, index: np.ndarray, offsets: np.ndarray, rank: np.ndarray, ranks: int,
                        weight: np.ndarray, entry: np.ndarray, source: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """(2, draws) the tie-calibrated accuracy's maximum over every threshold, for both mixtures of each draw (see
    :func:`kendall_counts`); ``weight`` per vector (a pair's weight in the mean over vectors)."""
    draws = swap.shape[0]
    out = np.zeros((2, draws))
    per_chain = (draws + _CHAINS - 1) // _CHAINS
    for chain in prange(_CHAINS):  # numba: the chains over the cores
        xs, rs, below, own, gaps, deltas = _scratch(index, offsets, ranks)
        previous = np.zeros(2)
        for d in range(chain * per_chain, min(draws, (chain + 1) * per_chain)):
            for side in range(2):
                _mixture(swap[d], side, index, offsets, rank, entry, source, scores, xs, rs)
                out[side, d], previous[side], _ = _best(xs, rs, offsets, weight, below, own, previous[side], gaps,
                                                        deltas)
    return out


@njit(cache=True)
def calibrated_point(swap: np.ndarray, index: np.ndarray, offsets: np.ndarray, rank: np.ndarray, ranks: int,
                     weight: np.ndarray, entry: np.ndarray, source: np.ndarray,
                     scores: np.ndarray) -> tuple[float, float]:
    """One metric's best accuracy and the smallest threshold that reaches it (within 1e-12: mt-metrics-eval's
    threshold, the first in ascending order), ``entry``, ``source``, ``scores`` the metric's :func:`union` with
    itself. The smallest threshold is a pair's gap (or 0) where the accuracy first comes within 1e-12 of the best:
    the intervals are searched in ascending order, one whose bound stays below that is skipped, the first small
    enough is listed and swept; ``swap`` all 0 (one per flat position)."""
    xs, rs, below, own, gaps, deltas = _scratch(index, offsets, ranks)
    _mixture(swap, 0, index, offsets, rank, entry, source, scores, xs, rs)
    best, at, total = _best(xs, rs, offsets, weight, below, own, 0.0, gaps, deltas)
    target = best - 1e-12
    c0, t0, u0 = _window(xs, rs, offsets, weight, 0.0, below, own)
    if total - c0 + t0 >= target or at <= 0.0:
        return best, 0.0
    # (0, at] holds the threshold sought: A(at) reaches the target
    cb, tb, ub = _window(xs, rs, offsets, weight, at, below, own)
    stack = np.empty((256, 8))
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0.0, c0, t0, u0
    stack[0, 4], stack[0, 5], stack[0, 6], stack[0, 7] = at, cb, tb, ub
    top = 1
    while top > 0:
        top -= 1
        a, ca, ta, ua = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        b, cb, tb, ub = stack[top, 4], stack[top, 5], stack[top, 6], stack[top, 7]
        if total - ca + tb < target:
            continue  # no threshold inside reaches it
        middle = a + (b - a) / 2
        if middle <= a or middle >= b:
            if total - cb + tb >= target:
                return best, b  # b is the only float inside: every pair inside has that gap
            continue
        if ub - ua <= _ENUMERATED:
            inside = _inside(xs, rs, offsets, weight, a, b, gaps, deltas)
            order = np.argsort(gaps[:inside])
            value = total - ca + ta
            for k in range(inside):
                value += deltas[order[k]]
                if (k + 1 == inside or gaps[order[k + 1]] != gaps[order[k]]) and value >= target:
                    return best, gaps[order[k]]
            continue
        cm, tm, um = _window(xs, rs, offsets, weight, middle, below, own)
        stack = _split(stack, top, a, ca, ta, ua, middle, cm, tm, um, b, cb, tb, ub)
        top += 2
    return best, at
