"""The rule engine: an item's regular expressions and known translations decide an output's automatic label.

Rules are compiled once per item (``ItemMatcher``) with the ``regex`` package, in Unicode NFC as every stored
text is, after ``suite.engine.pattern_bounds`` has checked that compiling cannot exhaust the machine (everywhere a
pattern is compiled: imports, edits, the editor's keystrokes, previews, labelling workers), and searched
unanchored, each search bounded by a timeout so that one catastrophic pattern cannot hang labelling (or, in
labelling's worker processes, untimed under a watchdog, because the regex package's timeout costs two system
calls a search).
Decisions are shared, precomputed tuples so that labelling a million outputs allocates almost nothing per
output. Only (label, rule id, reason) is stored; ``describe`` turns it back into the readable text.

Rules are named in words by their number as the editor shows them — 1, 2, … within the item's positive or
negative list, in order — never by their database id ("negative rule 2" was the editor's negative rule 1); the id
is what is stored, for machines.
"""
from __future__ import annotations

import functools
import hashlib
import json
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import regex

from store.domain import Label, Polarity, TranslationKind
from store.text import nfc
from suite.engine.pattern_bounds import too_complex

if TYPE_CHECKING:  # the command line imports this module at start, without the database layer
    from store.models import Rule

DEFAULT_TIMEOUT = 1.0
"""Seconds one search may take before the output is labelled ``error`` (the regex package's CPU-time limit)."""


@dataclass(frozen=True)
class RuleSpec:
    """A rule as a linguist writes it, and all that decides what it matches: which way it decides, its pattern
    and the one flag. Every other record of a rule holds one (``ItemRule``, the editor's ``StoredRule`` and
    ``RuleRow``, the preview's ``DraftRule``, a removed item's ``RuleSnapshot``) rather than repeating its fields;
    a suite file's rules are read into it (docs/architecture.md, "Records of a rule")."""

    polarity: Polarity
    pattern: str
    ignore_case: bool = False


@dataclass(frozen=True)
class ItemRule:
    """One of an item's rules as its ``ItemMatcher`` matches it and labelling sends it to every worker."""

    id: int
    """A stored label points at the rule that decided it (a draft's new rule has a negative stand-in)."""
    spec: RuleSpec
    valid: bool = True
    """False when the store marked the pattern invalid (at import, with ``error``): labelling then says so."""
    error: str | None = None
    number: int | None = None
    """Its number in its polarity's list as the editor shows it; None: its place among the rules given."""

    @staticmethod
    def of(rule: Rule) -> ItemRule:
        """A stored rule, as the engine matches it."""
        return ItemRule(rule.id, RuleSpec(rule.polarity, rule.pattern, rule.ignore_case), rule.valid, rule.error)


@dataclass(frozen=True)
class KnownSpec:
    kind: TranslationKind
    text: str


class Decision(NamedTuple):
    """An automatic label and what decided it; ``rule_id`` is None when no single rule did.

    ``label``, ``rule_id`` and ``reason`` are what is stored; ``decided_by`` is ``describe`` of them.
    """

    label: Label
    rule_id: int | None
    reason: str | None
    decided_by: str


class Span(NamedTuple):
    start: int
    end: int
    rule_id: int
    polarity: Polarity


def normalise(text: str) -> str:
    """Compare known translations the way a reader would: NFC, runs of whitespace collapsed, ends stripped.

    ASCII text, which ``isascii`` tells at no cost, is already NFC: splitting and joining it is all there is
    to do. Most outputs need not even that (stored outputs are stripped, and rarely hold two spaces or a tab):
    an ASCII text that is printable (no tab, newline or other control character), has no two spaces in a row
    and no space at its ends is returned as it is, in half the time of splitting it (labelling looks up half a
    million outputs among their items' known translations in the million-output benchmark).
    """
    if text.isascii():
        if text.isprintable() and "  " not in text and text.strip() == text:
            return text
        return " ".join(text.split())
    return " ".join(unicodedata.normalize("NFC", text).split())


def _flags(ignore_case: bool) -> int:
    return regex.IGNORECASE if ignore_case else 0


