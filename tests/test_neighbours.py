"""Neighbour suggestions (issue 20): for an undecided output, the nearest decided output of its item, offered as
a suggestion only when every difference between the two kept labels elsewhere in the suite."""
from __future__ import annotations

from pathlib import Path

import pytest
from review_suites import build_review_suite, output_id

from store import Database
from store.domain import Label
from suite.assist.evidence import DecidedText, ItemEvidence, UndecidedOutput
from suite.assist.neighbours import difference_words, differences, neighbour, neighbours, suite_context
from suite.assist.tokens import words
from suite.assist.variants import VariantStats
from suite.editing.review import OutputDecision, SeenOutput, decide
from suite.importers import import_outputs

FUTURE = ("Tense", "Future")


def item(item_id: int, decided: list[tuple[int, str, str]], undecided: list[tuple[int, str]] = (),  # type: ignore[assignment]
         group: tuple[str, str] = FUTURE) -> ItemEvidence:
    return ItemEvidence(item_id, f"i{item_id}", "Source.", *group,
                        tuple(DecidedText(text, label, "review", i) for i, text, label in decided),  # type: ignore[arg-type]
                        tuple(UndecidedOutput(i, text) for i, text in undecided))


TEACHERS = [
    item(1, [(1, "I will go.", "pass"), (2, "I will go home.", "pass"), (3, "I went home.", "fail")]),
    item(2, [(4, "You will go.", "pass"), (5, "You will go home.", "pass"), (6, "You went.", "fail"),
             (7, "You will go home now.", "pass")]),
    item(3, [(8, "He will go.", "pass"), (9, "He went.", "fail")]),
]
""""home" kept the label twice in the phenomenon (items 1 and 2), "now" once (item 2); "will go" → "went" changed it
three times."""


def label_of(scored: ItemEvidence, text: str, teachers: list[ItemEvidence], excluded: frozenset[int] = frozenset()
             ) -> str | None:
    found = neighbour(scored, 99, text, VariantStats.of([*teachers, scored]), excluded)
    assert found is not None
    return found.label


def test_words_and_marks_are_compared_with_their_case() -> None:
    assert words("Don't go?") == ("Don", "'", "t", "go", "?")
    assert differences("She will go.", "She will go home.") == (((), ("home",)),)
    assert difference_words([((), ("home",)), (("will",), ("shall",))]) == "differs in *home*, *will* → *shall*"


def test_a_change_that_kept_the_label_in_the_phenomenon_is_suggested() -> None:
    scored = item(9, [(20, "She will go.", "pass"), (21, "She went.", "fail")])
    found = neighbour(scored, 22, "She will go home.", VariantStats.of([*TEACHERS, scored]))
    assert found is not None and found.label == "pass" and found.suggestion == scored.decided[0]
    assert found.text() == "like #20, pass: differs in *home*"


def test_a_change_that_decided_labels_in_the_phenomenon_is_shown_but_not_suggested() -> None:
    scored = item(9, [(20, "She will go home.", "pass")])
    found = neighbour(scored, 22, "She went home.", VariantStats.of(TEACHERS))
    assert found is not None and found.label is None and found.nearest.output_id == 20
    assert found.text() == ("nearest #20, pass: differs in *will go* → *went* — not suggested: *will go* → *went*: "
                            "it changed the label in 3 pairs of this phenomenon")


def test_a_change_never_seen_keeping_a_label_is_not_suggested() -> None:
    scored = item(9, [(20, "She will go.", "pass")])
    found = neighbour(scored, 22, "She will go quickly.", VariantStats.of(TEACHERS))
    assert found is not None and found.label is None
    assert found.why_not == "*quickly*: it was never seen keeping a label"


def test_the_item_s_own_decided_outputs_teach_and_left_out_items_teach_nothing() -> None:
    """"now" kept the label once in item 2 and once among the scored item's own decided outputs: twice, enough in
    the phenomenon; with the item left out (as the benchmark leaves out the items whose labels it hides), once."""
    scored = item(9, [(20, "She will go.", "pass"), (21, "She will go now.", "pass"), (23, "She will stay.", "fail")])
    stats = VariantStats.of([*TEACHERS, scored])
    found = neighbour(scored, 22, "She will stay now.", stats)
    assert found is not None and found.text() == "like #23, fail: differs in *now*"
    found = neighbour(scored, 22, "She will stay now.", stats, frozenset({9}))
    assert found is not None and found.label is None
    assert found.why_not == "*now*: it kept the label only once in the suite"
    other = item(8, [(30, "We will go.", "pass")])
    assert label_of(other, "We will go home.", TEACHERS) == "pass"
    assert label_of(other, "We will go home.", TEACHERS, frozenset({1})) is None


