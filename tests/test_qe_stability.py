from __future__ import annotations

import numpy as np
import pytest
from qe_testdata import synthetic_outputs

from qe.pairs import PairTable, pairs_from_outputs
from qe.stability import ranking_stability
from suite.errors import TsqeError
from suite.qe_scores import QEScores
from suite.tables import render


def _case(noise: list[float | None], n_items: int = 600, seed: int = 0) -> tuple[PairTable, list[QEScores]]:
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


def test_the_splits_taus_and_tops_equal_scipy_s_kendalltau_and_nanargmax_split_by_split() -> None:
    """The whole-array Kendall tau-b is SciPy's, float for float, with ties, missing systems and all-tie rows;
    the best-system check is ``numpy.nanargmax``'s (first of equal bests)."""
    import warnings

    import numpy as np
    from scipy import stats

    from qe.stability import _same_tops, _taus

    rng = np.random.default_rng(7)
    for k in (2, 3, 5, 8):
        a = rng.integers(0, 4, size=(300, k)) / 4  # few values: many ties
        b = rng.integers(0, 4, size=(300, k)) / 4
        a[rng.random(a.shape) < 0.15] = np.nan
        b[rng.random(b.shape) < 0.15] = np.nan
        a[0], b[1] = 0.5, np.nan  # all ties; nothing present
        taus, tops = _taus(a, b), _same_tops(a, b)
        for row in range(a.shape[0]):
            present = ~(np.isnan(a[row]) | np.isnan(b[row]))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = (float(stats.kendalltau(a[row][present], b[row][present]).statistic)
                            if present.sum() >= 2 else float("nan"))
            assert (np.isnan(taus[row]) and np.isnan(expected)) or taus[row] == expected, (k, row)
            if np.all(np.isnan(a[row])) or np.all(np.isnan(b[row])):
                assert np.isnan(tops[row])
            else:
                assert tops[row] == float(np.nanargmax(a[row]) == np.nanargmax(b[row]))
