"""The statistics both evaluations share (suite.significance), on cases whose answer is known by hand and against
scipy; WMT's own Wilcoxon results on newstest2021 de-en when the shared data is there."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from suite.significance import (
    PairwiseTest,
    disagreeing_pairs,
    paired_bootstrap_test,
    resample_counts,
    share_at_least,
    significance_ranks,
    wilcoxon_rank_sum,
)


def test_resample_counts_draw_every_resample_of_all_units_reproducibly() -> None:
    chunks = list(resample_counts(7, 2500, np.random.default_rng(3)))
    counts = np.vstack(chunks)
    assert counts.shape == (2500, 7) and np.all(counts.sum(axis=1) == 7)
    assert np.array_equal(counts, np.vstack(list(resample_counts(7, 2500, np.random.default_rng(3)))))
    # the counts are the draws: the same generator state gives these integers
    draws = np.random.default_rng(3).integers(0, 7, size=(2500, 7))
    assert np.array_equal(counts[0], np.bincount(draws[0], minlength=7))
    assert abs(counts.mean() - 1) < 0.05


def test_wilcoxon_rank_sum_is_scipys_one_sided_mann_whitney_test_for_every_ordered_pair() -> None:
    rng = np.random.default_rng(1)
    scores = {"a": rng.normal(0.3, 1, 300), "b": rng.normal(0.0, 1, 280), "c": rng.normal(0.0, 1, 310)}
    test = wilcoxon_rank_sum(scores)
    assert test.method == "wilcoxon" and test.names == ["a", "b", "c"]
    for i, first in enumerate(test.names):
        for j, second in enumerate(test.names):
            if i == j:
                assert np.isnan(test.p[i, j])
                continue
            expected = stats.mannwhitneyu(scores[first], scores[second], alternative="greater").pvalue
            assert test.p[i, j] == pytest.approx(expected, rel=1e-12)
    # by hand: 3, 4, 5 above 1, 2 is every comparison won, U = 6; the normal approximation with continuity
    # correction: z = (6 - 3 - 0.5) / sqrt(2 * 3 * 6 / 12)
    small = wilcoxon_rank_sum({"x": [3, 4, 5], "y": [1, 2]})
    z = (6 - 3 - 0.5) / np.sqrt(3.0)
    assert small.p[0, 1] == pytest.approx(stats.norm.sf(z))
    assert small.better("x", "y", alpha=0.1) and not small.better("y", "x", alpha=0.1)
    assert test.better("a", "b") and test.separates("a", "c") and not test.better("b", "a")


def test_a_paired_bootstrap_finds_a_system_better_on_every_segment_always_better() -> None:
    segments = np.array([[0.5, 0.1, 0.5], [0.9, 0.2, np.nan], [0.4, 0.3, 0.6], [0.7, 0.0, 0.7]])
    test = paired_bootstrap_test(["a", "b", "c"], segments, resamples=200, seed=1)
    assert test.p[0, 1] == 0.0 and test.p[1, 0] == 1.0  # a beats b on every segment
    assert test.better("a", "b") and not test.better("b", "a")
    # a and c tie on two of the three segments they share (c's NaN leaves one out), c is better on the third:
    # a is never better (p 1), and c is not significantly better, since many resamples draw only the ties
    assert test.p[0, 2] == 1.0
    assert 0.05 < test.p[2, 0] < 1.0 and not test.better("c", "a")
    assert np.isnan(test.p[0, 0])


def test_ranks_share_places_when_not_significantly_different() -> None:
    rng = np.random.default_rng(0)
    apart = np.column_stack([rng.normal(10, 0.1, 500), rng.normal(5, 0.1, 500), rng.normal(0, 0.1, 500)])
    assert significance_ranks([10, 5, 0], apart) == [1, 2, 3]
    same = np.column_stack([rng.normal(1, 1, 500)] * 3)
    assert significance_ranks([1.2, 1.0, 0.9], same) == [1, 1, 1]
    # a chain: a and b overlap, b and c overlap, a beats c: c starts rank 2 because a (of rank 1) beats it
    base = rng.normal(0, 1, 2000)
    chain = np.column_stack([base + 2.0, base + 1.0 + rng.normal(0, 2, 2000), base])
    assert share_at_least(chain[:, 0], chain[:, 1]) > 0.05 and share_at_least(chain[:, 0], chain[:, 2]) == 0
    assert significance_ranks([2.0, 1.0, 0.0], chain) == [1, 1, 2]
    # without resamples every distinct value is its own rank, equal values share one; no value, no rank
    assert significance_ranks([3.0, np.nan, 3.0, 1.0], None) == [1, None, 1, 2]
    # the given order breaks ties of point values, not the names
    assert significance_ranks([0.0, 1.0], None) == [2, 1]


def test_opposite_significant_orders_are_one_disagreement_and_shared_ranks_none() -> None:
    assert disagreeing_pairs({"bleu": 1, "chrf": 2}, {"bleu": 2, "chrf": 1}) == [("bleu", "chrf")]
    assert disagreeing_pairs({"bleu": 1, "chrf": 1}, {"bleu": 2, "chrf": 1}) == []
    assert disagreeing_pairs({"bleu": 1, "chrf": 2, "ter": 3}, {"bleu": 3, "chrf": 2, "ter": 1}) == [
        ("bleu", "chrf"), ("bleu", "ter"), ("chrf", "ter")]
    # a metric missing or unranked on one side takes no part
    assert disagreeing_pairs({"bleu": 1, "chrf": 2, "ter": None}, {"bleu": 1, "chrf": 2, "ter": 1}) == []
    assert disagreeing_pairs({"bleu": 2, "chrf": 1}, {"chrf": 2}) == []


def test_imported_thresholds_read_as_p_below() -> None:
    p = np.array([[np.nan, 0.01], [1.0, np.nan]])
    test = PairwiseTest(["a", "b"], p, "imported")
    assert test.better("a", "b") and test.better("a", "b", alpha=0.01) and not test.better("a", "b", alpha=0.001)
    assert not test.better("b", "a") and not test.better("a", "unknown")


@pytest.mark.shared
def test_wilcoxon_on_newstest2021_segments_reproduces_every_star_of_wmts_file(shared_data: Path) -> None:
    folder = shared_data / "wmt21-news-systems" / "newstest2021-de-en" / "humaneval"
    segments: dict[str, list[float]] = defaultdict(list)
    for line in (folder / "ad-seg-scores-de-en.csv").read_text().splitlines()[1:]:
        fields = line.split()
        segments[fields[0]].append(float(fields[3]))
    test = wilcoxon_rank_sum(segments)
    lines = (folder / "ad-DA-diff-wilcoxon-rs-deen.csv").read_text().splitlines()
    header = lines[0].split()
    compared = 0
    for line in lines[1:]:
        row, *cells = line.split()
        for column, cell in zip(header, cells):
            if row == column:
                continue
            stars = len(cell) - len(cell.rstrip("*"))
            p = test.p[test.index(row), test.index(column)]
            assert stars == (3 if p < 0.001 else 2 if p < 0.01 else 1 if p < 0.05 else 0), (row, column, cell, p)
            compared += 1
    assert compared == 20 * 19
