"""sacrebleu's TER edit count of one hypothesis against one reference, compiled, and the same count.

TER is the slowest of the sacrebleu metrics by far (about 1.6 ms a pair on this machine, against 0.08 ms for
BLEU): its shift search (``lib_ter._shift``) runs the beam edit distance (``lib_ter.BeamEditDistance``) for
every candidate shift, in plain Python. A table of reference sets on WMT19 en-de needs 144,000 distinct
pairs; a rewrite in plain Python without sacrebleu's per-cell tuples still took 0.7 ms a pair, about 100 s
of CPU, most of the time target. This is sacrebleu's algorithm step for step, compiled with numba on word
ids (words are equal exactly when their ids are):

- the shift search of ``lib_ter.translation_edit_rate`` and ``_shift``: the matching word sequences in
  ``_find_shifted_pairs``' order, its filters (the hypothesis words wrong, the reference words wrong, no
  shift within the sequence), its target positions from the alignment of ``trace_to_alignment`` of the
  flipped trace, its ranking of candidates (gain, then length, then the earliest start, then the earliest
  target; the first of equals kept), its limits (``_MAX_SHIFT_SIZE``, ``_MAX_SHIFT_DIST``, and
  ``_MAX_SHIFT_CANDIDATES`` checked where sacrebleu checks it: a shift found at the limit is not made);
- the beam edit distance of ``BeamEditDistance._edit_distance``: the band around the pseudo-diagonal (wider
  for lengths far apart), cells outside it infinite, and the preference among equal costs (substitution or
  match, then deletion, then insertion), which decides the trace, hence the alignment, hence the count.

One deviation, which changes no count: sacrebleu keeps computed rows in a cache by hypothesis prefix; here
each distance is computed whole (a row depends only on the prefix, the reference and the hypothesis length,
which every shift keeps, so a cached row equals a recomputed one; compiled, recomputing is cheaper than a
trie). The limits are sacrebleu's, checked against its module at import (the compiled code keeps them).
``tests/test_pair_statistics.py`` checks the counts against sacrebleu's on WMT19 en-de outputs and on the
edge cases. numba compiles the functions on their first call and keeps the machine code beside this file
(``cache=True``), so later processes load it.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from sacrebleu.metrics import lib_ter

if not lib_ter._COST_INS == lib_ter._COST_DEL == lib_ter._COST_SUB == 1:
    raise ImportError("sacrebleu's TER no longer costs 1 per edit: filters.metrics.ter_edits needs updating")

_INFINITY = 10**16
_BEAM_WIDTH = 25
_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_MAX_SHIFT_CANDIDATES = 1000
if (lib_ter._INT_INFINITY, lib_ter._BEAM_WIDTH, lib_ter._MAX_SHIFT_SIZE, lib_ter._MAX_SHIFT_DIST,
        lib_ter._MAX_SHIFT_CANDIDATES) != (_INFINITY, _BEAM_WIDTH, _MAX_SHIFT_SIZE, _MAX_SHIFT_DIST,
                                           _MAX_SHIFT_CANDIDATES):
    raise ImportError("sacrebleu's TER limits changed: filters.metrics.ter_edits needs updating")
_MATCH, _SUBSTITUTE, _DELETE, _INSERT, _UNDEFINED = 0, 1, 2, 3, 4
"""The edit operations (sacrebleu's ``_OP_NOP``, ``_OP_SUB``, ``_OP_DEL``, ``_OP_INS``, ``_OP_UNDEF``):
deletion consumes a hypothesis word, insertion a reference word."""


class Vocabulary:
    """Word ids for the compiled search: one id per distinct word, for as many texts as share it."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}

    def ids(self, words: list[str]) -> np.ndarray:
        ids = self._ids
        return np.array([ids.setdefault(word, len(ids)) for word in words], dtype=np.int64)


def ter_edits(words_hyp: list[str], words_ref: list[str]) -> tuple[int, int]:
    """(edits, reference length) as sacrebleu's ``lib_ter.translation_edit_rate`` counts them."""
    vocabulary = Vocabulary()
    return ter_edit_ids(vocabulary.ids(words_hyp), vocabulary.ids(words_ref))


def ter_edit_ids(hypothesis: np.ndarray, reference: np.ndarray) -> tuple[int, int]:
    """:func:`ter_edits` of word ids (int64 arrays from one :class:`Vocabulary`)."""
    if len(reference) == 0:
        return len(hypothesis), 0
    return int(_translation_edit_rate(hypothesis, reference)), len(reference)


@njit(cache=True)
def _beam(n_h: int, n_r: int) -> tuple[float, int]:
    """The length ratio and the beam width of ``_edit_distance``."""
    ratio = n_r / n_h if n_h > 0 else 1.0
    beam = _BEAM_WIDTH
    if _BEAM_WIDTH < ratio / 2:
        beam = int(np.ceil(ratio / 2 + _BEAM_WIDTH))
    return ratio, beam


@njit(cache=True)
def _band(i: int, n_h: int, n_r: int, ratio: float, beam: int) -> tuple[int, int]:
    """The columns row ``i`` computes: ``range(low, high)``."""
    diagonal = int(np.floor(i * ratio))
    low = max(0, diagonal - beam)
    high = n_r + 1 if i == n_h else min(n_r + 1, diagonal + beam)
    return low, high


@njit(cache=True)
def _distance(hyp: np.ndarray, ref: np.ndarray) -> int:
    """The beam edit distance alone (what a candidate shift is ranked by): the minimum needs no preference."""
    n_h, n_r = len(hyp), len(ref)
    ratio, beam = _beam(n_h, n_r)
    previous = np.arange(n_r + 1, dtype=np.int64)
    current = np.empty(n_r + 1, dtype=np.int64)
    for i in range(1, n_h + 1):
        low, high = _band(i, n_h, n_r, ratio, beam)
        current[:] = _INFINITY
        word = hyp[i - 1]
        first = low
        if first == 0:
            current[0] = previous[0] + 1
            first = 1
        for j in range(first, high):
            best = previous[j - 1] + (0 if word == ref[j - 1] else 1)
            if best > _INFINITY:
                best = _INFINITY
            if previous[j] + 1 < best:
                best = previous[j] + 1
            if current[j - 1] + 1 < best:
                best = current[j - 1] + 1
            current[j] = best
        previous, current = current, previous
    return int(previous[n_r])


@njit(cache=True)
def _trace(hyp: np.ndarray, ref: np.ndarray) -> tuple[int, np.ndarray]:
    """The beam edit distance and its trace of operations, first to last, as ``_edit_distance`` chooses."""
    n_h, n_r = len(hyp), len(ref)
    ratio, beam = _beam(n_h, n_r)
    costs = np.full((n_h + 1, n_r + 1), _INFINITY, dtype=np.int64)
    ops = np.full((n_h + 1, n_r + 1), _UNDEFINED, dtype=np.int8)
    for j in range(n_r + 1):
        costs[0, j] = j
        ops[0, j] = _INSERT
    for i in range(1, n_h + 1):
        low, high = _band(i, n_h, n_r, ratio, beam)
        word = hyp[i - 1]
        for j in range(low, high):
            if j == 0:
                costs[i, 0] = costs[i - 1, 0] + 1
                ops[i, 0] = _DELETE
                continue
            best, op = _INFINITY, _UNDEFINED
            if word == ref[j - 1]:
                if costs[i - 1, j - 1] < best:
                    best, op = costs[i - 1, j - 1], _MATCH
            elif costs[i - 1, j - 1] + 1 < best:
                best, op = costs[i - 1, j - 1] + 1, _SUBSTITUTE
            if costs[i - 1, j] + 1 < best:
                best, op = costs[i - 1, j] + 1, _DELETE
            if costs[i, j - 1] + 1 < best:
                best, op = costs[i, j - 1] + 1, _INSERT
            costs[i, j] = best
            ops[i, j] = op
    trace = np.empty(n_h + n_r, dtype=np.int8)
    steps = 0
    i, j = n_h, n_r
    while i > 0 or j > 0:
        op = ops[i, j]
        trace[steps] = op
        steps += 1
        if op == _MATCH or op == _SUBSTITUTE:
            i -= 1
            j -= 1
        elif op == _INSERT:
            j -= 1
        elif op == _DELETE:
            i -= 1
        else:
            raise ValueError("an undefined operation on the trace")
    return int(costs[n_h, n_r]), trace[:steps][::-1].copy()


@njit(cache=True)
def _alignment(trace: np.ndarray, n_h: int, n_r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``trace_to_alignment`` of the flipped trace: each reference position's hypothesis position (-1: before
    the first), and which hypothesis and reference words are wrong."""
    align = np.full(n_r, -1, dtype=np.int64)
    hyp_err = np.zeros(n_h, dtype=np.int64)
    ref_err = np.zeros(n_r, dtype=np.int64)
    pos_h, pos_r = -1, -1
    for op in trace:
        if op == _MATCH or op == _SUBSTITUTE:
            pos_h += 1
            pos_r += 1
            align[pos_r] = pos_h
            if op == _SUBSTITUTE:
                hyp_err[pos_h] = 1
                ref_err[pos_r] = 1
        elif op == _DELETE:  # flipped: an insertion into the reference
            pos_h += 1
            hyp_err[pos_h] = 1
        else:  # _INSERT, flipped: a deletion from the reference
            pos_r += 1
            align[pos_r] = pos_h
            ref_err[pos_r] = 1
    return align, ref_err, hyp_err


@njit(cache=True)
def _perform_shift(words: np.ndarray, start: int, length: int, target: int) -> np.ndarray:
    """``lib_ter._perform_shift``: the ``length`` words at ``start`` moved before ``target``."""
    n = len(words)
    moved = words[start:start + length]
    if target < start:
        return np.concatenate((words[:target], moved, words[target:start], words[start + length:]))
    if target > start + length:
        return np.concatenate((words[:start], words[start + length:target], moved, words[target:]))
    end = min(length + target, n)
    return np.concatenate((words[:start], words[start + length:end], moved, words[end:]))


@njit(cache=True)
def _shift(hyp: np.ndarray, ref: np.ndarray, checked: int) -> tuple[int, np.ndarray, int]:
    """``lib_ter._shift``: the best shift's gain and the shifted words (0 and the words when none gains),
    and the candidates checked so far."""
    n_h, n_r = len(hyp), len(ref)
    pre_score, trace = _trace(hyp, ref)
    align, ref_err, hyp_err = _alignment(trace, n_h, n_r)
    found = False
    best_score, best_length, best_start, best_target = 0, 0, 0, 0
    best_words = hyp
    stop = False
    for start_h in range(n_h):
        if stop:
            break
        for start_r in range(n_r):
            if stop:
                break
            if abs(start_r - start_h) > _MAX_SHIFT_DIST:
                continue
            length = 0
            while length < _MAX_SHIFT_SIZE and hyp[start_h + length] == ref[start_r + length]:
                length += 1
                consumed = n_h == start_h + length or n_r == start_r + length
                # one matching sequence (start_h, start_r, length), as _find_shifted_pairs yields it
                if hyp_err[start_h:start_h + length].sum() != 0 and ref_err[start_r:start_r + length].sum() != 0 \
                        and not (start_h <= align[start_r] < start_h + length):
                    previous_target = -1
                    for offset in range(-1, length):
                        if start_r + offset == -1:
                            target = 0
                        elif start_r + offset < n_r:
                            target = align[start_r + offset] + 1
                        else:
                            break
                        if target == previous_target:
                            continue
                        previous_target = target
                        shifted = _perform_shift(hyp, start_h, length, target)
                        score = pre_score - _distance(shifted, ref)
                        checked += 1
                        if not found or (score, length, -start_h, -target) > (best_score, best_length, -best_start,
                                                                               -best_target):
                            found = True
                            best_score, best_length, best_start, best_target = score, length, start_h, target
                            best_words = shifted
                    if checked >= _MAX_SHIFT_CANDIDATES:
                        stop = True
                        break
                if consumed:
                    break
    if not found:
        return 0, hyp, checked
    return best_score, best_words, checked


@njit(cache=True)
def _translation_edit_rate(hyp: np.ndarray, ref: np.ndarray) -> int:
    """``lib_ter.translation_edit_rate``'s edits for a non-empty reference: shifts while one gains (unless
    the candidates ran out), plus the remaining distance."""
    shifts, words, checked = 0, hyp, 0
    while True:
        delta, shifted, checked = _shift(words, ref, checked)
        if checked >= _MAX_SHIFT_CANDIDATES or delta <= 0:
            break
        shifts += 1
        words = shifted
    return shifts + _distance(words, ref)