def test_in_another_phenomenon_only_what_kept_labels_often_across_the_suite_counts() -> None:
    elsewhere = item(9, [(20, "She will go.", "pass")], group=("Negation", "Simple"))
    found = neighbour(elsewhere, 22, "She will go home.", VariantStats.of(TEACHERS))
    assert found is not None and found.why_not == "*home*: it kept the label only 2 times in the suite"
    wider = [*TEACHERS, *(item(10 + k, [(100 + 2 * k, f"P{k} will go.", "pass"),
                                        (101 + 2 * k, f"P{k} will go home.", "pass")], group=("Other", f"g{k}"))
                          for k in range(3))]
    assert label_of(elsewhere, "She will go home.", wider) == "pass"  # kept 5 times in the suite, never changed
    changed = [*wider, item(20, [(200, "We will go home.", "pass"), (201, "We will go.", "fail")],
                            group=("Other", "g9"))]
    found = neighbour(elsewhere, 22, "She will go home.", VariantStats.of(changed))
    assert found is not None and found.why_not == "*home*: it changed the label in 1 pair of the suite"


def test_no_suggestion_when_label_keeping_outputs_of_both_labels_are_alike() -> None:
    scored = item(9, [(20, "She will go.", "pass"), (21, "She will go home home.", "fail")])
    found = neighbour(scored, 22, "She will go home.", VariantStats.of(TEACHERS))
    assert found is not None and found.label is None
    assert found.why_not == "outputs of both labels differ from it only in label-keeping ways"


@pytest.fixture
def suite(any_db: Database, tmp_path: Path) -> Database:
    build_review_suite(any_db, tmp_path)
    return any_db


def test_neighbours_of_a_suite_s_undecided_outputs(suite: Database) -> None:
    context = suite_context(suite)
    running, wants = output_id(suite, "She is running."), output_id(suite, "He wants to go.")
    found = neighbours(suite, context, [running, wants, output_id(suite, "He will go.")])
    assert set(found) == {running, wants}  # a decided output has no neighbour to take a label from
    assert found[wants].nearest.text == "He will go." and found[wants].label is None


def test_a_conflict_gets_a_neighbour_and_a_reviewer_s_unknown_none(suite: Database, tmp_path: Path) -> None:
    """"She is running." matches neither of f4's rules (unknown) and "He will go, he went." both of f3's
    (conflict): both are for a reviewer to decide. A reviewer's unknown is a decision: no neighbour then."""
    outputs = tmp_path / "more.tsv"
    outputs.write_text("item_id\tsystem\toutput\nf3\tX\tHe will go, he went.\n", encoding="utf-8")
    import_outputs(suite, outputs, label=True)
    conflict, running = output_id(suite, "He will go, he went."), output_id(suite, "She is running.")
    found = neighbours(suite, suite_context(suite), [conflict, running])
    assert set(found) == {conflict, running} and found[conflict].nearest.text == "He will go."
    decide(suite, [OutputDecision(SeenOutput(running), Label.UNKNOWN)], "anna")
    assert set(neighbours(suite, suite_context(suite), [conflict, running])) == {conflict}


def test_a_degenerate_output_gets_no_neighbour(suite: Database, tmp_path: Path) -> None:
    """On DFKI de-en every ``####`` of UF showed "nearest ..." with a suggestion: a placeholder, an empty output or
    the source copied is near no translation in a way that tells its label."""
    outputs = tmp_path / "degenerate.tsv"
    outputs.write_text("item_id\tsystem\toutput\nf3\tX\t####\nf3\tY\tEr wird gehen.\nf3\tZ\tHe wants to leave.\n",
                       encoding="utf-8")
    import_outputs(suite, outputs, label=True)  # lists the letterless #### as a placeholder
    placeholder, copied, other = (output_id(suite, text) for text in ("####", "Er wird gehen.", "He wants to leave."))
    assert set(neighbours(suite, suite_context(suite), [placeholder, copied, other])) == {other}