@functools.lru_cache(maxsize=65_536)
def _compile(pattern: str, ignore_case: bool) -> regex.Pattern[str] | str:
    """The compiled pattern or why it does not compile (or is too complex to try).

    Cached here because the regex package's parser is slow and its own cache is small, while a suite
    repeats the same patterns across the items of a paradigm.
    """
    if not pattern.strip():
        return "empty pattern"
    bound = too_complex(pattern)
    if bound is not None:
        return f"too complex: {bound.reason}"
    try:
        return regex.compile(nfc(pattern), _flags(ignore_case))
    except (regex.error, OverflowError, ValueError) as error:
        return str(error)
    except (RecursionError, MemoryError) as error:  # beyond what the bounds foresee: still no crash
        return f"too complex: the regex compiler gave up ({type(error).__name__})"


def compiled_pattern(pattern: str, ignore_case: bool = False) -> regex.Pattern[str] | None:
    """The pattern compiled as the rule engine compiles it (from its cache), None when it cannot be used."""
    compiled = _compile(pattern, ignore_case)
    return None if isinstance(compiled, str) else compiled


def compile_error(pattern: str, ignore_case: bool = False) -> str | None:
    """Why ``pattern`` cannot be used as a rule, or None when it compiles; importers and the GUI report it."""
    compiled = _compile(pattern, ignore_case)
    return compiled if isinstance(compiled, str) else None


@dataclass(frozen=True)
class PatternProblem:
    """Why a pattern cannot be a rule, and where: the editor underlines ``position`` and shows ``reason``."""

    position: int | None
    reason: str
    too_complex: bool = False

    def __str__(self) -> str:
        if self.too_complex:
            return f"pattern is too complex: {self.reason}"
        if self.position is None:
            return f"pattern does not compile: {self.reason}"
        return f"pattern does not compile at position {self.position}: {self.reason}"


def pattern_problem(pattern: str, ignore_case: bool = False) -> PatternProblem | None:
    """What is wrong with ``pattern``, or None when it compiles (compiled patterns are cached, so the
    editor's keystroke checks and the labelling that follows compile each pattern once)."""
    if not pattern.strip():
        return PatternProblem(None, "empty pattern")
    if compile_error(pattern, ignore_case) is None:
        return None
    bound = too_complex(pattern)
    if bound is not None:
        return PatternProblem(bound.position, bound.reason, too_complex=True)
    try:
        regex.compile(nfc(pattern), _flags(ignore_case))
    except regex.error as error:
        reason = str(getattr(error, "msg", None) or error)
        return PatternProblem(error.pos, reason)  # type: ignore[attr-defined]  # regex's stubs lack error.pos
    except (OverflowError, ValueError) as error:
        return PatternProblem(None, str(error))
    except (RecursionError, MemoryError) as error:
        return PatternProblem(None, f"the regex compiler gave up ({type(error).__name__})", too_complex=True)
    return None  # pragma: no cover - compile_error and regex.compile disagree only if the cache lies


def item_fingerprint(rules: Iterable[ItemRule], known: Iterable[KnownSpec],
                     policy: Mapping[str, object] | None = None) -> str:
    """A hash of everything that decides an item's labels; a changed hash is what makes relabelling revisit it.

    Rule ids are part of it because a stored label points at the rule that decided it. ``policy`` is what the
    suite's output policy decides for the item (``suite.engine.output_policy``); None, the default policy, leaves
    the hash as it was before policies existed.
    """
    payload: dict[str, object] = {
        "rules": [[r.id, r.spec.polarity, r.spec.pattern, bool(r.spec.ignore_case), bool(r.valid)] for r in rules],
        "known": sorted({(k.kind, text) for k in known if (text := normalise(k.text))}),
    }
    if policy is not None:
        payload["policy"] = dict(policy)
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode("utf-8")).hexdigest()


_WITHOUT_RULE = {
    "pass": "known good translation",
    "fail": "known bad translation",
    "conflict": "listed both as a known good and a known bad translation",
    "unknown": "no rule or known translation matched",
}


