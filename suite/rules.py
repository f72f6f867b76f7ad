"""The rule engine: an item's regular expressions and known translations decide an output's automatic label.

Rules are compiled once per item (``ItemMatcher``) with the ``regex`` package and searched unanchored, each
search bounded by a timeout so that one catastrophic pattern cannot hang labelling (or, in labelling's worker
processes, untimed under a watchdog, because the regex package's timeout costs two system calls a search).
Decisions are shared, precomputed tuples so that labelling a million outputs allocates almost nothing per
output. Only (label, rule id, reason) is stored; ``describe`` turns it back into the readable text.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import regex

DEFAULT_TIMEOUT = 1.0
"""Seconds one search may take before the output is labelled ``error`` (the regex package's CPU-time limit)."""


@dataclass(frozen=True)
class RuleSpec:
    """What the engine needs to know of a stored ``Rule``."""

    id: int
    polarity: str
    pattern: str
    ignore_case: bool = False
    valid: bool = True
    error: str | None = None


@dataclass(frozen=True)
class KnownSpec:
    kind: str  # "good" | "bad"
    text: str


class Decision(NamedTuple):
    """An automatic label and what decided it; ``rule_id`` is None when no single rule did.

    ``label``, ``rule_id`` and ``reason`` are what is stored; ``decided_by`` is ``describe`` of them.
    """

    label: str
    rule_id: int | None
    reason: str | None
    decided_by: str


class Span(NamedTuple):
    start: int
    end: int
    rule_id: int
    polarity: str


_IRREGULAR_SPACE = re.compile(r"^\s|\s$|\s\s|[^\S ]")


def normalise(text: str) -> str:
    """Compare known translations the way a reader would: NFC, runs of whitespace collapsed, ends stripped.

    Most outputs are already in that form; checking is cheaper than rebuilding them.
    """
    if unicodedata.is_normalized("NFC", text) and _IRREGULAR_SPACE.search(text) is None:
        return text
    return " ".join(unicodedata.normalize("NFC", text).split())


def _flags(ignore_case: bool) -> int:
    return regex.IGNORECASE if ignore_case else 0


@functools.lru_cache(maxsize=65_536)
def _compile(pattern: str, ignore_case: bool) -> regex.Pattern[str] | str:
    """The compiled pattern or why it does not compile.

    Cached here because the regex package's parser is slow and its own cache is small, while a suite
    repeats the same patterns across the items of a paradigm.
    """
    if not pattern.strip():
        return "empty pattern"
    try:
        return regex.compile(pattern, _flags(ignore_case))
    except (regex.error, OverflowError, ValueError) as error:
        return str(error)


def compile_error(pattern: str, ignore_case: bool = False) -> str | None:
    """Why ``pattern`` cannot be used as a rule, or None when it compiles; importers and the GUI report it."""
    compiled = _compile(pattern, ignore_case)
    return compiled if isinstance(compiled, str) else None


def item_fingerprint(rules: Iterable[RuleSpec], known: Iterable[KnownSpec]) -> str:
    """A hash of everything that decides an item's labels; a changed hash is what makes relabelling revisit it.

    Rule ids are part of it because a stored label points at the rule that decided it.
    """
    payload = {
        "rules": [[r.id, r.polarity, r.pattern, bool(r.ignore_case), bool(r.valid)] for r in rules],
        "known": sorted({(k.kind, normalise(k.text)) for k in known if normalise(k.text)}),
    }
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode("utf-8")).hexdigest()


_WITHOUT_RULE = {
    "pass": "known good translation",
    "fail": "known bad translation",
    "conflict": "listed both as a known good and a known bad translation",
    "unknown": "no rule or known translation matched",
}


def describe(label: str, rule_id: int | None = None, polarity: str | None = None, pattern: str | None = None,
             reason: str | None = None) -> str:
    """What decided a stored automatic label, in words: its reason if it has one, else its rule, else how a
    label is reached without a rule (exports, reviews and the GUI all show this one text)."""
    if reason:
        return reason
    if rule_id is not None:
        return f"{polarity} rule {rule_id}: {pattern}"
    return _WITHOUT_RULE.get(label, label)


def _decision(label: str, rule: RuleSpec | None = None, reason: str | None = None) -> Decision:
    rule_id = None if rule is None else rule.id
    return Decision(label, rule_id, reason, describe(label, rule_id, rule and rule.polarity, rule and rule.pattern,
                                                     reason))


