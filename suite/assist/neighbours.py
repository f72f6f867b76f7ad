"""For an undecided output, the decided output of its item most like it, and whether its label can be suggested.

Likeness is word difference: the fewest tokens (words and punctuation marks) to delete and insert to make one
output the other. The nearest decided output is always shown to the reviewer ("nearest #132, pass: differs in
*the*"). It is offered as a suggestion to accept with a key only when every difference between the two is one
that kept labels elsewhere: test suites are built from minimal pairs, so one changed word often is the whole
point (a nearest decided output agrees with an undecided one on DFKI de-en only about half the time, where an
item has outputs of both labels).

What keeps a label is learned from the suite's items (``LabelKeeping``): two decided outputs of one item that
differ in one stretch only (``should not`` / ``shouldn't``) show whether that change mattered. A change is
*label-keeping* in a phenomenon when it kept the label there at least ``MIN_KEPT`` times and never changed it
there; seen too rarely in the phenomenon, when it kept the label ``MIN_KEPT`` times in the suite and never changed
it anywhere. The suggestion is the nearest decided output whose every difference is label-keeping, offered only
when every such output of the item has its label. ``bench/suggest_neighbours.py`` measures it on DFKI de-en.
"""
from __future__ import annotations

import difflib
import functools
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import regex
from sqlalchemy import select
from sqlalchemy.orm import Session

from store import Database
from store.models import Category, Item, ManualLabel, Output, Phenomenon
from suite.labels import effective_label, join_labels
from suite.suites import find_suite

Label = Literal["pass", "fail"]
Group = tuple[str | None, str | None]
"""An item's category and phenomenon: where its paradigms vary the same words."""
Tokens = tuple[str, ...]
ChangeKey = tuple[Tokens, Tokens]
"""A change as the two token runs it exchanges, the smaller first (its direction does not matter)."""

MIN_KEPT = 2
"""Times a change must have kept the label (never changing it) to be label-keeping."""
MAX_PAIRS_PER_ITEM = 200
"""Pairs of an item's decided outputs compared to learn changes: all of them up to 20 outputs, which is every
item of the DFKI suites; an item with hundreds of outputs would otherwise cost seconds on its own."""
CANDIDATES = 12
"""Decided outputs compared token by token with an undecided one, the most alike by shared tokens first."""
_ID_CHUNK = 500
_TOKEN = regex.compile(r"\w+|[^\w\s]")
_DECIDING: dict[str | None, Label] = {"pass": "pass", "fail": "fail"}


@functools.lru_cache(maxsize=65_536)
def tokens(text: str) -> Tokens:
    """Words and punctuation marks, case kept: a changed capital or question mark can be what a rule tests."""
    return tuple(_TOKEN.findall(unicodedata.normalize("NFKC", text)))


def changes(old: Tokens, new: Tokens) -> list[ChangeKey]:
    """The stretches where ``new`` differs from ``old``, each as (old run, new run)."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [(old[i1:i2], new[j1:j2]) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def change_key(old: Tokens, new: Tokens) -> ChangeKey:
    return (old, new) if old <= new else (new, old)


def distance(found: Sequence[ChangeKey]) -> int:
    return sum(len(old) + len(new) for old, new in found)


@dataclass(frozen=True)
class DecidedOutput:
    output_id: int
    text: str
    label: Label


@dataclass(frozen=True)
class ItemOutputs:
    """An item's outputs as the neighbours see them: decided (effective pass or fail) and undecided (no manual
    label, automatic label not pass or fail)."""

    item_id: int
    group: Group
    decided: tuple[DecidedOutput, ...]
    undecided: tuple[tuple[int, str], ...]


def item_outputs(session: Session, suite_id: int, item_ids: Collection[int] | None = None) -> list[ItemOutputs]:
    """The suite's items (or ``item_ids`` among them) with their decided and undecided outputs, in suite order."""
    items = (select(Item.id, Category.name, Phenomenon.name)
             .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
             .outerjoin(Category, Category.id == Phenomenon.category_id)
             .where(Item.suite_id == suite_id).order_by(Item.position, Item.id))
    outputs = join_labels(select(Output.item_id, Output.id, Output.text, effective_label(Output.id),
                                 ManualLabel.label), Output.id, Output.item_id) \
        .join(Item, Item.id == Output.item_id).where(Item.suite_id == suite_id).order_by(Output.id)
    if item_ids is not None:
        items = items.where(Item.id.in_(sorted(item_ids)))
        outputs = outputs.where(Output.item_id.in_(sorted(item_ids)))
    decided: defaultdict[int, list[DecidedOutput]] = defaultdict(list)
    undecided: defaultdict[int, list[tuple[int, str]]] = defaultdict(list)
    for item_id, output_id, text, label, manual in session.execute(outputs):
        if label in _DECIDING:
            decided[item_id].append(DecidedOutput(output_id, text, _DECIDING[label]))
        elif manual is None:
            undecided[item_id].append((output_id, text))
    return [ItemOutputs(item_id, (category, phenomenon), tuple(decided[item_id]), tuple(undecided[item_id]))
            for item_id, category, phenomenon in session.execute(items)]


