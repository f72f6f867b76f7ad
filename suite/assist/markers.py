"""Words that mark a passing (or a failing) output of a phenomenon, learned from its items whose outputs hold both.

A test suite's phenomenon is a paradigm: its items vary the subject, the verb or the modal while the linguists
judge the same thing, so a word sequence that is found in passing outputs and not in failing ones across
items is likely to mark a passing output in the next item too. What marks it depends on the source sentence,
though: in "Modal negated - pluperfect subjunctive II" *should not have* passes for *hätte nicht lesen sollen*
and fails for *hätte nicht lesen müssen*. So the counts are also kept per word of the source: a marker is
judged by the items whose source shares a word with this item's source, for whichever of its words the
counts are clearest (or by all items of the phenomenon), and counts only from items that hold both a passing
and a failing output (elsewhere every word of a good translation would look like a marker).

A marker's *confidence* is the Wilson lower bound (z = ``Z``) of the share of its label among the outputs it
is found in: those items' outputs plus this item's own decided ones, which it must not contradict.

A marker of passing is never judged at all when a known bad translation of another item of its phenomenon (or,
for the category's counts, of its category) holds it: a linguist's bad translation that keeps the word shows
that the word is needed, not enough. The systems' outputs rarely show this (DFKI de-en "Conditional -
pluperfect subjunctive II": ``had`` is in passing outputs only, but the linguists' bad translations have it
too, wrong elsewhere), so the lone ``\bhad\b`` and ``\bwould\b`` were the best suggestion of an item
whose own known bad translations they passed in 12.5 % of the items (``bench/suggest.py``'s violations); with
this check 0.9 % (seeds 1-3; BENCHMARKS.md, issue 28). Markers of failing are not checked against known good
translations: it cost held-out outputs decided and removed no contradiction.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import regex

from suite.assist.evidence import ItemEvidence, Label
from suite.assist.tokens import ngrams
from suite.assist.variants import Group

Z = 1.0
"""The bound (in standard deviations) a marker's precision is judged by over a whole phenomenon."""
Z_NARROWED = 1.5
"""The bound for counts narrowed to the items whose source has a given word, or widened to the category."""
MIN_SUPPORT = 3
"""Outputs of its label a marker must be found in before it is judged at all."""
MIN_OTHER_ITEMS = 2
"""Other items whose outputs of its label a marker must be found in: a word that only this item's translations
have says what its sentence is about, not how the phenomenon is translated (DFKI de-en 00544005 was offered
``\bhomework\b``, found in its own 16 passing translations and nowhere else, and in its failing ones too)."""
_SOURCE_WORD = regex.compile(r"\w+")


def source_words(source: str) -> frozenset[str]:
    return frozenset(word.lower() for word in _SOURCE_WORD.findall(source))


def wilson_lower_bound(hits: int, total: int, z: float) -> float:
    """The lower end of the Wilson score interval of ``hits / total``: small counts are judged cautiously."""
    if total <= 0:
        return 0.0
    share = hits / total
    centre = share + z * z / (2 * total)
    spread = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total))
    return (centre - spread) / (1 + z * z / total)


@dataclass(frozen=True)
class _Occurrence:
    item_id: int
    label: Label
    source: frozenset[str]


@dataclass(frozen=True)
class MarkerEvidence:
    """What the phenomenon says of a word sequence as a marker of ``label``."""

    label: Label
    same: int
    """Outputs of ``label`` it is found in (this item's own decided ones included)."""
    other: int
    """Outputs of the other label it is found in (none of them this item's)."""
    source_word: str | None
    """The source word whose items the counts come from; None for every item of the phenomenon (category)."""
    in_category: bool
    """Whether the counts come from the whole category rather than the phenomenon."""
    confidence: float


_Index = dict[tuple[str, ...], list[_Occurrence]]


def _index() -> defaultdict[tuple[str, ...], list[_Occurrence]]:
    return defaultdict(list)


