"""suite.agreement against mt-metrics-eval's own functions (vendored in tests/vendor, Apache 2.0): hand-made
vectors with ties, missing human scores and a single system, and the TED en-de MQM vectors (13 systems x 529
segments; sentence BLEU and chrF against the human translation)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ted_mqm import ted_vectors
from vendor.mt_metrics_eval import stats as mtme
from vendor.mt_metrics_eval.ranks import AssignRanks

from suite import agreement
from suite.agreement import Setting
from suite.domain import Grouping, Statistic

MTME_GROUP = {Grouping.NONE: "none", Grouping.ITEM: "item", Grouping.SYSTEM: "sys"}


def _mtme(statistic: Statistic, gold: np.ndarray, metric: np.ndarray, grouping: Grouping) -> tuple[float, float]:
    """mt-metrics-eval's value (and epsilon, 0 unless calibrated) on the same vectors, None for missing gold."""
    flat_gold = [None if np.isnan(g) else float(g) for g in gold.reshape(-1)]
    corr = mtme.Correlation(gold.shape[0], flat_gold, metric.reshape(-1).tolist())
    group = MTME_GROUP[grouping]
    if statistic is Statistic.PEARSON:
        return corr.Pearson(group)[0], 0.0
    if statistic is Statistic.KENDALL:
        return corr.Kendall(group)[0], 0.0
    if statistic is Statistic.KENDALL_23:
        return corr.KendallVariants(group, variant="23")[0], 0.0
    if statistic is Statistic.SPA:
        return corr.PairwiseConfidenceError()[0], 0.0
    value, epsilon, _ = mtme.KendallWithTiesOpt(flat_gold, metric.reshape(-1).tolist(), "acc23", gold.shape[0],
                                                group, sample_rate=1.0)
    return value, epsilon


def _every_pair(gold: np.ndarray, metric: np.ndarray, grouping: Grouping) -> tuple[float, float]:
    """The tie-calibrated accuracy the slow way (tsqe's path before the compiled one): every pair of every vector
    listed, their gaps sorted, the accuracy swept over every gap; the smallest threshold reaching the best."""
    g, m = agreement.rows(gold, grouping), agreement.rows(metric, grouping)
    gaps, deltas, weights = [], [], []
    base, vectors = 0.0, sum(1 for v in range(g.shape[0]) if (~np.isnan(g[v])).sum() >= 2)
    for v in range(g.shape[0]):
        present = np.flatnonzero(~np.isnan(g[v]))
        i, j = np.triu_indices(present.size, 1)
        if i.size == 0:
            continue
        w = 1.0 / (i.size * vectors)
        human = np.sign(g[v, present[i]] - g[v, present[j]])
        diff = m[v, present[i]] - m[v, present[j]]
        right_untied = np.sign(diff) == human
        base += w * right_untied.sum()
        gain, loss = (human == 0) & ~right_untied, right_untied & (human != 0)
        gaps.append(np.abs(diff)[gain | loss])
        deltas.append(np.where(gain, w, -w)[gain | loss])
        weights.append(w)
    if not weights:
        return 0.0, 0.0
    gap, delta = np.concatenate(gaps), np.concatenate(deltas)
    order = np.argsort(gap, kind="stable")
    gap, value = gap[order], base + np.cumsum(delta[order])
    ends = np.r_[gap[1:] != gap[:-1], True]
    candidates, at = np.r_[base, value[ends]], np.r_[0.0, gap[ends]]
    best = int(np.flatnonzero(candidates >= candidates.max() - 1e-12)[0])
    return float(candidates[best]), float(at[best])


def _ours(statistic: Statistic, gold: np.ndarray, metric: np.ndarray, grouping: Grouping) -> agreement.Value:
    return agreement.value(Setting(statistic, grouping), gold, metric)


HAND = {
    # ties in both, in one, none
    "ties": (np.array([[1.0, 2.0, 2.0, 0.0], [3.0, 2.0, 1.0, 1.0], [0.0, 0.0, 4.0, 2.0]]),
             np.array([[0.5, 0.7, 0.7, 0.1], [0.9, 0.7, 0.2, 0.3], [0.1, 0.1, 0.8, 0.3]])),
    # missing human scores (NaN), a segment judged for one system only
    "missing": (np.array([[1.0, np.nan, 2.0, 5.0], [3.0, np.nan, np.nan, 1.0], [0.0, 4.0, 4.0, np.nan]]),
                np.array([[0.2, 0.4, 0.3, 0.9], [0.6, 0.1, 0.5, 0.2], [0.1, 0.7, 0.6, 0.4]])),
    # one system: by item every vector has one score and is left out
    "one system": (np.array([[1.0, 2.0, 0.0, 3.0, 3.0]]), np.array([[0.1, 0.4, 0.2, 0.3, 0.3]])),
}


