"""For an undecided output, the decided output of its item most like it, and whether its label can be suggested.

Likeness is word difference: the fewest tokens (words and punctuation marks, ``suite.assist.tokens``) to delete
and insert to make one output the other. The nearest decided output is always shown to the reviewer ("nearest
#132, pass: differs in *the*"). It is offered as a suggestion to accept with a key only when every difference
between the two is one that kept labels elsewhere: test suites are built from minimal pairs, so one changed word
often is the whole point (a nearest decided output agrees with an undecided one on DFKI de-en only about half the
time, where an item has outputs of both labels).

What keeps a label is what the rule suggestions learn too (``suite.assist.variants``): two decided outputs of one
item that differ in one stretch only (``should not`` / ``shouldn't``) show whether that change mattered. The
suggestion is the nearest decided output whose every difference is safe, offered only when every such output of
the item has its label. Undecided here is what a reviewer still has to decide: no reviewer's label, and an
automatic label other than pass or fail (unknown, conflict, error, or none yet). ``bench/suggest.py`` measures
the suggestions on DFKI de-en (``neighbour precision:``).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from sqlalchemy import select

from store import Database
from store.models import ManualLabel, Output
from suite.assist.evidence import DecidedText, ItemEvidence, Label, suite_evidence
from suite.assist.tokens import changes, words
from suite.assist.variant_learning import learn_variants
from suite.assist.variants import VariantStats, change_key
from suite.engine.output_policy import degenerate_output
from suite.suites import find_suite

Tokens = tuple[str, ...]
Change = tuple[Tokens, Tokens]
"""One stretch where two outputs differ, as (the decided output's tokens, the undecided output's tokens)."""

CANDIDATES = 12
"""Decided outputs compared token by token with an undecided one, the most alike by shared tokens first."""
_ID_CHUNK = 500


def differences(old: str, new: str) -> tuple[Change, ...]:
    """The stretches where ``new`` differs from ``old``, each as (old tokens, new tokens)."""
    first, second = words(old), words(new)
    return tuple((first[a:b], second[c:d]) for a, b, c, d in changes(first, second))


def distance(found: Sequence[Change]) -> int:
    return sum(len(old) + len(new) for old, new in found)


@dataclass(frozen=True)
class Neighbour:
    """An undecided output's nearest decided output, and the suggestion (possibly another decided output) whose
    label it may take."""

    output_id: int
    nearest: DecidedText
    nearest_changes: tuple[Change, ...]
    suggestion: DecidedText | None
    suggestion_changes: tuple[Change, ...]
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


def difference_words(found: Sequence[Change]) -> str:
    """The changes as a reader sees them: "differs in *the*", "differs in *will* → *would*, *?*"."""
    if not found:
        return "differs only in spacing"
    parts = []
    for old, new in found:
        before, after = " ".join(old), " ".join(new)
        parts.append(f"*{before}* → *{after}*" if before and after else f"*{before or after}*")
    return "differs in " + ", ".join(parts)


def _shared(first: Counter[str], second: Counter[str]) -> int:
    """Tokens shared (as multisets): a cheap first ranking of the candidates before the word difference."""
    return sum((first & second).values())


@lru_cache(maxsize=20_000)
def _bag(text: str) -> Counter[str]:
    """A decided text's tokens as a multiset, made once: each undecided output of a page ranks every decided
    output of its item by them (a million-output suite's item has about 170), so a page of 300 rows made 14,000
    of them again and again."""
    return Counter(words(text))


def neighbour(item: ItemEvidence, output_id: int, text: str, stats: VariantStats,
              excluded: frozenset[int] = frozenset()) -> Neighbour | None:
    """The nearest decided output of ``item`` to ``text`` and the suggestion, None when it has no decided output.
    ``excluded``: items whose outputs do not teach which changes are safe."""
    decided = [d for d in item.decided_outputs() if d.output_id != output_id]
    if not decided:
        return None
    own = Counter(words(text))
    candidates = sorted(decided, key=lambda d: (-_shared(own, _bag(d.text)), d.output_id or 0))[:CANDIDATES]
    compared = sorted(((differences(d.text, text), d) for d in candidates),
                      key=lambda found: (distance(found[0]), found[1].output_id or 0))
    nearest_changes, nearest = compared[0]
    safe: list[tuple[tuple[Change, ...], DecidedText]] = []
    why_not: str | None = None
    for found, candidate in compared:
        unsafe = [change for change in found if stats.kept(item.group, change_key(*change), excluded) is None]
        if not unsafe:
            safe.append((found, candidate))
        elif candidate is nearest:
            why_not = f"{difference_words(unsafe[:1]).removeprefix('differs in ')}: " \
                      f"{stats.unsafe_because(item.group, change_key(*unsafe[0]), excluded)}"
    if safe and len({candidate.label for _, candidate in safe}) == 1:
        found, suggestion = safe[0]
        return Neighbour(output_id, nearest, nearest_changes, suggestion, found, None)
    if safe:
        why_not = "outputs of both labels differ from it only in label-keeping ways"
    return Neighbour(output_id, nearest, nearest_changes, None, (), why_not or "no decided output is close enough")


@dataclass(frozen=True)
class NeighbourContext:
    """What suggestions for a suite need: which changes keep labels, learned once from the suite's decided outputs
    (``suite_context``), and the items left out of that (``without``: the benchmark's hidden ones)."""

    suite_id: int
    stats: VariantStats
    excluded: frozenset[int] = field(default_factory=frozenset)

    def without(self, item_ids: Iterable[int]) -> NeighbourContext:
        return replace(self, excluded=self.excluded | frozenset(item_ids))


def suite_context(db: Database, suite_name: str | None = None, check: Callable[[], None] = lambda: None
                  ) -> NeighbourContext:
    """Learned in a worker process for a large suite (``suite.assist.variant_learning``); ``check`` may raise to
    stop."""
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
    return NeighbourContext(suite_id, learn_variants(db, suite_id, check))


def neighbours(db: Database, context: NeighbourContext, output_ids: Sequence[int]) -> dict[int, Neighbour]:
    """The neighbour of each output among ``output_ids`` that is undecided (a reviewer's ``unknown`` is a
    decision), not degenerate and whose item has a decided output: an empty output, a placeholder such as UF's
    ``####`` or the source copied is not near a translation in any way that tells its label (on DFKI de-en each
    ``####`` showed "nearest ..." and a suggestion)."""
    wanted = sorted(set(output_ids))
    unreviewed = select(Output.id, Output.item_id, Output.text) \
        .outerjoin(ManualLabel, ManualLabel.output_id == Output.id) \
        .where(ManualLabel.output_id.is_(None), ~degenerate_output(context.suite_id))
    with db.session() as session:
        asked = [row for start in range(0, len(wanted), _ID_CHUNK) for row in session.execute(
            unreviewed.where(Output.id.in_(wanted[start:start + _ID_CHUNK])))]
        items = {item.item_id: item for item in suite_evidence(
            session, context.suite_id, sorted({item_id for _, item_id, _ in asked}))} if asked else {}
    found: dict[int, Neighbour] = {}
    for output_id, item_id, text in asked:
        item = items.get(item_id)
        if item is None or any(d.output_id == output_id for d in item.decided):
            continue
        near = neighbour(item, output_id, text, context.stats, context.excluded)
        if near is not None:
            found[output_id] = near
    return found