@dataclass
class MarkerStats:
    """Per phenomenon and per category, every word sequence of the decided outputs of their contrasting items,
    with where it is."""

    by_group: dict[Group, _Index] = field(default_factory=lambda: defaultdict(_index))
    by_category: dict[str | None, _Index] = field(default_factory=lambda: defaultdict(_index))
    bad_by_group: dict[Group, _Index] = field(default_factory=lambda: defaultdict(_index))
    """Every word sequence of the known bad translations no system produced, per phenomenon."""
    bad_by_category: dict[str | None, _Index] = field(default_factory=lambda: defaultdict(_index))

    @classmethod
    def of(cls, items: Iterable[ItemEvidence]) -> MarkerStats:
        stats = cls()
        for item in items:
            words = source_words(item.source)
            for known in item.decided:
                if known.output_id is None and known.label == "fail":
                    occurrence = _Occurrence(item.item_id, known.label, words)
                    for ngram in ngrams(known.text):
                        stats.bad_by_group[item.group][ngram].append(occurrence)
                        stats.bad_by_category[item.category][ngram].append(occurrence)
            if not item.contrasts:
                continue
            in_group, in_category = stats.by_group[item.group], stats.by_category[item.category]
            for decided in item.decided_outputs():
                occurrence = _Occurrence(item.item_id, decided.label, words)
                for ngram in ngrams(decided.text):
                    in_group[ngram].append(occurrence)
                    in_category[ngram].append(occurrence)
        return stats

    def judge(self, item: ItemEvidence, ngram: tuple[str, ...], label: Label, own: int,
              excluded: frozenset[int], wanted: float) -> MarkerEvidence | None:
        """The clearest evidence for ``ngram`` marking ``label`` in ``item`` (found in ``own`` of its decided
        texts of that label and in none of the other): the phenomenon's, else, when that is not ``wanted``
        confident, the category's if clearer. None when it is found in too few outputs, or when it would mark
        passing and a known bad translation of another item there holds it (see the module docstring)."""
        if label == "pass" and _held(self.bad_by_group.get(item.group, {}).get(ngram, ()), item, excluded):
            return None
        best = _clearest(self.by_group.get(item.group, {}).get(ngram, ()), item, label, own, excluded, False)
        if best is None or best.confidence < wanted:
            if label == "pass" and _held(self.bad_by_category.get(item.category, {}).get(ngram, ()), item,
                                         excluded):
                return best
            wider = _clearest(self.by_category.get(item.category, {}).get(ngram, ()), item, label, own, excluded,
                              True)
            if wider is not None and (best is None or wider.confidence > best.confidence):
                return wider
        return best


def _held(occurrences: Iterable[_Occurrence], item: ItemEvidence, excluded: frozenset[int]) -> bool:
    """Whether an item other than ``item`` and those ``excluded`` has one of ``occurrences``."""
    return any(occurrence.item_id != item.item_id and occurrence.item_id not in excluded
               for occurrence in occurrences)


def _clearest(occurrences: Iterable[_Occurrence], item: ItemEvidence, label: Label, own: int,
              excluded: frozenset[int], in_category: bool) -> MarkerEvidence | None:
    counts: dict[str | None, Counter[bool]] = defaultdict(Counter)
    agreeing: defaultdict[str | None, set[int]] = defaultdict(set)
    words = source_words(item.source)
    for occurrence in occurrences:
        if occurrence.item_id in excluded:
            continue
        agrees = occurrence.label == label
        counts[None][agrees] += 1
        if agrees:
            agreeing[None].add(occurrence.item_id)
        for shared in occurrence.source & words:
            counts[shared][agrees] += 1
            if agrees:
                agreeing[shared].add(occurrence.item_id)
    best: MarkerEvidence | None = None
    narrowed: list[str | None] = [None, *sorted(words)]
    for word in narrowed:
        same, other = counts[word][True] + own, counts[word][False]
        if same < MIN_SUPPORT or len(agreeing[word] - {item.item_id}) < MIN_OTHER_ITEMS:
            continue
        z = Z if word is None and not in_category else Z_NARROWED
        confidence = wilson_lower_bound(same, same + other, z)
        if best is None or confidence > best.confidence:
            best = MarkerEvidence(label, same, other, word, in_category, confidence)
    return best
