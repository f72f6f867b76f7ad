"""Rule suggestions (``suite.assist``) on small constructed suites: what the phenomenon's other items teach, the
patterns built from it, and that nothing offered contradicts a decided output."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from assist_suites import obligation
from typer.testing import CliRunner

from cli.main import app
from store import Database
from suite.assist.context import SuggestionContext
from suite.assist.evidence import ItemEvidence, suite_evidence
from suite.assist.item_suggestions import SuggestionSession, item_suggestions
from suite.assist.markers import wilson_lower_bound
from suite.assist.patterns import alternatives, escape, template_union, variant_templates
from suite.assist.rule_suggestions import RuleSuggestion, suggest_rules
from suite.assist.variants import VariantStats, change_key
from suite.editing.api import find_item
from suite.editing.review import set_manual_label
from suite.suites import find_suite

LETTER = ["She has to send the letter.", "She must send the letter.", "She may send the letter."]


def evidence(db: Database) -> tuple[list[ItemEvidence], ItemEvidence]:
    with db.session() as session:
        items = suite_evidence(session, find_suite(session, "assist").id)
    return items, next(item for item in items if item.external_id == "new")


def suggestions(db: Database) -> tuple[ItemEvidence, list[RuleSuggestion]]:
    items, new = evidence(db)
    return new, suggest_rules(new, SuggestionContext.of(items))


def output_id(item: ItemEvidence, text: str) -> int:
    return next(output.output_id for output in item.undecided if output.text == text)


def test_a_new_item_gets_the_markers_its_phenomenon_shows(tmp_path: Path) -> None:
    """No rule, no review: "must" is in 7 passing outputs of the paradigm and no failing one (confidence 0.875),
    "may" in 7 failing ones; "has to" in too few to judge."""
    new, found = suggestions(obligation(tmp_path, LETTER))
    assert [(s.polarity, s.pattern, s.found_by, s.decides) for s in found] == [  # as sure, the shorter first
        ("negative", r"\bmay\b", ("markers",), (output_id(new, LETTER[2]),)),
        ("positive", r"\bmust\b", ("markers",), (output_id(new, LETTER[1]),))]
    must = found[1]
    assert must.confidence == pytest.approx(wilson_lower_bound(7, 7, 1.0)) and not must.ignore_case
    assert must.reasons == ("“must” is in 7 passing and 0 failing outputs in this phenomenon",)


def test_undecided_outputs_that_only_change_what_never_changes_a_label_get_a_template(tmp_path: Path) -> None:
    """The known good translation decides "She has to send the letter."; "has to" / "must" kept the label in two
    items of the paradigm, so "She must send the letter." is a variant of it; "may" changed labels there."""
    new, found = suggestions(obligation(tmp_path, LETTER, good=[LETTER[0]]))
    variants = next(s for s in found if s.found_by == ("variants",))
    assert (variants.polarity, variants.pattern) == ("positive", r"\bShe(?: has to| must) send the letter\.")
    assert variants.decides == (output_id(new, LETTER[1]),) and (variants.matches, variants.of) == (1, 1)
    assert "“has to” ↔ “must” kept it 2 times" in variants.reasons[0]
    both = next(s for s in found if s.found_by == ("variants", "markers"))
    assert both.pattern == r"\bShe(?: has to| must) send the letter\.|\bmust\b"
    markers = next(s for s in found if s.found_by == ("markers",) and s.polarity == "positive")
    assert both.confidence == min(variants.confidence, markers.confidence)


def test_a_suggestion_that_would_contradict_a_reviewer_is_never_offered(tmp_path: Path) -> None:
    db = obligation(tmp_path, [*LETTER, "She must post the letter."])
    new, before = suggestions(db)
    assert before[0].pattern == r"\bmust\b" and len(before[0].decides) == 2
    must = output_id(new, LETTER[1])
    set_manual_label(db, must, "fail", "reviewer")  # a reviewer says "must" is wrong here
    new, after = suggestions(db)
    assert {s.polarity for s in after} == {"negative"}, "no positive rule may match what the reviewer failed"
    # what differs from the failed output only by a change that never changed a label fails too
    assert after[0].pattern == r"\bShe(?: must| has to) send the letter\.|\bmay\b"
    offered = item_suggestions(db, find_item(db, "new", "assist"))
    assert [o.suggestion.pattern for o in offered.suggestions] == [s.pattern for s in after]
    assert offered.failing == 1 and offered.passing == 0


def test_a_rule_of_the_item_is_never_turned_into_a_conflict(tmp_path: Path) -> None:
    """The item's own negative rule fails "She may and must send it."; the paradigm's marker "must", which would
    make that output a conflict, is not offered (and no other pattern is confident)."""
    db = obligation(tmp_path, [*LETTER, "She may and must send it."], rules=("", r"\bmay\b"))
    assert suggestions(obligation(tmp_path / "without", LETTER))[1][1].pattern == r"\bmust\b"
    assert suggestions(db)[1] == []


def test_case_is_ignored_only_when_the_outputs_write_a_word_both_ways(tmp_path: Path) -> None:
    _, found = suggestions(obligation(tmp_path, [*LETTER, "Must she send the letter?"]))
    assert (found[0].pattern, found[0].ignore_case, len(found[0].decides)) == (r"\bmust\b", True, 2)
    _, exact = suggestions(obligation(tmp_path / "exact", LETTER))
    assert not any(s.ignore_case for s in exact)


def test_markers_stay_whole_words(tmp_path: Path) -> None:
    new, found = suggestions(obligation(tmp_path, [*LETTER, "The mayor sends the letter."]))
    negative = next(s for s in found if s.polarity == "negative")
    assert negative.decides == (output_id(new, LETTER[2]),)


def test_an_item_whose_outputs_are_all_decided_gets_nothing(tmp_path: Path) -> None:
    db = obligation(tmp_path, LETTER[:1], good=LETTER[:1])
    assert suggestions(db)[1] == []


def test_offered_suggestions_show_their_flips_here_and_across_the_phenomenon(tmp_path: Path) -> None:
    db = obligation(tmp_path, LETTER)
    found = SuggestionSession(db).suggestions(find_item(db, "new", "assist"))
    first = found.suggestions[1]
    assert first.suggestion.pattern == r"\bmust\b" and first.flips == {"unknown->pass": 1}
    assert first.scope is not None and first.scope.scope == "phenomenon"
    assert first.scope.flips == {"unknown->pass": 1}  # the paradigm's own "must" outputs pass already
    document = found.to_json()
    assert document["suggestions"][1]["pattern"] == r"\bmust\b" and document["suggestions"][1]["contradicts"] == 0
    assert (document["passing"], document["failing"], document["undecided"]) == (0, 0, 3)
    without_scope = item_suggestions(db, find_item(db, "new", "assist"), scope=False)
    assert without_scope.suggestions[0].scope is None


def test_the_session_reads_the_items_own_outputs_afresh(tmp_path: Path) -> None:
    db = obligation(tmp_path, LETTER)
    session = SuggestionSession(db)
    item_id = find_item(db, "new", "assist")
    assert session.suggestions(item_id).undecided == 3
    _, new = evidence(db)
    set_manual_label(db, output_id(new, LETTER[0]), "pass", "reviewer")
    assert session.suggestions(item_id).undecided == 2


def test_patterns_are_written_as_a_linguist_would() -> None:
    assert escape("U.S. (a) [b] x*y? it's a-b") == r"U\.S\. \(a\) \[b\] x\*y\? it's a-b"
    assert alternatives(["had to", "was forced to"]) == r"\b(?:had to|was forced to)\b"
    assert alternatives(["'d", "would"]) == r"(?:'d\b|\bwould\b)"
    templates = variant_templates("She would have run.", ["She'd have run.", "She would have been running."])
    assert template_union(templates) == r"\bShe(?: would|'d) have(?: run| been running)\."
    assert template_union(variant_templates("I ran away.", ["I ran."])) == r"\bI ran(?: away)?\."
    separate = [variant_templates("She would have run.", [])[0],
                variant_templates("She would have been running.", [])[0]]
    assert template_union(separate) == r"\bShe would have(?: run| been running)\."


def test_a_change_is_safe_only_where_it_never_changed_a_label(tmp_path: Path) -> None:
    db = obligation(tmp_path, LETTER)
    items, new = evidence(db)
    stats = VariantStats.of(items)
    group = new.group
    assert stats.kept(group, change_key(("has", "to"), ("must",))) == 2
    assert stats.kept(group, change_key(("have", "to"), ("must",))) == 3
    assert stats.kept(group, change_key(("must",), ("may",))) is None  # it changed the label
    ob3 = next(item.item_id for item in items if item.external_id == "ob-3")
    assert stats.kept(group, change_key(("has", "to"), ("must",)), frozenset({ob3})) is None  # 1 < MIN_SAME
    assert stats.variant_changes(group, "She must go.", "She has to go.") == [(change_key(("has", "to"), ("must",)), 2)]


def test_rule_suggest_on_the_command_line(tmp_path: Path) -> None:
    obligation(tmp_path, LETTER)
    database = str(tmp_path / "tsqe.sqlite")
    result = CliRunner().invoke(app, ["--db", database, "rule", "suggest", "new", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert [s["pattern"] for s in document["suggestions"]] == [r"\bmay\b", r"\bmust\b"]
    assert document["suggestions"][0]["flips"] == {"unknown->fail": 1}
    shown = CliRunner().invoke(app, ["--db", database, "rule", "suggest", "new", "--no-scope"])
    assert shown.exit_code == 0, shown.output
    assert "2. positive  \\bmust\\b" in shown.stdout and "decides 1 of the 3 undecided outputs: unknown→pass 1" \
        in shown.stdout and "across the" not in shown.stdout
    missing = CliRunner().invoke(app, ["--db", database, "rule", "suggest", "nope"])
    assert missing.exit_code == 2 and "no item 'nope'" in missing.stderr
