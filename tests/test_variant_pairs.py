"""Which pairs of an item's decided outputs are compared to learn label-keeping changes (suite.assist.variants):
a cheap test skips the pairs difflib cannot find one stretch in, and an item compares at most MAX_COMPARED
outputs. Learning on a million-output suite held the window's reads for about 45 minutes (57 million pairs)."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store import open_database
from suite.assist.evidence import DecidedText, ItemEvidence
from suite.assist.tokens import changes, words
from suite.assist.variant_learning import learn_variants
from suite.assist.variants import MAX_COMPARED, _may_differ_once, change_key, single_changes
from suite.demo import DEMO_SUITE, create_demo
from suite.suites import find_suite
from suite.tasks import Cancelled
from tests.conftest import SHARED_DATA

WORDS = st.lists(st.sampled_from(["a", "b", "c", "d", "the", "."]), max_size=9).map(tuple)


@settings(max_examples=3000, deadline=None)
@given(WORDS, WORDS)
def test_every_pair_difflib_finds_one_stretch_in_passes_the_cheap_test(first: tuple[str, ...],
                                                                       second: tuple[str, ...]) -> None:
    if len(changes(first, second)) == 1:
        assert _may_differ_once(first, second)


def test_the_cheap_test_turns_away_most_pairs_of_different_sentences() -> None:
    assert not _may_differ_once(words("I saw the dog."), words("We saw a cat."))  # "saw" would split it
    assert not _may_differ_once(words("Same words."), words("Same words."))  # no stretch at all
    assert _may_differ_once(words("I will go home."), words("I went home."))
    assert _may_differ_once(words("I will go."), words("I will go home."))


def _unfiltered(item: ItemEvidence) -> Counter[tuple[tuple[tuple[str, ...], tuple[str, ...]], bool]]:
    """What single_changes counted before: difflib on every pair."""
    outputs = [(words(d.text), d.label) for d in item.decided_outputs()]
    found: Counter[tuple[tuple[tuple[str, ...], tuple[str, ...]], bool]] = Counter()
    for index, (first, first_label) in enumerate(outputs):
        for second, second_label in outputs[index + 1:]:
            stretches = changes(first, second)
            if len(stretches) == 1:
                a, b, c, d = stretches[0]
                found[change_key(first[a:b], second[c:d]), first_label == second_label] += 1
    return found


@pytest.mark.shared
@pytest.mark.skipif(not (SHARED_DATA / "mt-testsuite").is_dir(), reason="needs ../shared/data/external")
def test_on_the_dfki_suite_the_counts_are_those_of_difflib_on_every_pair() -> None:
    """The DFKI de-en items' good and bad translations as decided outputs of each item (up to 13 an item)."""
    items = json.loads((SHARED_DATA / "mt-testsuite" / "testset" / "de-en" / "items.json").read_text("utf-8"))
    compared = 0
    for number, entry in enumerate(items["items"]):
        texts = [(t, "pass") for t in entry.get("positive_tokens") or []] + \
                [(t, "fail") for t in entry.get("negative_tokens") or []]
        decided = tuple(DecidedText(str(t), label, "rule", i) for i, (t, label) in enumerate(texts))  # type: ignore[arg-type]
        item = ItemEvidence(number, str(number), entry.get("source", ""), "c", "p", decided, ())
        assert single_changes(item) == _unfiltered(item)
        compared += len(decided) * (len(decided) - 1) // 2
    assert compared > 1000


def test_an_item_with_many_decided_outputs_compares_the_reviewers_first_then_by_id() -> None:
    decided = [DecidedText(f"She will go home {n}.", "pass", "rule", n) for n in range(1, 80)]
    decided.append(DecidedText("She went home 0.", "fail", "review", 500))
    item = ItemEvidence(1, "i1", "Sie geht.", "c", "p", tuple(decided), ())
    counted = single_changes(item)
    # the review and the 39 rule-decided outputs of lowest id: each pair of the latter differs in its number only,
    # the review from each in two stretches
    assert sum(counted.values()) == (MAX_COMPARED - 1) * (MAX_COMPARED - 2) // 2
    assert counted[change_key(("1",), ("2",)), True] == 1
    assert not any("40" in key[0][1] or "40" in key[0][0] for key in counted)  # output 40 and above left out


def test_a_worker_process_learns_what_the_calling_thread_learns(tmp_path: Path) -> None:
    """A large suite is learned apart (the window's thread only waits); the counts are the same."""
    db = open_database(tmp_path / "demo.sqlite")
    create_demo(db)
    with db.session() as session:
        suite_id = find_suite(session, DEMO_SUITE).id
    here = learn_variants(db, suite_id, apart=False)
    assert here.overall  # the demo's paradigms have outputs that differ in one stretch
    apart = learn_variants(db, suite_id, apart=True)
    assert (apart.overall, apart.by_item, dict(apart.by_group)) == (here.overall, here.by_item, dict(here.by_group))
    db.close()


def test_a_cancel_while_the_worker_learns_stops_the_learning(tmp_path: Path) -> None:
    db = open_database(tmp_path / "demo.sqlite")
    create_demo(db)
    with db.session() as session:
        suite_id = find_suite(session, DEMO_SUITE).id

    def cancelled() -> None:
        raise Cancelled()

    with pytest.raises(Cancelled):
        learn_variants(db, suite_id, cancelled, apart=True)
    db.close()
