from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from qe_testdata import ItemSpec, add_qe, make_suite, set_manual, synthetic_outputs

from qe.accuracy import AccuracyResult, pairwise_accuracy
from qe.pairs import PairTable, build_pairs, pairs_from_outputs
from store import Database
from suite.errors import TsqeError
from suite.qe_scores import QEScores, read_qe_scores

ITEM_1 = ItemSpec("1", "A", "a1", {
    "p1": ("pass", ("S1",)), "p2": ("pass", ("S2",)), "f1": ("fail", ("S3",)), "f2": ("fail", ("S4",)),
    "u": ("unknown", ("S5",)), "c": ("conflict", ("S6",)),
})
ITEM_2 = ItemSpec("2", "B", "b1", {"p": ("pass", ("S1",)), "f": ("fail", ("S2",))})


def _setup(db: Database) -> dict[tuple[str, str], int]:
    """Item 1 has pairs (p1,f1) (p1,f2) (p2,f1) (p2,f2); item 2 has (p,f)."""
    ids = make_suite(db, [ITEM_1, ITEM_2])
    o = {text: ids[(item, text)] for item, text in ids}
    # hi (higher is better): right, right, tie, right on item 1; wrong on item 2.
    add_qe(db, "hi", {o["p1"]: 0.9, o["p2"]: 0.5, o["f1"]: 0.5, o["f2"]: 0.1, o["u"]: 1.0, o["c"]: 0.0,
                      o["p"]: 0.0, o["f"]: 1.0})
    # lo (lower is better): right, right, wrong, tie on item 1; right on item 2.
    add_qe(db, "lo", {o["p1"]: 1.0, o["p2"]: 3.0, o["f1"]: 2.0, o["f2"]: 3.0, o["p"]: 0.0, o["f"]: 1.0},
           higher_is_better=False)
    # partial: scores only p1 and f1, so it is judged on one pair of item 1 and none of item 2.
    add_qe(db, "partial", {o["p1"]: 0.2, o["f1"]: 0.7})
    return ids


def _accuracy(db: Database, **options: Any) -> AccuracyResult:
    return pairwise_accuracy(build_pairs(db), read_qe_scores(db), bootstrap=0, **options)


@pytest.mark.parametrize(("ties", "hi", "lo", "hi_counted", "lo_counted"), [
    ("half", 3.5 / 4, 2.5 / 4, 4, 4),
    ("wrong", 3 / 4, 2 / 4, 4, 4),
    ("drop", 3 / 3, 2 / 3, 3, 3),
])
def test_ties_policies_and_directions(db: Database, ties: str, hi: float, lo: float, hi_counted: int,
                                      lo_counted: int) -> None:
    _setup(db)
    result = _accuracy(db, ties=ties)
    row_a = result.rows[0]
    assert (row_a.category, row_a.amount, row_a.items) == ("A", 4, 1)
    assert row_a.accuracy["hi"] == pytest.approx(hi)
    assert row_a.accuracy["lo"] == pytest.approx(lo)
    assert row_a.counted == {"hi": hi_counted, "lo": lo_counted, "partial": 1}
    assert row_a.accuracy["partial"] == 0.0  # scored its only pair the wrong way round


def test_total_is_micro_and_weighed_is_macro(db: Database) -> None:
    _setup(db)
    result = _accuracy(db)
    assert [r.category for r in result.rows] == ["A", "B"]
    assert result.rows[1].accuracy["hi"] == 0.0
    assert result.total.amount == 5
    assert result.total.accuracy["hi"] == pytest.approx(3.5 / 5)
    assert result.weighed.accuracy["hi"] == pytest.approx((3.5 / 4 + 0.0) / 2)
    assert result.total.accuracy["lo"] == pytest.approx(3.5 / 5)
    assert result.weighed.accuracy["lo"] == pytest.approx((2.5 / 4 + 1.0) / 2)


def test_missing_scores_leave_the_denominator_and_report_coverage(db: Database) -> None:
    _setup(db)
    result = _accuracy(db)
    assert result.rows[1].counted["partial"] == 0
    assert math.isnan(result.rows[1].accuracy["partial"])
    assert result.total.counted["partial"] == 1
    assert result.total.accuracy["partial"] == 0.0
    assert result.weighed.accuracy["partial"] == 0.0  # mean over the rows where it has an accuracy
    assert "partial" not in result.rows[1].best
    document = result.to_dict()
    assert document["rows"][1]["accuracy"]["partial"] is None


def test_manual_labels_change_accuracy(db: Database) -> None:
    ids = _setup(db)
    set_manual(db, ids[("1", "u")], "fail")
    set_manual(db, ids[("1", "f2")], "unknown")
    # pairs of item 1: (p1,f1) right, (p1,u) wrong, (p2,f1) tie, (p2,u) wrong under hi
    row_a = _accuracy(db).rows[0]
    assert row_a.amount == 4
    assert row_a.accuracy["hi"] == pytest.approx(1.5 / 4)


