"""Pair counts of a metric against human scores, compiled: Kendall's concordant, discordant and tied pairs, and
the tie-calibrated accuracy's exact optimum, for many permutation draws at once, without enumerating the pairs.

A permutation test computes a statistic on a thousand mixtures of two metrics for every pair of metrics; over
vectors of hundreds of scores (TED en-de by system: 13 vectors of 529, 1.8 million pairs a draw) enumerating the
pairs of each draw, or sorting their differences, takes minutes to hours. Here each vector is sorted once per
draw (by metric score, ties broken by human score descending, so that no two entries with equal metric scores
count as ordered) and the pairs are counted in one pass with a Fenwick tree over the human scores' ranks:
O(n log k) a vector instead of O(n^2).

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

import numpy as np
from numba import njit

_INSERTION = 24
"""Vectors up to this length are sorted by insertion."""


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


@njit(cache=True)
def _sorted(values: np.ndarray, index: np.ndarray, rank: np.ndarray, start: int, stop: int,
            xs: np.ndarray, rs: np.ndarray) -> None:
    """One vector's metric scores ascending, human ranks descending among equal metric scores (``index`` is in
    descending human order and both sorts are stable)."""
    n = stop - start
    if n <= _INSERTION:
        # a vector of one item's systems: an insertion sort in place, no allocation per vector
        for k in range(n):
            x, r = values[index[start + k]], rank[start + k]
            at = k
            while at > 0 and xs[at - 1] > x:
                xs[at], rs[at] = xs[at - 1], rs[at - 1]
                at -= 1
            xs[at], rs[at] = x, r
        return
    x = values[index[start:stop]]
    order = np.argsort(x, kind="mergesort")
    for k in range(n):
        xs[k] = x[order[k]]
        rs[k] = rank[start + order[k]]


@njit(cache=True)
def kendall_counts(draws: np.ndarray, index: np.ndarray, offsets: np.ndarray, rank: np.ndarray,
                   ranks: int) -> np.ndarray:
    """(draws, vectors, 5): concordant, discordant, tied in humans only, in the metric only, in both."""
    vectors = offsets.size - 1
    out = np.zeros((draws.shape[0], vectors, 5), dtype=np.int64)
    width = int(np.max(offsets[1:] - offsets[:-1])) if vectors else 0
    xs = np.empty(width)
    rs = np.empty(width, dtype=np.int64)
    tree = np.zeros(ranks + 1, dtype=np.int64)
    count = np.zeros(ranks, dtype=np.int64)
    for d in range(draws.shape[0]):
        for v in range(vectors):
            start, stop = offsets[v], offsets[v + 1]
            n = stop - start
            if n < 2:
                continue
            _sorted(draws[d], index, rank, start, stop, xs, rs)
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
            out[d, v, 0] = con
            out[d, v, 1] = total - con - gold_ties - metric_ties + both
            out[d, v, 2] = gold_ties - both
            out[d, v, 3] = metric_ties - both
            out[d, v, 4] = both
    return out


@njit(cache=True)
def _window(xs: np.ndarray, rs: np.ndarray, starts: np.ndarray, weight: np.ndarray, epsilon: float,
            tree: np.ndarray, count: np.ndarray) -> tuple[float, float, float]:
    """Weighted (concordant pairs, human-tied pairs) with a metric gap of at most ``epsilon``, and how many pairs
    have such a gap (unweighted)."""
    concordant = 0.0
    tied = 0.0
    pairs = 0.0
    for v in range(starts.size - 1):
        start, stop = starts[v], starts[v + 1]
        if stop - start < 2:
            continue
        tree[:] = 0
        count[:] = 0
        con = 0
        ties = 0
        first = start
        for j in range(start, stop):
            while xs[j] - xs[first] > epsilon:
                _add(tree, rs[first], -1)
                count[rs[first]] -= 1
                first += 1
            con += _below(tree, rs[j])
            ties += count[rs[j]]
            pairs += j - first
            _add(tree, rs[j], 1)
            count[rs[j]] += 1
        concordant += weight[v] * con
        tied += weight[v] * ties
    return concordant, tied, pairs


_ENUMERATED = 4096
"""An interval of thresholds with at most this many pairs' gaps inside is solved by sorting those gaps: deeper
splits around the optimum cost more than one pass that lists them."""


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
def calibrated_accuracy(draws: np.ndarray, index: np.ndarray, offsets: np.ndarray, rank: np.ndarray, ranks: int,
                        weight: np.ndarray) -> np.ndarray:
    """(draws,) the tie-calibrated accuracy's maximum over every threshold; ``weight`` per vector (a pair's weight
    in the mean over vectors)."""
    vectors = offsets.size - 1
    out = np.zeros(draws.shape[0])
    xs = np.empty(index.size)
    rs = np.empty(index.size, dtype=np.int64)
    tree = np.zeros(ranks + 1, dtype=np.int64)
    count = np.zeros(ranks, dtype=np.int64)
    stack = np.empty((256, 8))
    gaps = np.empty(_ENUMERATED)
    deltas = np.empty(_ENUMERATED)
    last = 0.0
    for d in range(draws.shape[0]):
        widest = 0.0
        for v in range(vectors):
            start, stop = offsets[v], offsets[v + 1]
            if stop - start < 2:
                continue
            _sorted(draws[d], index, rank, start, stop, xs[start:stop], rs[start:stop])
            widest = max(widest, xs[stop - 1] - xs[start])
        # every concordant pair; at threshold 0 the ties are the metric's exact ties
        total, _, _ = _window(xs, rs, offsets, weight, np.inf, tree, count)
        c0, t0, u0 = _window(xs, rs, offsets, weight, 0.0, tree, count)
        c1, t1, u1 = _window(xs, rs, offsets, weight, widest, tree, count)
        best, at = total - c0 + t0, 0.0
        if total - c1 + t1 > best:
            best, at = total - c1 + t1, widest
        # the previous draw's best threshold is near this one's: a high value early prunes most intervals
        if 0.0 < last < widest:
            cl, tl, _ = _window(xs, rs, offsets, weight, last, tree, count)
            if total - cl + tl > best:
                best, at = total - cl + tl, last
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
            cm, tm, um = _window(xs, rs, offsets, weight, middle, tree, count)
            if total - cm + tm > best:
                best, at = total - cm + tm, middle
            if top + 2 > stack.shape[0]:
                grown = np.empty((stack.shape[0] * 2, 8))
                grown[:top] = stack[:top]
                stack = grown
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = middle, cm, tm, um
            stack[top, 4], stack[top, 5], stack[top, 6], stack[top, 7] = b, cb, tb, ub
            stack[top + 1, 0], stack[top + 1, 1], stack[top + 1, 2], stack[top + 1, 3] = a, ca, ta, ua
            stack[top + 1, 4], stack[top + 1, 5], stack[top + 1, 6], stack[top + 1, 7] = middle, cm, tm, um
            top += 2
        out[d] = best
        last = at
    return out