Counts = Counter[tuple[ChangeKey, bool]]
"""How often a change kept (True) or changed (False) the label."""


def single_changes(item: ItemOutputs) -> Counts:
    """Per pair of the item's decided outputs that differ in one stretch: the change, and whether both outputs
    have the same label."""
    found: Counts = Counter()
    outputs = [(tokens(d.text), d.label) for d in item.decided]
    pairs = 0
    for index, (first, first_label) in enumerate(outputs):
        for second, second_label in outputs[:index]:
            if pairs == MAX_PAIRS_PER_ITEM:
                return found
            pairs += 1
            stretches = changes(first, second)
            if len(stretches) == 1:
                found[change_key(*stretches[0]), first_label == second_label] += 1
    return found


@dataclass(frozen=True)
class LabelKeeping:
    """The single changes of a suite's items, counted per phenomenon and over the suite, with items whose outputs
    are left out (``without``: the benchmark leaves out items with the scored item's source sentence)."""

    by_item: dict[int, tuple[Group, Counts]] = field(default_factory=dict)
    by_group: dict[Group, Counts] = field(default_factory=dict)
    overall: Counts = field(default_factory=Counter)
    excluded: frozenset[int] = frozenset()

    @staticmethod
    def of(items: Iterable[ItemOutputs]) -> LabelKeeping:
        by_item: dict[int, tuple[Group, Counts]] = {}
        by_group: defaultdict[Group, Counts] = defaultdict(Counter)
        overall: Counts = Counter()
        for item in items:
            counted = single_changes(item)
            if counted:
                by_item[item.item_id] = item.group, counted
                by_group[item.group].update(counted)
                overall.update(counted)
        return LabelKeeping(by_item, dict(by_group), overall)

    def without(self, item_ids: Iterable[int]) -> LabelKeeping:
        return replace(self, excluded=self.excluded | frozenset(item_ids))

    def _count(self, key: ChangeKey, kept: bool, group: Group | None, item_id: int) -> int:
        """How often ``key`` kept (or changed) the label in ``group`` (None: the suite), the item itself and the
        excluded items left out: an output is never its own evidence."""
        counts = self.overall if group is None else self.by_group.get(group, Counter())
        total = counts[key, kept]
        for left_out in self.excluded | {item_id}:
            if left_out in self.by_item:
                item_group, counted = self.by_item[left_out]
                if group is None or item_group == group:
                    total -= counted[key, kept]
        return total

    def verdict(self, group: Group, key: ChangeKey, item_id: int) -> str | None:
        """None when the change is label-keeping for an item of ``group``; otherwise why not, in words."""
        changed = self._count(key, False, group, item_id)
        if changed:
            return f"it changed the label in {changed} pair{'s' if changed > 1 else ''} of this phenomenon"
        if self._count(key, True, group, item_id) >= MIN_KEPT:
            return None
        changed = self._count(key, False, None, item_id)
        if changed:
            return f"it changed the label in {changed} pair{'s' if changed > 1 else ''} of the suite"
        kept = self._count(key, True, None, item_id)
        if kept >= MIN_KEPT:
            return None
        return "it was never seen keeping a label" if not kept else "it was seen keeping a label only once"


