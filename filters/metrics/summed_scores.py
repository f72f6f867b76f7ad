"""sacrebleu's corpus scores of many rows of summed statistics at once: the bootstrap's thousand resamples.

A table's bootstrap recomputes every system's corpus score on each of 1,000 resamples of segments: 22 systems x
30 rows of WMT19 en-de are 660,000 calls of sacrebleu's ``_compute_score_from_stats`` (36 us a BLEU score, 13 us
a chrF score on this machine: 11 s of a 2-minute target). Here the same arithmetic runs over all the rows of a
system at once, operation for operation in sacrebleu's order, so every score is the same float: basic
arithmetic is correctly rounded in numpy as in Python, and BLEU's logarithms and exponentials are Python's own
``math.log`` and ``math.exp`` element by element (numpy's differ from them in the last bit for a few percent of
arguments on this machine). Only the configurations tsqe makes are covered (``pair_statistics.SACREBLEU_CLASSES``:
BLEU with ``exp`` smoothing and effective order, chrF without epsilon smoothing, TER); :func:`summed_scores`
refuses others. ``tests/test_summed_scores.py`` checks equality with sacrebleu.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric as SacreMetric
from sacrebleu.utils import my_log

_EXP = np.frompyfunc(math.exp, 1, 1)
_LOG = np.frompyfunc(my_log, 1, 1)
"""sacrebleu's floored logarithm (``math.log``; -9999999999 for 0)."""

Scores = Callable[[np.ndarray], np.ndarray]


def summed_scores(metric: SacreMetric) -> Scores:
    """``totals -> scores``: the corpus score of each row of summed statistics, equal to ``metric``'s
    ``_compute_score_from_stats`` of that row (for chrF its ``_compute_f_score``)."""
    if isinstance(metric, BLEU) and metric.smooth_method == "exp" and metric.effective_order:
        order = metric.max_ngram_order
        return lambda totals: _bleu(totals, order)
    if isinstance(metric, CHRF) and not metric.eps_smoothing:
        order, factor = metric.order, metric.beta ** 2
        return lambda totals: _chrf(totals, order, factor)
    if isinstance(metric, TER):
        return _ter
    raise ValueError(f"no summed scores for {metric.get_signature()}: tsqe makes its metrics otherwise")


def _exp(values: np.ndarray) -> np.ndarray:
    return np.asarray(_EXP(values), dtype=float)


def _bleu(totals: np.ndarray, order: int) -> np.ndarray:
    """``BLEU.compute_bleu`` with ``exp`` smoothing and effective order."""
    sys_len, ref_len = totals[:, 0], totals[:, 1]
    correct, total = totals[:, 2:2 + order], totals[:, 2 + order:2 + 2 * order]
    short = sys_len < ref_len
    bp = np.ones(len(totals))
    penalised = short & (sys_len > 0)
    bp[short] = 0.0
    bp[penalised] = _exp(1 - ref_len[penalised] / sys_len[penalised])
    alive = np.ones(len(totals), dtype=bool)
    """Not yet past an order without n-grams (sacrebleu's ``break``)."""
    effective = np.full(len(totals), order)
    smooth = np.ones(len(totals))
    summed = np.zeros(len(totals))
    for n in range(order):
        alive &= total[:, n] != 0
        effective[alive] = n + 1
        zero = alive & (correct[:, n] == 0)
        matched = alive & ~zero
        smooth[zero] *= 2
        precision = np.zeros(len(totals))
        precision[zero] = 100. / (smooth[zero] * total[zero, n])
        precision[matched] = 100. * correct[matched, n] / total[matched, n]
        counted = n < effective  # effective is final for the orders before it
        summed[counted] += np.asarray(_LOG(precision[counted]), dtype=float)
    scores = bp * _exp(summed / effective)
    return np.where(correct.any(axis=1), scores, 0.0)


def _chrf(totals: np.ndarray, order: int, factor: int) -> np.ndarray:
    """``CHRF._compute_f_score`` without epsilon smoothing: the F-score of the precision and recall averaged
    over the orders with n-grams on both sides."""
    eps = 1e-16
    average_precision, average_recall = np.zeros(len(totals)), np.zeros(len(totals))
    effective = np.zeros(len(totals), dtype=int)
    for i in range(order):
        n_hyp, n_ref, n_match = totals[:, 3 * i], totals[:, 3 * i + 1], totals[:, 3 * i + 2]
        precision = np.divide(n_match, n_hyp, out=np.full(len(totals), eps), where=n_hyp > 0)
        recall = np.divide(n_match, n_ref, out=np.full(len(totals), eps), where=n_ref > 0)
        both = (n_hyp > 0) & (n_ref > 0)
        average_precision[both] += precision[both]
        average_recall[both] += recall[both]
        effective += both
    some = effective > 0
    average_precision = np.where(some, average_precision / np.maximum(effective, 1), 0.0)
    average_recall = np.where(some, average_recall / np.maximum(effective, 1), 0.0)
    nonzero = (average_precision + average_recall) != 0
    score = np.zeros(len(totals))
    p, r = average_precision[nonzero], average_recall[nonzero]
    score[nonzero] = 100 * ((1 + factor) * p * r / ((factor * p) + r))
    return score


def _ter(totals: np.ndarray) -> np.ndarray:
    """``TER._compute_score_from_stats``: edits over reference words (1 for edits against empty references)."""
    edits, lengths = totals[:, 0], totals[:, 1]
    rate = np.where(edits > 0, 1.0, 0.0)
    positive = lengths > 0
    rate[positive] = edits[positive] / lengths[positive]
    return 100 * rate
