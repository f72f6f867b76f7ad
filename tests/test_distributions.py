"""Distributions on shared bins (Zhan et al. 2021: DA-BERTScore Figure 3, VAT Figure 8), on values given here."""
from __future__ import annotations

import numpy as np
import pytest

from filters.distributions import distribution_figure, distributions, shared_edges
from filters.metrics.da_bertscore import DifficultyResult
from filters.metrics.signature import Signature
from suite.errors import TsqeError


def test_two_distributions_share_bins_of_0_05() -> None:
    every, top = distributions({"all": [0.0, 0.02, 0.3, 0.3], "top": [0.01, 0.12]})
    assert every.edges == top.edges == [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35]
    # 0.0 and 0.02 in [0, 0.05), both 0.3 in [0.3, 0.35)
    assert every.shares == [0.5, 0, 0, 0, 0, 0, 0.5] and top.shares == [0.5, 0, 0.5, 0, 0, 0, 0]
    assert (every.count, top.count) == (4, 2)
    assert every.mean == pytest.approx(0.155) and every.median == pytest.approx(0.16)


def test_edges_start_below_the_smallest_value_and_end_above_the_largest() -> None:
    assert shared_edges({"kept": [0.81, 0.93], "removed": [0.62]}) == pytest.approx(
        [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95])
    assert shared_edges({"a": [0.5, 0.5]}) == [0.5, 0.55]  # equal values: one bin, the value in it
    assert distributions({"a": [0.5, 0.5]})[0].shares == [1.0]


def test_no_values_is_an_error_naming_the_distribution() -> None:
    with pytest.raises(TsqeError, match="no values to count for top"):
        distributions({"all": [0.1], "top": []})


def test_weights_and_segment_scores_of_a_difficulty_result() -> None:
    result = DifficultyResult(systems=["a"], system_scores={}, signature=Signature.parse("da-bertscore"),
                              token_difficulty={"1": [("Ich", 0.1), ("hier", 0.4)], "2": [("Land", 0.2)]},
                              segments={"a": {0: np.array([0.9, 0.8, 0.85, 0.2, 0.3])}})
    assert result.weights() == [0.1, 0.4, 0.2]
    f, da_f = result.segment("a", 0)
    assert f == 0.85 and da_f == pytest.approx(2 * 0.2 * 0.3 / 0.5)
    with pytest.raises(TsqeError, match="no output scored at position 3"):
        result.segment("a", 3)
    figure = distribution_figure(distributions({"all": result.weights()}), title="t", xlabel="weight")
    assert len(figure.axes[0].patches) == 1  # one outline per distribution
