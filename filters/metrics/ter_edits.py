"""sacrebleu's TER edit count of one hypothesis against one reference, a few times faster and the same.

TER is the slowest of the sacrebleu metrics by far (about 2 ms a pair on this machine, against 0.08 ms for
BLEU): nearly all of it is sacrebleu's beam edit distance (``lib_ter.BeamEditDistance._edit_distance``),
which its shift search calls for every candidate shift. That distance builds three (cost, operation)
tuples per matrix cell. This one keeps costs and operations in two plain lists per row and builds no
tuple in the inner loop; everything else is sacrebleu's: the shift search itself (``lib_ter._shift``,
called here), the beam around the pseudo-diagonal, the preference among equal costs (substitution or
match, then deletion, then insertion: it decides the trace, hence the alignment the shifts are searched
in, hence the count), the prefix cache of computed rows and its size limit. ``tests/test_ter_edits.py``
checks the counts against sacrebleu's on the WMT19 en-de systems and on the edge cases.
"""
from __future__ import annotations

import math

from sacrebleu.metrics import lib_ter

_INFINITY = lib_ter._INT_INFINITY
_DELETE, _INSERT, _MATCH, _SUBSTITUTE = lib_ter._OP_DEL, lib_ter._OP_INS, lib_ter._OP_NOP, lib_ter._OP_SUB

if not lib_ter._COST_INS == lib_ter._COST_DEL == lib_ter._COST_SUB == 1:
    raise ImportError("sacrebleu's TER no longer costs 1 per edit: filters.metrics.ter_edits needs updating")

Row = tuple[list[int], list[str]]
"""One row of the edit distance matrix: the cost and the chosen operation of each reference position."""


class EditDistance:
    """sacrebleu's ``BeamEditDistance`` of hypotheses against one reference: ``self(words) -> (distance,
    trace)``, with the same prefix cache (rows computed for a hypothesis prefix are reused)."""

    def __init__(self, words_ref: list[str]) -> None:
        self._ref = words_ref
        self._n_ref = len(words_ref)
        self._initial: Row = (list(range(self._n_ref + 1)), [_INSERT] * (self._n_ref + 1))
        self._cache: dict[str, tuple[dict, Row]] = {}  # type: ignore[type-arg]  # a trie: word -> (children, row)
        self._cache_size = 0

    def __call__(self, words_hyp: list[str]) -> tuple[int, str]:
        rows = [self._initial]
        node = self._cache
        for word in words_hyp:
            if word not in node:
                break
            node, row = node[word]
            rows.append(row)
        start = len(rows) - 1
        distance, trace = self._distance(words_hyp, start, rows)
        self._remember(words_hyp, start, rows)
        return distance, trace

    def _distance(self, words_h: list[str], start: int, rows: list[Row]) -> tuple[int, str]:
        """Fill ``rows`` from hypothesis position ``start`` on, as sacrebleu's ``_edit_distance`` does."""
        n_h, n_r, ref = len(words_h), self._n_ref, self._ref
        ratio = n_r / n_h if words_h else 1
        beam = math.ceil(ratio / 2 + lib_ter._BEAM_WIDTH) if lib_ter._BEAM_WIDTH < ratio / 2 else lib_ter._BEAM_WIDTH
        previous = rows[-1][0]
        infinity, undefined, match, substitute, delete, insert = (_INFINITY, lib_ter._OP_UNDEF, _MATCH, _SUBSTITUTE,
                                                                  _DELETE, _INSERT)
        for i in range(start + 1, n_h + 1):
            diagonal = math.floor(i * ratio)
            low = max(0, diagonal - beam)
            high = n_r + 1 if i == n_h else min(n_r + 1, diagonal + beam)
            costs = [infinity] * (n_r + 1)
            ops = [undefined] * (n_r + 1)
            word = words_h[i - 1]
            first = low
            if first == 0:
                costs[0] = previous[0] + 1
                ops[0] = delete
                first = 1
            left = costs[first - 1]
            for j in range(first, high):  # every edit costs 1 (checked at import)
                if word == ref[j - 1]:
                    best, op = previous[j - 1], match
                else:
                    best, op = previous[j - 1] + 1, substitute
                if best >= infinity:  # sacrebleu keeps the cell's infinity unless a cost is below it
                    best, op = infinity, undefined
                cost = previous[j] + 1
                if best > cost:
                    best, op = cost, delete
                if best > left + 1:
                    best, op = left + 1, insert
                costs[j] = left = best
                ops[j] = op
            rows.append((costs, ops))
            previous = costs
        trace: list[str] = []
        i, j = n_h, n_r
        while i > 0 or j > 0:
            op = rows[i][1][j]
            trace.append(op)
            if op == _SUBSTITUTE or op == _MATCH:
                i -= 1
                j -= 1
            elif op == _INSERT:
                j -= 1
            elif op == _DELETE:
                i -= 1
            else:
                raise ValueError(f"unknown operation {op!r}")
        return rows[-1][0][-1], "".join(reversed(trace))

    def _remember(self, words_hyp: list[str], start: int, rows: list[Row]) -> None:
        if self._cache_size >= lib_ter._MAX_CACHE_SIZE:
            return
        node = self._cache
        for word in words_hyp[:start]:
            node = node[word][0]
        for word, row in zip(words_hyp[start:], rows[start + 1:]):
            if word not in node:
                node[word] = ({}, row)
                self._cache_size += 1
            node = node[word][0]


def ter_edits(words_hyp: list[str], words_ref: list[str]) -> tuple[int, int]:
    """(edits, reference length) as sacrebleu's ``lib_ter.translation_edit_rate``: shifts while one lowers
    the edit distance (at most ``_MAX_SHIFT_CANDIDATES`` candidates in all), plus the remaining distance."""
    if not words_ref:
        return len(words_hyp), 0
    distance = EditDistance(words_ref)
    shifts, words, checked = 0, words_hyp, 0
    while True:
        delta, shifted, checked = lib_ter._shift(words, words_ref, distance, checked)
        if checked >= lib_ter._MAX_SHIFT_CANDIDATES or delta <= 0:
            break
        shifts += 1
        words = shifted
    return shifts + distance(words)[0], len(words_ref)