@dataclass(frozen=True)
class Neighbour:
    """An undecided output's nearest decided output, and the suggestion (possibly another decided output) whose
    label it may take."""

    output_id: int
    nearest: DecidedOutput
    nearest_changes: tuple[ChangeKey, ...]
    suggestion: DecidedOutput | None
    suggestion_changes: tuple[ChangeKey, ...]
    why_not: str | None
    """Why there is no suggestion, in words; None when there is one."""

    @property
    def label(self) -> Label | None:
        """The label suggested (None: none)."""
        return None if self.suggestion is None else self.suggestion.label

    def text(self) -> str:
        """"like #132, pass: differs in *the*", or, without a suggestion, "nearest #132, fail: …" and why not."""
        if self.suggestion is not None:
            return f"like #{self.suggestion.output_id}, {self.suggestion.label}: " \
                   f"{difference_words(self.suggestion_changes)}"
        return f"nearest #{self.nearest.output_id}, {self.nearest.label}: " \
               f"{difference_words(self.nearest_changes)} — not suggested: {self.why_not}"


def difference_words(found: Sequence[ChangeKey]) -> str:
    """The changes as a reader sees them: "differs in *the*", "differs in *will* → *would*, *?*"."""
    if not found:
        return "differs only in spacing"
    parts = []
    for old, new in found:
        before, after = " ".join(old), " ".join(new)
        parts.append(f"*{before}* → *{after}*" if before and after else f"*{before or after}*")
    return "differs in " + ", ".join(parts)


def _similarity(first: Tokens, second: Tokens) -> int:
    """Tokens shared (as multisets): a cheap first ranking of the candidates before the word difference."""
    return sum((Counter(first) & Counter(second)).values())


def neighbour(item: ItemOutputs, output_id: int, text: str, keeping: LabelKeeping) -> Neighbour | None:
    """The nearest decided output of ``item`` to ``text`` and the suggestion, None when it has no decided output."""
    decided = [d for d in item.decided if d.output_id != output_id]
    if not decided:
        return None
    own = tokens(text)
    candidates = sorted(decided, key=lambda d: (-_similarity(own, tokens(d.text)), d.output_id))[:CANDIDATES]
    compared = sorted(((tuple(changes(tokens(d.text), own)), d) for d in candidates),
                      key=lambda found: (distance(found[0]), found[1].output_id))
    nearest_changes, nearest = compared[0]
    keeping_ones: list[tuple[tuple[ChangeKey, ...], DecidedOutput]] = []
    why_not: str | None = None
    for found, candidate in compared:
        reasons = [reason for old, new in found
                   if (reason := keeping.verdict(item.group, change_key(old, new), item.item_id)) is not None]
        if not reasons:
            keeping_ones.append((found, candidate))
        elif candidate is nearest:
            old, new = next(change for change in found
                            if keeping.verdict(item.group, change_key(*change), item.item_id) is not None)
            why_not = f"{difference_words([(old, new)]).removeprefix('differs in ')}: {reasons[0]}"
    if keeping_ones and len({candidate.label for _, candidate in keeping_ones}) == 1:
        found, suggestion = keeping_ones[0]
        return Neighbour(output_id, nearest, nearest_changes, suggestion, found, None)
    if keeping_ones:
        why_not = "outputs of both labels differ from it only in label-keeping ways"
    return Neighbour(output_id, nearest, nearest_changes, None, (), why_not or "no decided output is close enough")


@dataclass(frozen=True)
class NeighbourContext:
    """What suggestions for a suite need: its label-keeping changes, learned once (``suite_context``)."""

    suite_id: int
    keeping: LabelKeeping


def suite_context(db: Database, suite_name: str | None = None) -> NeighbourContext:
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        return NeighbourContext(suite_id, LabelKeeping.of(item_outputs(session, suite_id)))


def neighbours(db: Database, context: NeighbourContext, output_ids: Sequence[int]) -> dict[int, Neighbour]:
    """The neighbour of each undecided output among ``output_ids`` whose item has a decided output."""
    wanted = sorted(set(output_ids))
    with db.session() as session:
        item_ids = {item_id for start in range(0, len(wanted), _ID_CHUNK) for item_id in session.scalars(
            select(Output.item_id).where(Output.id.in_(wanted[start:start + _ID_CHUNK])))}
        items = item_outputs(session, context.suite_id, item_ids) if item_ids else []
    asked = set(wanted)
    found: dict[int, Neighbour] = {}
    for item in items:
        for output_id, text in item.undecided:
            if output_id in asked and (near := neighbour(item, output_id, text, context.keeping)) is not None:
                found[output_id] = near
    return found
