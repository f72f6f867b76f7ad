"""The rule engine: an item's regular expressions and known translations decide an output's automatic label.

Rules are compiled once per item (``ItemMatcher``) with the ``regex`` package and searched unanchored, each
search bounded by a timeout so that one catastrophic pattern cannot hang labelling. Decisions are shared,
precomputed tuples so that labelling a million outputs allocates almost nothing per output.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
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
    """An automatic label and what decided it; ``rule_id`` is None when no single rule did."""

    label: str
    rule_id: int | None
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


UNKNOWN = Decision("unknown", None, "no rule or known translation matched")
KNOWN_GOOD = Decision("pass", None, "known good translation")
KNOWN_BAD = Decision("fail", None, "known bad translation")
KNOWN_BOTH = Decision("conflict", None, "listed both as a known good and a known bad translation")


def _describe(rule: RuleSpec) -> str:
    return f"{rule.polarity} rule {rule.id}: {rule.pattern}"


class ItemMatcher:
    """One item's compiled rules and normalised known translations, ready to label many outputs."""

    def __init__(self, rules: Sequence[RuleSpec], known: Iterable[KnownSpec],
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.timeout = timeout
        self.rules = tuple(rules)
        self._invalid: Decision | None = None
        compiled: list[tuple[RuleSpec, regex.Pattern[str]]] = []
        for rule in self.rules:
            pattern = _compile(rule.pattern, rule.ignore_case) if rule.valid else (rule.error or "marked invalid")
            if isinstance(pattern, str):
                self._invalid = Decision("error", rule.id, f"{rule.polarity} rule {rule.id} is invalid: {pattern}")
                break
            compiled.append((rule, pattern))
        self._compiled = compiled
        self._positive = [(p.search, Decision("pass", r.id, _describe(r)), self._timed_out(r))
                          for r, p in compiled if r.polarity == "positive"]
        self._negative = [(p.search, Decision("fail", r.id, _describe(r)), self._timed_out(r))
                          for r, p in compiled if r.polarity == "negative"]
        self._conflicts: dict[tuple[int, int], Decision] = {}
        good = {normalise(k.text) for k in known if k.kind == "good"} - {""}
        bad = {normalise(k.text) for k in known if k.kind == "bad"} - {""}
        self._known = {text: KNOWN_GOOD for text in good - bad}
        self._known.update({text: KNOWN_BAD for text in bad - good})
        self._known.update({text: KNOWN_BOTH for text in good & bad})

    def _timed_out(self, rule: RuleSpec) -> Decision:
        return Decision("error", rule.id, f"rule {rule.id} timed out after {self.timeout:g} s")

    def _conflict(self, positive: Decision, negative: Decision) -> Decision:
        key = (positive.rule_id or 0, negative.rule_id or 0)
        decision = self._conflicts.get(key)
        if decision is None:
            decision = Decision("conflict", positive.rule_id,
                                f"{positive.decided_by} and {negative.decided_by} both matched")
            self._conflicts[key] = decision
        return decision

    def decide(self, text: str) -> Decision:
        """The automatic label of one output: rules first, then known translations, else unknown."""
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
            return timed_out
        if positive is not None:
            return positive if negative is None else self._conflict(positive, negative)
        if negative is not None:
            return negative
        if self._known:
            return self._known.get(normalise(text), UNKNOWN)
        return UNKNOWN

    def spans(self, text: str) -> list[Span]:
        """Every stretch of ``text`` each valid rule matches, in text order, for highlighting.

        A rule whose search times out contributes no spans; ``decide`` reports it as an error.
        """
        found: list[Span] = []
        for rule, pattern in self._compiled:
            try:
                found.extend(Span(m.start(), m.end(), rule.id, rule.polarity)
                             for m in pattern.finditer(text, timeout=self.timeout) if m.end() > m.start())
            except TimeoutError:
                continue
        return sorted(found)
