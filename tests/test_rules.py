from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from store.domain import Label, Polarity, TranslationKind
from suite.engine.rules import (
    Decision,
    ItemMatcher,
    ItemRule,
    KnownSpec,
    RuleSpec,
    Span,
    compile_error,
    describe,
    item_fingerprint,
    normalise,
    rule_numbers,
)

HUSBAND = ItemRule(1, RuleSpec(Polarity.POSITIVE, r"(husband|spouse|hubb(y|ies))"))
MAN = ItemRule(2, RuleSpec(Polarity.NEGATIVE, r"\b(gentle)?m[ae]n\b"))


def decide(text: str, rules: Sequence[ItemRule] = (HUSBAND, MAN), known: Sequence[KnownSpec] = (),
           timeout: float = 1.0) -> Decision:
    return ItemMatcher(list(rules), list(known), timeout).decide(text)


def test_positive_only_passes_and_names_the_rule() -> None:
    decision = decide("Then she talks about her husband.")
    assert decision.label == "pass"
    assert decision.rule_id == 1
    assert decision.decided_by == "positive rule 1: (husband|spouse|hubb(y|ies))"


def test_negative_only_fails() -> None:
    decision = decide("Then she tells of her man.")
    assert (decision.label, decision.rule_id) == ("fail", 2)  # the stored id, for machines
    assert decision.decided_by.startswith("negative rule 1: ")  # as the editor numbers it: its first negative rule


def test_both_conflict() -> None:
    decision = decide("Her husband, a gentleman, ...")
    assert decision.label == "conflict"
    assert "positive rule 1" in decision.decided_by and "negative rule 1" in decision.decided_by


def test_search_is_unanchored_and_case_sensitive_unless_asked() -> None:
    assert decide("HUSBAND").label == "unknown"
    insensitive = ItemRule(1, RuleSpec(Polarity.POSITIVE, "husband", ignore_case=True))
    assert decide("HUSBAND", rules=[insensitive]).label == "pass"


def test_neither_falls_back_to_normalised_known_translations() -> None:
    known = [KnownSpec(TranslationKind.GOOD, "  She talks about her  partner. "),
             KnownSpec(TranslationKind.BAD, "She talks about her wife."),
             KnownSpec(TranslationKind.GOOD, ""), KnownSpec(TranslationKind.BAD, "   ")]
    # NFC: "e" + combining acute equals the precomposed "é".
    known.append(KnownSpec(TranslationKind.GOOD, "Caf\u00e9 talk."))
    assert decide("She talks about her partner.", known=known).label == "pass"
    assert decide("She talks\tabout her partner.", known=known).decided_by == "known good translation"
    assert decide("She talks about her wife.", known=known).label == "fail"
    assert decide("Cafe\u0301 talk.", known=known).label == "pass"
    assert decide("She talks about her cat.", known=known).decided_by == "no rule or known translation matched"
    assert decide("", known=known).label == "unknown"  # empty known entries are ignored


def test_rules_take_precedence_over_known_translations() -> None:
    known = [KnownSpec(TranslationKind.GOOD, "Her man.")]
    assert decide("Her man.", known=known).label == "fail"


def test_invalid_rules_give_error_with_the_reason() -> None:
    stored_invalid = ItemRule(7, RuleSpec(Polarity.POSITIVE, "(unclosed"), valid=False, error="missing )")
    decision = decide("anything", rules=[stored_invalid, MAN])
    assert (decision.label, decision.rule_id) == ("error", 7)
    assert decision.decided_by == "positive rule 1 is invalid: missing )"
    not_compiling = ItemRule(8, RuleSpec(Polarity.NEGATIVE, "(unclosed"))
    decision = decide("anything", rules=[HUSBAND, not_compiling])
    assert (decision.label, decision.rule_id) == ("error", 8)
    assert "missing )" in decision.decided_by


def test_catastrophic_backtracking_times_out_as_error() -> None:
    slow = ItemRule(9, RuleSpec(Polarity.POSITIVE, r"(a|aa)+b"))
    decision = decide("a" * 60, rules=[slow], timeout=0.01)
    assert decision[:3] == ("error", 9, "positive rule 1 timed out after 0.01 s")
    assert decision.decided_by == decision.reason
    assert decide("aab", rules=[slow], timeout=0.01).label == "pass"


def test_compile_error() -> None:
    assert compile_error(r"\bm[ae]n\b", False) is None
    assert "missing )" in (compile_error("(a", False) or "")
    assert compile_error("  ", True) == "empty pattern"


def test_spans_cover_every_match_of_every_rule() -> None:
    matcher = ItemMatcher([HUSBAND, MAN], [])
    text = "My husband is a man, a gentleman."
    assert matcher.spans(text) == [Span(3, 10, 1, Polarity.POSITIVE), Span(16, 19, 2, Polarity.NEGATIVE),
                                   Span(23, 32, 2, Polarity.NEGATIVE)]
    assert text[23:32] == "gentleman"


def test_normalise() -> None:
    assert normalise("  a \u00a0 b\n\tc ") == "a b c"
    assert normalise("e\u0301") == "\u00e9"


