from __future__ import annotations

import numpy as np
import pytest
from qe_testdata import synthetic_outputs

from qe.pairs import pairs_from_outputs
from qe.stability import ranking_stability
from suite.errors import TsqeError
from suite.qe_scores import QEScores
from suite.tables import render


def _case(noise: list[float | None], n_items: int = 600, seed: int = 0):  # type: ignore[no-untyped-def]
    """QE systems whose scores are the label plus noise of the given size (None: pure noise)."""
    rng = np.random.default_rng(seed)
    outputs = synthetic_outputs(n_items, rng)
    label = (outputs.labels == "pass").astype(float)
    systems = [QEScores(f"q{k}", True, outputs.output_ids,
                        (0.0 if sd is None else label) + rng.normal(0, 1.0 if sd is None else sd, label.size))
               for k, sd in enumerate(noise)]
    return pairs_from_outputs(outputs), systems


def test_clearly_ordered_systems_give_a_stable_ranking() -> None:
    pairs, systems = _case([0.3, 0.8, 2.0, None])
    result = ranking_stability(pairs, systems, splits=100, seed=1)
    assert result.overall.mean_tau > 0.95
    assert result.overall.same_top == 1.0
    assert result.overall.significant_flips == 0
    suite_order = list(dict.fromkeys(pairs.outputs.item_categories))  # first appearance by item position
    assert [r.category for r in result.rows] == suite_order and sorted(suite_order) == ["cat0", "cat1", "cat2"]
    assert all(r.mean_tau > 0.8 for r in result.rows)


def test_random_systems_give_a_ranking_no_better_than_chance() -> None:
    pairs, systems = _case([None, None, None, None])
    result = ranking_stability(pairs, systems, splits=200, seed=1)
    assert abs(result.overall.mean_tau) < 0.2
    assert result.overall.same_top < 0.6  # chance is 1/4
    # with only noise, two halves both finding opposite *significant* differences is rare
    assert result.overall.splits_with_flip < 0.1


def test_stability_is_reproducible_and_renders() -> None:
    pairs, systems = _case([0.5, 0.7, None], n_items=120)
    first = ranking_stability(pairs, systems, splits=50, seed=4)
    assert first == ranking_stability(pairs, systems, splits=50, seed=4)
    document = first.to_dict()
    assert document["splits"] == 50 and document["overall"]["items"] == first.overall.items
    text = render(first.to_table(), "text")
    assert "overall" in text and "mean tau" in text


def test_stability_needs_two_systems_and_a_split() -> None:
    pairs, systems = _case([0.5, None], n_items=20)
    with pytest.raises(TsqeError, match="at least two"):
        ranking_stability(pairs, systems[:1])
    with pytest.raises(TsqeError, match="random splits must be 1 or more"):
        ranking_stability(pairs, systems, splits=0)