def describe(label: Label, number: int | None = None, polarity: Polarity | None = None, pattern: str | None = None,
             reason: str | None = None) -> str:
    """What decided a stored automatic label, in words: its reason if it has one, else its rule (by ``number``, as
    the editor numbers it: ``suite.engine.labels.rule_number``), else how a label is reached without a rule (exports,
    reviews and the GUI all show this one text)."""
    if reason:
        return reason
    if number:
        return f"{polarity} rule {number}: {pattern}"
    return _WITHOUT_RULE.get(label, label)


def rule_name(rule: ItemRule, number: int) -> str:
    return f"{rule.spec.polarity} rule {number}"


def _decision(label: Label, rule: ItemRule | None = None, number: int | None = None, reason: str | None = None
              ) -> Decision:
    return Decision(label, None if rule is None else rule.id, reason,
                    describe(label, number, None if rule is None else rule.spec.polarity,
                             None if rule is None else rule.spec.pattern, reason))


UNKNOWN = _decision(Label.UNKNOWN)
KNOWN_GOOD = _decision(Label.PASS)
KNOWN_BAD = _decision(Label.FAIL)
KNOWN_BOTH = _decision(Label.CONFLICT)
CONSTRUCTED = {Label.PASS: _decision(Label.PASS, reason="good translation by construction (challenge set)"),
               Label.FAIL: _decision(Label.FAIL, reason="bad translation by construction (challenge set)")}
"""The decisions of an output's label by construction (``store.models.ConstructedLabel``), which labelling
gives such an output whatever the rules say: it is what the challenge set is made of."""


_Rule = tuple[Callable[..., object], Decision, Decision]


def _first_hits(rules: Sequence[_Rule], texts: Sequence[str]) -> list[Decision | None]:
    """Per text, the decision of the first rule whose untimed search matches it, else None."""
    if not rules:
        return [None] * len(texts)
    search, decision, _ = rules[0]
    hits = [None if match is None else decision for match in map(search, texts)]
    for search, decision, _ in rules[1:]:
        missing = [position for position, hit in enumerate(hits) if hit is None]
        for position, match in zip(missing, map(search, [texts[position] for position in missing])):
            if match is not None:
                hits[position] = decision
    return hits


def rule_numbers(rules: Iterable[ItemRule]) -> dict[int, int]:
    """Rule id -> its number as the editor shows it: 1, 2, … within each polarity, in the order given."""
    counters: dict[str, int] = {}
    numbers: dict[int, int] = {}
    for rule in rules:
        polarity = rule.spec.polarity
        counters[polarity] = counters.get(polarity, 0) + 1
        numbers[rule.id] = rule.number or counters[polarity]
    return numbers