@given(st.text(alphabet=st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\u00a0ab.e\u0301\u00e9"), max_size=12))
def test_normalise_is_nfc_with_whitespace_collapsed_whatever_the_text(text: str) -> None:
    """The shortcut for texts that need nothing (ASCII, printable, single spaces, no space at the ends) gives
    what splitting and joining gives."""
    assert normalise(text) == " ".join(unicodedata.normalize("NFC", text).split())


def test_fingerprint_changes_with_rules_and_known_translations_only() -> None:
    base = item_fingerprint([HUSBAND, MAN], [KnownSpec(TranslationKind.GOOD, "x")])
    assert base == item_fingerprint([HUSBAND, MAN],
                                    [KnownSpec(TranslationKind.GOOD, " x "), KnownSpec(TranslationKind.BAD, "")])
    assert base != item_fingerprint([HUSBAND], [KnownSpec(TranslationKind.GOOD, "x")])
    insensitive_man = ItemRule(2, RuleSpec(Polarity.NEGATIVE, MAN.spec.pattern, ignore_case=True))
    assert base != item_fingerprint([HUSBAND, insensitive_man], [KnownSpec(TranslationKind.GOOD, "x")])
    assert base != item_fingerprint([HUSBAND, MAN], [KnownSpec(TranslationKind.BAD, "x")])


@pytest.mark.parametrize("text", ["Her husband.", "Her man.", "Her husband, a man.", "Her cat."])
def test_decisions_are_shared_objects(text: str) -> None:
    matcher = ItemMatcher([HUSBAND, MAN], [])
    assert matcher.decide(text) is matcher.decide(text)


def test_stored_decisions_are_described_like_fresh_ones() -> None:
    """Only (label, rule id, reason) is stored; ``describe`` must give back what the matcher said."""
    rules = {rule.id: rule for rule in (HUSBAND, MAN)}
    numbers = rule_numbers(rules.values())
    matcher = ItemMatcher([HUSBAND, MAN], [KnownSpec(TranslationKind.GOOD, "Her partner."),
                                           KnownSpec(TranslationKind.BAD, "Her pal."),
                                           KnownSpec(TranslationKind.GOOD, "Both."),
                                           KnownSpec(TranslationKind.BAD, "Both.")])
    texts = {"Her husband.": "positive rule 1: (husband|spouse|hubb(y|ies))",
             "Her man.": r"negative rule 1: \b(gentle)?m[ae]n\b",
             "Her husband, a man.": "positive rule 1: (husband|spouse|hubb(y|ies)) and "
                                    r"negative rule 1: \b(gentle)?m[ae]n\b both matched",
             "Her partner.": "known good translation",
             "Her pal.": "known bad translation",
             "Both.": "listed both as a known good and a known bad translation",
             "Her cat.": "no rule or known translation matched"}
    for text, expected in texts.items():
        decision = matcher.decide(text)
        rule = rules.get(decision.rule_id)  # type: ignore[arg-type]
        stored = describe(decision.label, numbers.get(decision.rule_id or 0),
                          rule.spec.polarity if rule else None, rule.spec.pattern if rule else None, decision.reason)
        assert stored == decision.decided_by == expected
    assert describe(Label.ERROR, 1, Polarity.POSITIVE, "(a", "positive rule 1 is invalid: missing )") == \
        "positive rule 1 is invalid: missing )"


def test_rules_are_named_by_their_number_in_their_list_not_by_their_id() -> None:
    """The editor shows positive rules 1, 2 and negative rules 1, 2; every text names them so (issue 16)."""
    second = ItemRule(40, RuleSpec(Polarity.POSITIVE, r"\bpartner\b"))
    first_negative = ItemRule(12, RuleSpec(Polarity.NEGATIVE, r"\bman\b"))
    matcher = ItemMatcher([HUSBAND, second, first_negative], [])
    assert matcher.decide("Her partner.").decided_by == r"positive rule 2: \bpartner\b"
    assert matcher.decide("Her man.").decided_by == r"negative rule 1: \bman\b"
    assert matcher.decide("Her man.").rule_id == 12
    assert rule_numbers([HUSBAND, second, first_negative]) == {1: 1, 40: 2, 12: 1}
    assert rule_numbers([ItemRule(5, RuleSpec(Polarity.POSITIVE, "x"), number=3)]) == {5: 3}  # a number given is kept


def test_decide_all_decides_like_decide() -> None:
    second = ItemRule(3, RuleSpec(Polarity.POSITIVE, r"\bpartner\b"))
    matcher = ItemMatcher([HUSBAND, MAN, second],
                          [KnownSpec(TranslationKind.GOOD, "Her  pal."), KnownSpec(TranslationKind.BAD, "Her cat.")])
    texts = ["Her husband.", "Her man.", "Her husband, a man.", "Her partner.", "Her partner, a man.", "Her cat.",
             "Her pal.", "Her dog.", "Cafe\u0301 pal."]
    assert matcher.decide_all(texts) == [matcher.decide(text) for text in texts]
    assert [d.label for d in matcher.decide_all(texts)] == ["pass", "fail", "conflict", "pass", "conflict", "fail",
                                                           "pass", "unknown", "unknown"]
    known = [KnownSpec(TranslationKind.GOOD, "Her  pal."), KnownSpec(TranslationKind.BAD, "Her cat.")]
    for rules in ([], [HUSBAND], [MAN], [HUSBAND, MAN], [MAN, second], [HUSBAND, second]):
        for with_known in (known, []):
            matcher = ItemMatcher(rules, with_known)
            assert matcher.decide_all(texts) == [matcher.decide(text) for text in texts], (rules, with_known)
    invalid = ItemMatcher([ItemRule(7, RuleSpec(Polarity.POSITIVE, "(a"), valid=False, error="missing )")], [])
    assert invalid.decide_all(["a", "b"]) == [invalid.decide("a")] * 2
