from __future__ import annotations

import itertools

import numpy as np
from qe_testdata import ItemSpec, make_suite, set_manual, synthetic_outputs

from qe.pairs import build_pairs, pair_indices, pairs_from_outputs, read_labelled_outputs
from store import Database


def test_pair_indices_by_hand() -> None:
    output_item = np.array([0, 0, 0, 1, 1, 2, 1])
    passing = np.array([True, False, True, True, False, False, True])
    failing = np.array([False, True, False, False, True, True, False])
    item, passed, failed = pair_indices(output_item, passing, failing)
    assert list(zip(item, passed, failed)) == [(0, 0, 1), (0, 2, 1), (1, 3, 4), (1, 6, 4)]


def test_pair_indices_match_brute_force() -> None:
    rng = np.random.default_rng(5)
    outputs = synthetic_outputs(300, rng)
    table = pairs_from_outputs(outputs)
    expected = sorted(
        (i, p, f)
        for i in range(outputs.item_ids.size)
        for p, f in itertools.product(
            np.flatnonzero((outputs.output_item == i) & (outputs.labels == "pass")),
            np.flatnonzero((outputs.output_item == i) & (outputs.labels == "fail")))
    )
    got = sorted(zip(table.pair_item.tolist(), table.pass_index.tolist(), table.fail_index.tolist()))
    assert got == [tuple(int(v) for v in t) for t in expected]
    assert len(table) > 1000


def test_pair_indices_without_any_pair() -> None:
    item, passed, failed = pair_indices(np.array([0, 1]), np.array([True, True]), np.array([False, False]))
    assert item.size == passed.size == failed.size == 0
    item, passed, failed = pair_indices(np.array([], dtype=int), np.array([], bool), np.array([], bool))
    assert item.size == 0


def _suite(db: Database) -> dict[tuple[str, str], int]:
    return make_suite(db, [
        ItemSpec("1", "Ambiguity", "lexical", {
            "good one": ("pass", ("S1", "S2")),  # merged: two systems, one output
            "good two": ("pass", ("S3",)),
            "bad one": ("fail", ("S4",)),
            "unsure": ("unknown", ("S5",)),
            "both": ("conflict", ("S6",)),
            "broken": ("error", ()),
        }),
        ItemSpec("2", "Negation", "negation", {"fine": ("pass", ("S1",)), "wrong": ("fail", ("S2", "S3"))}),
        ItemSpec("3", "Negation", "negation", {"only good": ("pass", ("S1", "S2"))}),
    ])


def test_build_pairs_uses_effective_labels_and_merged_systems(db: Database) -> None:
    _suite(db)
    frame = build_pairs(db).frame()
    assert list(frame.columns) == ["item_id", "category", "phenomenon", "pass_output", "fail_output",
                                   "pass_systems", "fail_systems"]
    assert frame.to_dict("records") == [
        {"item_id": "1", "category": "Ambiguity", "phenomenon": "lexical", "pass_output": "good one",
         "fail_output": "bad one", "pass_systems": "S1,S2", "fail_systems": "S4"},
        {"item_id": "1", "category": "Ambiguity", "phenomenon": "lexical", "pass_output": "good two",
         "fail_output": "bad one", "pass_systems": "S3", "fail_systems": "S4"},
        {"item_id": "2", "category": "Negation", "phenomenon": "negation", "pass_output": "fine",
         "fail_output": "wrong", "pass_systems": "S1", "fail_systems": "S2,S3"},
    ]


def test_manual_labels_change_the_pair_set(db: Database) -> None:
    ids = _suite(db)
    set_manual(db, ids[("1", "unsure")], "fail")  # unknown -> fail: two new pairs
    set_manual(db, ids[("1", "good two")], "unknown")  # pass -> unknown: leaves
    set_manual(db, ids[("3", "only good")], "fail")  # item 3 now has no passing output
    frame = build_pairs(db).frame()
    assert sorted(zip(frame.item_id, frame.pass_output, frame.fail_output)) == [
        ("1", "good one", "bad one"), ("1", "good one", "unsure"), ("2", "fine", "wrong")]


def test_read_labelled_outputs_keeps_items_without_outputs_in_suite_order(db: Database) -> None:
    make_suite(db, [ItemSpec("b", "C", "p", {"x": ("pass", ("S",))}), ItemSpec("a", "C", "p")])
    outputs = read_labelled_outputs(db)
    assert list(outputs.item_ids) == ["b", "a"]
    assert list(outputs.labels) == ["pass"]
    assert len(build_pairs(db)) == 0