UNKNOWN = _decision("unknown")
KNOWN_GOOD = _decision("pass")
KNOWN_BAD = _decision("fail")
KNOWN_BOTH = _decision("conflict")


class ItemMatcher:
    """One item's compiled rules and normalised known translations, ready to label many outputs.

    ``timeout`` None searches untimed: only for a caller that bounds the whole run some other way.
    """

    def __init__(self, rules: Sequence[RuleSpec], known: Iterable[KnownSpec],
                 timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self.timeout = timeout
        self.rules = tuple(rules)
        self._invalid: Decision | None = None
        compiled: list[tuple[RuleSpec, regex.Pattern[str]]] = []
        for rule in self.rules:
            pattern = _compile(rule.pattern, rule.ignore_case) if rule.valid else (rule.error or "marked invalid")
            if isinstance(pattern, str):
                self._invalid = _decision("error", rule, f"{rule.polarity} rule {rule.id} is invalid: {pattern}")
                break
            compiled.append((rule, pattern))
        self._compiled = compiled
        self._positive = tuple((p.search, _decision("pass", r), self._timed_out(r))
                               for r, p in compiled if r.polarity == "positive")
        self._negative = tuple((p.search, _decision("fail", r), self._timed_out(r))
                               for r, p in compiled if r.polarity == "negative")
        self._conflicts: dict[tuple[int, int], Decision] = {}
        good = {normalise(k.text) for k in known if k.kind == "good"} - {""}
        bad = {normalise(k.text) for k in known if k.kind == "bad"} - {""}
        self._known = {text: KNOWN_GOOD for text in good - bad}
        self._known.update({text: KNOWN_BAD for text in bad - good})
        self._known.update({text: KNOWN_BOTH for text in good & bad})
        self.decide: Callable[[str], Decision] = self._decide_untimed if timeout is None else self._decide_timed
        """The automatic label of one output: rules first, then known translations, else unknown."""

    def _timed_out(self, rule: RuleSpec) -> Decision | None:
        if self.timeout is None:
            return None
        return _decision("error", rule, f"rule {rule.id} timed out after {self.timeout:g} s")

    def _conflict(self, positive: Decision, negative: Decision) -> Decision:
        key = (positive.rule_id or 0, negative.rule_id or 0)
        decision = self._conflicts.get(key)
        if decision is None:
            reason = f"{positive.decided_by} and {negative.decided_by} both matched"
            decision = self._conflicts[key] = Decision("conflict", positive.rule_id, reason, reason)
        return decision

    def _settle(self, positive: Decision | None, negative: Decision | None, text: str) -> Decision:
        if positive is not None:
            return positive if negative is None else self._conflict(positive, negative)
        if negative is not None:
            return negative
        if self._known:
            return self._known.get(normalise(text), UNKNOWN)
        return UNKNOWN

    def _decide_timed(self, text: str) -> Decision:
        if self._invalid is not None:
            return self._invalid
        timeout = self.timeout
        positive = negative = None
        try:
            for search, decision, timed_out in self._positive:
                if search(text, timeout=timeout) is not None:
                    positive = decision
                    break
            for search, decision, timed_out in self._negative:
                if search(text, timeout=timeout) is not None:
                    negative = decision
                    break
        except TimeoutError:
            return timed_out  # type: ignore[return-value]  # never None when timed
        return self._settle(positive, negative, text)

    def _decide_untimed(self, text: str) -> Decision:
        """``_decide_timed`` without the timeout keyword, which alone costs a third of a search."""
        if self._invalid is not None:
            return self._invalid
        positive = negative = None
        for search, decision, _ in self._positive:
            if search(text) is not None:
                positive = decision
                break
        for search, decision, _ in self._negative:
            if search(text) is not None:
                negative = decision
                break
        if positive is None and negative is None:
            return self._known.get(normalise(text), UNKNOWN) if self._known else UNKNOWN
        return self._settle(positive, negative, text)

    def spans(self, text: str) -> list[Span]:
        """Every stretch of ``text`` each valid rule matches, in text order, for highlighting.

        A rule whose search times out contributes no spans; ``decide`` reports it as an error.
        """
        timeout = self.timeout if self.timeout is not None else DEFAULT_TIMEOUT
        found: list[Span] = []
        for rule, pattern in self._compiled:
            try:
                found.extend(Span(m.start(), m.end(), rule.id, rule.polarity)
                             for m in pattern.finditer(text, timeout=timeout) if m.end() > m.start())
            except TimeoutError:
                continue
        return sorted(found)
