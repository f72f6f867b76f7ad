"""Which differences between two outputs keep their label: learned from the suite's items whose decided outputs
differ in one stretch only.

Two outputs of one item that differ in a single stretch (``shouldn't`` / ``should not``, ``stood`` /
``stopped``) show whether that change matters: when both have the same label it did not, when their labels
differ it decided the label. Counted per phenomenon (a test suite's paradigms vary the same words) and over
the suite, a change is *safe* when it kept the label at least ``MIN_SAME`` times in the phenomenon and never
changed it there, or, seen too rarely in the phenomenon, ``MIN_SAME_IN_SUITE`` times in the suite and never
changed it anywhere. An undecided output whose every difference from a decided one is safe is a *variant* of
it: the two should share their label. Test suites are built from minimal pairs, so most one-word changes do
change the label (a nearest decided output agrees with an undecided one only 58 % of the time on DFKI de-en):
what counts is which change.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from suite.assist.evidence import ItemEvidence
from suite.assist.tokens import changes, words

MIN_SAME = 2
"""Times a change kept the label in the phenomenon (and never changed it) for it to be safe there."""
MIN_SAME_IN_SUITE = 5
"""Times a change kept the label in the whole suite (never changing it) for it to be safe where the phenomenon
has not seen it often enough."""

ChangeKey = tuple[tuple[str, ...], tuple[str, ...]]
"""A change as the two token sequences it exchanges, in sorted order (the direction does not matter)."""
Group = tuple[str | None, str | None]


def change_key(old: tuple[str, ...], new: tuple[str, ...]) -> ChangeKey:
    return (old, new) if old <= new else (new, old)


MAX_COMPARED = 40
"""Decided outputs of one item compared pair by pair: a test suite's paradigm has a handful (at most 13 on DFKI
de-en, one per system on a WMT test set), but the pairs grow with the square: a million-output suite with 169
decided outputs an item had 57 million pairs, and learning from them held the window's reads for 45 minutes.
An item with more contributes the pairs of these: the reviewers' decisions first, then the rest by output id."""


def single_changes(item: ItemEvidence) -> Counter[tuple[ChangeKey, bool]]:
    """Per pair of the item's decided outputs that differ in one stretch: the change and whether both outputs
    have the same label."""
    decided = item.decided_outputs()
    if len(decided) > MAX_COMPARED:
        decided = sorted(decided, key=lambda d: (d.origin != "review", d.output_id or 0))[:MAX_COMPARED]
    outputs = [(words(d.text), d.label) for d in decided]
    found: Counter[tuple[ChangeKey, bool]] = Counter()
    for index, (first, first_label) in enumerate(outputs):
        for second, second_label in outputs[index + 1:]:
            if not _may_differ_once(first, second):
                continue
            stretches = changes(first, second)
            if len(stretches) == 1:
                old_start, old_end, new_start, new_end = stretches[0]
                found[change_key(first[old_start:old_end], second[new_start:new_end]),
                      first_label == second_label] += 1
    return found


def _may_differ_once(first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    """False when difflib cannot find exactly one stretch, in a few microseconds instead of difflib's fifty: its
    one stretch is all that lies between the common start and the common end, and shares no word with the other
    side (difflib matches any shared word inside a stretch, which would split it). Only pairs that pass this are
    given to difflib, so what is counted is unchanged."""
    length = min(len(first), len(second))
    start = 0
    while start < length and first[start] == second[start]:
        start += 1
    end = 0
    while end < length - start and first[-1 - end] == second[-1 - end]:
        end += 1
    old, new = first[start:len(first) - end], second[start:len(second) - end]
    return bool(old or new) and set(old).isdisjoint(new)


@dataclass
class VariantStats:
    """The single changes of a suite's items, counted per phenomenon and over the suite."""

    by_item: dict[int, tuple[Group, Counter[tuple[ChangeKey, bool]]]] = field(default_factory=dict)
    by_group: dict[Group, Counter[tuple[ChangeKey, bool]]] = field(default_factory=lambda: defaultdict(Counter))
    overall: Counter[tuple[ChangeKey, bool]] = field(default_factory=Counter)

    @classmethod
    def of(cls, items: Iterable[ItemEvidence]) -> VariantStats:
        stats = cls()
        for item in items:
            counted = single_changes(item)
            if counted:
                stats.by_item[item.item_id] = item.group, counted
                stats.by_group[item.group].update(counted)
                stats.overall.update(counted)
        return stats

    def _count(self, counts: Counter[tuple[ChangeKey, bool]], key: ChangeKey, same: bool,
               excluded: Iterable[tuple[Group, Counter[tuple[ChangeKey, bool]]]], group: Group | None) -> int:
        total = counts[key, same]
        for excluded_group, counted in excluded:
            if group is None or excluded_group == group:
                total -= counted[key, same]
        return total

    def kept(self, group: Group, key: ChangeKey, excluded: frozenset[int] = frozenset()) -> int | None:
        """How often the change ``key`` kept the label where that makes it safe in items of ``group`` (in the
        phenomenon, else in the suite; see the module's words), None when it is not safe."""
        left_out = [self.by_item[item_id] for item_id in excluded if item_id in self.by_item]
        in_group = self.by_group.get(group, Counter())
        if self._count(in_group, key, False, left_out, group) > 0:
            return None
        same = self._count(in_group, key, True, left_out, group)
        if same >= MIN_SAME:
            return same
        in_suite = self._count(self.overall, key, True, left_out, None)
        if in_suite >= MIN_SAME_IN_SUITE and self._count(self.overall, key, False, left_out, None) == 0:
            return in_suite
        return None

    def unsafe_because(self, group: Group, key: ChangeKey, excluded: frozenset[int] = frozenset()) -> str:
        """Why the change ``key`` is not safe in items of ``group``, in words a reviewer reads beside an output
        (for a change ``kept`` returns None for)."""
        left_out = [self.by_item[item_id] for item_id in excluded if item_id in self.by_item]
        for counts, where, group_or_suite in ((self.by_group.get(group, Counter()), "this phenomenon", group),
                                              (self.overall, "the suite", None)):
            changed = self._count(counts, key, False, left_out, group_or_suite)
            if changed:
                return f"it changed the label in {changed} pair{'s' if changed > 1 else ''} of {where}"
        kept = self._count(self.overall, key, True, left_out, None)
        if not kept:
            return "it was never seen keeping a label"
        return f"it kept the label only {'once' if kept == 1 else f'{kept} times'} in the suite"

    def variant_changes(self, group: Group, text: str, of: str, excluded: frozenset[int] = frozenset()
                        ) -> list[tuple[ChangeKey, int]] | None:
        """The changes that make ``of`` into ``text``, each with how often it kept the label, when every one
        is safe (none when they differ in white space only); None when some change is not."""
        first, second = words(of), words(text)
        found: list[tuple[ChangeKey, int]] = []
        for a, b, c, d in changes(first, second):
            key = change_key(first[a:b], second[c:d])
            kept = self.kept(group, key, excluded)
            if kept is None:
                return None
            found.append((key, kept))
        return found