@pytest.mark.parametrize("case", HAND)
@pytest.mark.parametrize("grouping", list(Grouping))
@pytest.mark.parametrize("statistic", [Statistic.PEARSON, Statistic.KENDALL, Statistic.KENDALL_23, Statistic.ACC_EQ])
def test_hand_made_vectors_equal_mt_metrics_eval(case: str, grouping: Grouping, statistic: Statistic) -> None:
    gold, metric = HAND[case]
    try:
        expected, epsilon = _mtme(statistic, gold, metric, grouping)
    except (ValueError, ZeroDivisionError):
        # mt-metrics-eval skips vectors of one score only when some human score is missing (its filter runs only
        # then) and scipy refuses them otherwise; its calibration divides by the number of vectors with pairs,
        # here none. tsqe leaves such vectors out and gives 0 when none is left (AverageCorrelation's value)
        assert case == "one system" and grouping is Grouping.ITEM
        expected, epsilon = 0.0, 0.0
    ours = _ours(statistic, gold, metric, grouping)
    assert ours.value == pytest.approx(expected, abs=1e-9)
    if statistic is Statistic.ACC_EQ:
        assert ours.epsilon == pytest.approx(epsilon, abs=1e-12)


def test_calibration_finds_the_threshold_that_makes_ties() -> None:
    """Humans tie the middle pair; a metric that separates it by 0.01 and the others by 0.5 or more is right on
    every pair once ε covers 0.01 (and no larger gap)."""
    gold = np.array([[0.0], [1.0], [1.0], [2.0]])
    metric = np.array([[0.0], [0.5], [0.51], [1.2]])
    result = agreement.tie_calibrated_accuracy(gold, metric, Grouping.NONE)
    assert result.value == pytest.approx(1.0)
    assert result.epsilon == pytest.approx(0.01)
    assert agreement.correlation(Statistic.KENDALL_23, gold, metric, Grouping.NONE) == pytest.approx(4 / 6)


def test_chance_baselines() -> None:
    gold = np.array([[0.0], [1.0], [1.0], [2.0]])  # one tie in six pairs
    assert agreement.chance(Setting(Statistic.ACC_EQ), gold) == pytest.approx(5 / 12)
    assert agreement.chance(Setting(Statistic.KENDALL_23), gold) == pytest.approx(-1 / 6)
    assert agreement.chance(Setting(Statistic.PEARSON), gold) == 0.0
    tied = np.zeros((3, 1))
    assert agreement.chance(Setting(Statistic.ACC_EQ), tied) == 1.0


def test_ranks_follow_assign_ranks() -> None:
    p = np.array([[np.nan, 0.3, 0.01, 0.0], [np.nan, np.nan, 0.2, 0.04], [np.nan] * 4, [np.nan] * 4])
    assert agreement.assign_ranks(p) == AssignRanks(p, 0.05) == [1, 1, 2, 2]


def test_permutation_test_separates_a_good_metric_from_noise() -> None:
    rng = np.random.default_rng(1)
    gold = rng.normal(size=(6, 40))
    metrics = {"good": gold + rng.normal(scale=0.3, size=gold.shape), "noise": rng.normal(size=gold.shape),
               "good-too": gold + rng.normal(scale=0.3, size=gold.shape)}
    for statistic, grouping in ((Statistic.PEARSON, Grouping.NONE), (Statistic.ACC_EQ, Grouping.ITEM),
                                (Statistic.KENDALL, Grouping.SYSTEM), (Statistic.SPA, Grouping.NONE)):
        compared = agreement.compare(Setting(statistic, grouping), gold, metrics, permutations=200, seed=3)
        assert compared.metrics[-1] == "noise"
        assert compared.ranks[-1] == 2 and compared.ranks[0] == 1
        p = compared.p_vs_best(2)
        assert p is not None and p <= 0.05
        again = agreement.compare(Setting(statistic, grouping), gold, metrics, permutations=200, seed=3)
        assert np.array_equal(again.p, compared.p, equal_nan=True)


@pytest.mark.shared
@pytest.mark.parametrize("statistic", list(Statistic))
def test_ted_en_de_equals_mt_metrics_eval(shared_data: Path, statistic: Statistic) -> None:
    ted = ted_vectors(shared_data / "wmt-mqm-human-evaluation" / "ted" / "ende" / "mqm_ted_ende.tsv",
                      ("bleu", "chrf"))
    assert ted.gold.shape == (13, 529)
    groupings = [Grouping.NONE] if statistic is Statistic.SPA else [Grouping.ITEM] \
        if statistic is Statistic.ACC_EQ else list(Grouping)
    for metric in ted.metrics.values():
        for grouping in groupings:
            expected, _ = _mtme(statistic, ted.gold, metric, grouping)
            ours = _ours(statistic, ted.gold, metric, grouping).value
            assert ours == pytest.approx(expected, abs=0.01 if statistic is Statistic.SPA else 1e-6)
        # system level: the systems' mean scores
        gold_sys, metric_sys = ted.gold.mean(axis=1, keepdims=True), metric.mean(axis=1, keepdims=True)
        if statistic is not Statistic.SPA:
            expected, _ = _mtme(statistic, gold_sys, metric_sys, Grouping.NONE)
            assert _ours(statistic, gold_sys, metric_sys, Grouping.NONE).value == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("case", HAND)