def test_phenomena_within_one_category(db: Database) -> None:
    _setup(db)
    result = _accuracy(db, category="A")
    assert result.by == "phenomenon"
    assert [(r.category, r.phenomenon, r.amount) for r in result.rows] == [("A", "a1", 4)]
    assert result.total.amount == 4
    with pytest.raises(TsqeError, match="no category named 'Z'.*A, B"):
        _accuracy(db, category="Z")


def test_by_phenomenon_and_best_without_bootstrap(db: Database) -> None:
    _setup(db)
    result = _accuracy(db, by="phenomenon")
    assert [(r.category, r.phenomenon) for r in result.rows] == [("A", "a1"), ("B", "b1")]
    assert result.rows[0].best == ["hi"]
    assert result.rows[1].best == ["lo"]
    assert result.total.best == ["hi", "lo"]  # equal point accuracy


def test_unknown_qe_system_lists_known_ones(db: Database) -> None:
    _setup(db)
    with pytest.raises(TsqeError, match="no QE system named .nope.*known: hi, lo, partial"):
        read_qe_scores(db, names=["hi", "nope"])
    assert [s.name for s in read_qe_scores(db, names=["lo", "hi"])] == ["lo", "hi"]


def test_no_qe_system_is_a_clear_error(db: Database) -> None:
    make_suite(db, [ITEM_2])
    with pytest.raises(TsqeError, match="no QE system"):
        read_qe_scores(db)


def _synthetic(n_items: int, seed: int = 0) -> tuple[PairTable, list[QEScores]]:
    """A good QE system (noisy label), a slightly worse one, and a random one."""
    rng = np.random.default_rng(seed)
    outputs = synthetic_outputs(n_items, rng)
    label = (outputs.labels == "pass").astype(float)
    n = label.size
    systems = [QEScores("good", True, outputs.output_ids, label + rng.normal(0, 0.6, n)),
               QEScores("worse", True, outputs.output_ids, label + rng.normal(0, 0.9, n)),
               QEScores("random", False, outputs.output_ids, rng.normal(0, 1, n))]
    return pairs_from_outputs(outputs), systems


def test_bootstrap_is_reproducible_with_a_seed() -> None:
    pairs, systems = _synthetic(200)
    first = pairwise_accuracy(pairs, systems, bootstrap=300, seed=7)
    second = pairwise_accuracy(pairs, systems, bootstrap=300, seed=7)
    other = pairwise_accuracy(pairs, systems, bootstrap=300, seed=8)
    assert first.to_dict() == second.to_dict()
    assert first.to_dict()["total"]["ci"] != other.to_dict()["total"]["ci"]


def test_intervals_contain_the_estimate_and_shrink_with_more_items() -> None:
    small_pairs, small_systems = _synthetic(40, seed=1)
    large_pairs, large_systems = _synthetic(4000, seed=1)
    small = pairwise_accuracy(small_pairs, small_systems, bootstrap=500, seed=0)
    large = pairwise_accuracy(large_pairs, large_systems, bootstrap=500, seed=0)
    for result in (small, large):
        for row in [*result.rows, result.total, result.weighed]:
            for name in result.qe_systems:
                low, high = row.ci[name]
                assert low <= row.accuracy[name] <= high
    for name in small.qe_systems:
        small_width = small.total.ci[name][1] - small.total.ci[name][0]
        large_width = large.total.ci[name][1] - large.total.ci[name][0]
        assert large_width < small_width / 4  # ~ sqrt(100) = 10 times narrower in theory
    # the random scorer sits at chance level
    assert large.total.ci["random"][0] < 0.5 < large.total.ci["random"][1]


def test_paired_significance_marks_the_best_and_those_not_significantly_worse() -> None:
    pairs, systems = _synthetic(3000, seed=2)
    result = pairwise_accuracy(pairs, systems, bootstrap=500, seed=0)
    assert result.total.best == ["good"]
    assert all(row.best == ["good"] for row in result.rows)
    twin = QEScores("twin", True, systems[0].output_ids, systems[0].scores * 2.0)  # the same order
    result = pairwise_accuracy(pairs, [systems[0], twin], bootstrap=200, seed=0)
    assert result.total.best == ["good", "twin"]


def test_close_systems_on_few_items_are_both_best_and_the_row_is_flagged() -> None:
    pairs, systems = _synthetic(4, seed=3)
    result = pairwise_accuracy(pairs, systems[:2], bootstrap=200, seed=0)
    assert all(row.too_few for row in result.rows)
    assert sorted(result.total.best) == ["good", "worse"]
    large = pairwise_accuracy(*_synthetic(600, seed=3), bootstrap=0)
    assert not any(row.too_few for row in large.rows)


def test_invalid_options_are_clear_errors() -> None:
    pairs, systems = _synthetic(20)
    with pytest.raises(TsqeError, match="ties policy 'never'"):
        pairwise_accuracy(pairs, systems, ties="never")  # type: ignore[arg-type]  # text the type refuses
    with pytest.raises(TsqeError, match="grouping 'system'"):
        pairwise_accuracy(pairs, systems, by="system")
    with pytest.raises(TsqeError, match="bootstrap resamples must be 0 or more"):
        pairwise_accuracy(pairs, systems, bootstrap=-1)