class ItemMatcher:
    """One item's compiled rules and normalised known translations, ready to label many outputs.

    ``decided`` maps output texts to the decision the suite's output policy makes for them (an empty output, a
    placeholder, the source itself: ``suite.engine.output_policy``), taken before any rule is tried.
    """

    def __init__(self, rules: Sequence[ItemRule], known: Iterable[KnownSpec],
                 timeout: float = DEFAULT_TIMEOUT, decided: Mapping[str, Decision] | None = None) -> None:
        self.timeout = timeout
        self.rules = tuple(rules)
        self._decided = dict(decided or {})
        numbers = rule_numbers(self.rules)
        self._invalid: Decision | None = None
        compiled: list[tuple[ItemRule, regex.Pattern[str]]] = []
        for rule in self.rules:
            spec = rule.spec
            pattern = _compile(spec.pattern, spec.ignore_case) if rule.valid else (rule.error or "marked invalid")
            if isinstance(pattern, str):
                self._invalid = _decision(Label.ERROR, rule, numbers[rule.id],
                                          f"{rule_name(rule, numbers[rule.id])} is invalid: {pattern}")
                break
            compiled.append((rule, pattern))
        self._compiled = compiled
        self._positive = tuple((p.search, _decision(Label.PASS, r, numbers[r.id]), self._timed_out(r, numbers[r.id]))
                               for r, p in compiled if r.spec.polarity == Polarity.POSITIVE)
        self._negative = tuple((p.search, _decision(Label.FAIL, r, numbers[r.id]), self._timed_out(r, numbers[r.id]))
                               for r, p in compiled if r.spec.polarity == Polarity.NEGATIVE)
        self._conflicts: dict[tuple[int, int], Decision] = {}
        good = {normalise(k.text) for k in known if k.kind == TranslationKind.GOOD} - {""}
        bad = {normalise(k.text) for k in known if k.kind == TranslationKind.BAD} - {""}
        self._known = {text: KNOWN_GOOD for text in good - bad}
        self._known.update({text: KNOWN_BAD for text in bad - good})
        self._known.update({text: KNOWN_BOTH for text in good & bad})

    def _timed_out(self, rule: ItemRule, number: int) -> Decision:
        return _decision(Label.ERROR, rule, number, f"{rule_name(rule, number)} timed out after {self.timeout:g} s")

    def _conflict(self, positive: Decision, negative: Decision) -> Decision:
        key = (positive.rule_id or 0, negative.rule_id or 0)
        decision = self._conflicts.get(key)
        if decision is None:
            reason = f"{positive.decided_by} and {negative.decided_by} both matched"
            decision = self._conflicts[key] = Decision(Label.CONFLICT, positive.rule_id, reason, reason)
        return decision

    def _settle(self, positives: Iterable[Decision | None], negatives: Iterable[Decision | None],
                texts: Iterable[str]) -> list[Decision]:
        """The one place a label is decided from the first positive and the first negative rule that matched
        each text: both → conflict, one → its decision, none → the known translations, else unknown. Written as
        a single comprehension because it runs once per output of a labelling (a call per output cost more
        than the decision)."""
        known, conflict = self._known, self._conflict
        return [(positive if negative is None else conflict(positive, negative)) if positive is not None
                else negative if negative is not None
                else known.get(normalise(text), UNKNOWN) if known else UNKNOWN
                for positive, negative, text in zip(positives, negatives, texts)]

    def decide(self, text: str) -> Decision:
        """The automatic label of one output: the output policy's, else rules, then known translations, else
        unknown."""
        if self._decided and (decided := self._decided.get(text)) is not None:
            return decided
        if self._invalid is not None:
            return self._invalid
        timeout = self.timeout
        positive = negative = None
        try:
            for search, decision, timed_out in self._positive:  # noqa: B007  # read by the except clause below
                if search(text, timeout=timeout) is not None:
                    positive = decision
                    break
            for search, decision, timed_out in self._negative:  # noqa: B007  # read by the except clause below
                if search(text, timeout=timeout) is not None:
                    negative = decision
                    break
        except TimeoutError:
            return timed_out
        return self._settle((positive,), (negative,), (text,))[0]

    def decide_all(self, texts: Sequence[str]) -> list[Decision]:
        """``decide`` for many outputs, searching untimed: each rule runs over all texts in one C-level
        ``map`` instead of one Python call per output, which costs more than most searches. Only for a
        caller that bounds the whole run some other way (labelling's watchdog).

        """
        if self._decided and any(text in self._decided for text in texts):
            positions = [position for position, text in enumerate(texts) if text not in self._decided]
            decisions = [self._decided.get(text, UNKNOWN) for text in texts]
            for position, decision in zip(positions, self._decide_all([texts[p] for p in positions])):
                decisions[position] = decision
            return decisions
        return self._decide_all(texts)

    def _decide_all(self, texts: Sequence[str]) -> list[Decision]:
        if self._invalid is not None:
            return [self._invalid] * len(texts)
        return self._settle(_first_hits(self._positive, texts), _first_hits(self._negative, texts), texts)

    def spans(self, text: str) -> list[Span]:
        """Every stretch of ``text`` each valid rule matches, in text order, for highlighting.

        A rule whose search times out contributes no spans; ``decide`` reports it as an error.
        """
        found: list[Span] = []
        for rule, pattern in self._compiled:
            try:
                found.extend(Span(m.start(), m.end(), rule.id, rule.spec.polarity)
                             for m in pattern.finditer(text, timeout=self.timeout) if m.end() > m.start())
            except TimeoutError:
                continue
        return sorted(found)