@pytest.mark.parametrize("grouping", list(Grouping))
def test_calibration_of_many_draws_equals_one_at_a_time(case: str, grouping: Grouping) -> None:
    gold, metric = HAND[case]
    rng = np.random.default_rng(5)
    other = metric + rng.integers(0, 3, size=metric.shape) / 10
    swap = rng.integers(0, 2, size=(7, *metric.shape)).astype(bool)
    _assert_mixtures_equal_one_at_a_time(Setting(Statistic.ACC_EQ, grouping), gold, metric, other, swap)


def _assert_mixtures_equal_one_at_a_time(setting: Setting, gold: np.ndarray, first: np.ndarray, second: np.ndarray,
                                         swap: np.ndarray) -> None:
    """Both mixtures of every draw, computed together from one order of both metrics' scores (the permutation
    test's path), equal each mixture's value computed alone."""
    many = agreement._Evaluator(setting, gold).mixtures(first, second, swap)
    for mixed, side in zip(many, (np.where(swap, second, first), np.where(swap, first, second))):
        assert list(mixed) == pytest.approx([agreement.value(setting, gold, d).value for d in side], abs=1e-12)
        if setting.statistic is Statistic.ACC_EQ:
            expected = [_every_pair(gold, d, setting.grouping)[0] for d in side]
            assert list(mixed) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("grouping", list(Grouping))
@pytest.mark.parametrize("seed", range(4))
def test_compiled_calibration_equals_every_pair_sorted(grouping: Grouping, seed: int) -> None:
    """The point value and its threshold without listing the pairs (branch and bound, then the smallest threshold
    reaching the best) equal the sort of every pair's gap, on vectors with many ties in both and missing human
    scores, and on a metric whose best is to tie everything (MQM against sentence BLEU on TED)."""
    rng = np.random.default_rng(seed)
    systems, items = (3, 200) if seed < 2 else (7, 30)
    gold = rng.integers(0, 4 + seed, size=(systems, items)).astype(float)
    gold[rng.random(gold.shape) < 0.15] = np.nan
    gold[:, 0] = np.nan  # an item no system was judged on
    for metric in (rng.integers(0, 30, size=gold.shape) / 7, rng.normal(size=gold.shape),
                   np.nan_to_num(gold) + rng.integers(0, 3, size=gold.shape) / 2, rng.random(gold.shape)):
        ours = _ours(Statistic.ACC_EQ, gold, metric, grouping)
        value, epsilon = _every_pair(gold, metric, grouping)
        assert ours.value == pytest.approx(value, abs=1e-12)
        assert ours.epsilon == epsilon


@pytest.mark.parametrize("grouping", list(Grouping))
def test_compiled_counts_equal_pair_by_pair_on_long_vectors_with_ties(grouping: Grouping) -> None:
    """Vectors of 120 scores with many ties in both, some human scores missing: the calibrated accuracy of every
    draw (branch and bound over the threshold) equals the sort of every pair's gap, and Kendall's counts equal
    scipy's tau-b and mt-metrics-eval's tau-23."""
    rng = np.random.default_rng(11)
    gold = rng.integers(0, 6, size=(4, 120)).astype(float)
    gold[rng.random(gold.shape) < 0.1] = np.nan
    draws = rng.integers(0, 25, size=(8, 4, 120)) / 4
    swap = rng.integers(0, 2, size=(8, 4, 120)).astype(bool)
    for statistic in (Statistic.ACC_EQ, Statistic.KENDALL, Statistic.KENDALL_23):
        _assert_mixtures_equal_one_at_a_time(Setting(statistic, grouping), gold, draws[0], draws[1], swap)
    for statistic in (Statistic.KENDALL, Statistic.KENDALL_23):
        expected, _ = _mtme(statistic, gold, draws[0], grouping)
        assert _ours(statistic, gold, draws[0], grouping).value == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("statistic", [Statistic.ACC_EQ, Statistic.KENDALL])
def test_parallel_draws_do_not_depend_on_the_threads(statistic: Statistic) -> None:
    """The draws run over the cores (numba's ``prange``; the calibration in a fixed number of chains): one thread
    and every thread give the same values to the last bit, 40 draws of vectors of 120 scores with ties."""
    import numba

    rng = np.random.default_rng(13)
    gold = rng.integers(0, 6, size=(4, 120)).astype(float)
    first, second = rng.integers(0, 25, size=(2, 4, 120)) / 4
    swap = rng.integers(0, 2, size=(40, 4, 120)).astype(bool)
    evaluator = agreement._Evaluator(Setting(statistic), gold)
    every = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        alone = evaluator.mixtures(first, second, swap)
    finally:
        numba.set_num_threads(every)
    together = evaluator.mixtures(first, second, swap)
    assert all(np.array_equal(a, b) for a, b in zip(alone, together))
