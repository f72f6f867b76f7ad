"""How much a decision adds to the QE evaluation: the pass/fail pairs it makes (Avramidis et al.'s unit).

A pair is a passing and a failing distinct output of one item (``qe.pairs``), so deciding an undecided output
``pass`` adds one pair per failing output of its item, and ``fail`` one per passing output. The queue ordered by
impact puts first the undecided outputs of items that have outputs of only one label, where any decision of the
other label makes pairs and none exist yet; then those of items with both labels; then those of items with
neither, where one decision alone makes none; then the degenerate outputs (empty, a placeholder such as UF's
``####``, or the source copied: ``suite.engine.output_policy``), whatever their item's counts: a pair made of a
placeholder tells nothing about a QE metric, and on DFKI de-en 11 ``####`` filled the top of the queue (issue
28); decided outputs last. Within each, the most pairs first.
"""
from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy import select

from store import Database
from store.models import Item, Output
from suite.engine.label_counts import LabelCounts, effective_counts
from suite.engine.output_policy import degenerate_output

DECIDING = ("pass", "fail")


@dataclass(frozen=True)
class PairsAdded:
    """The pairs one output's decision would add: ``if_pass`` (its item's failing outputs), ``if_fail`` (its
    passing ones)."""

    if_pass: int
    if_fail: int

    @staticmethod
    def of(counts: LabelCounts) -> PairsAdded:
        return PairsAdded(counts.failed, counts.passed)

    @property
    def one_sided(self) -> bool:
        """The item has outputs of one label only: a decision of the other label makes its first pairs."""
        return (self.if_pass == 0) != (self.if_fail == 0)

    @property
    def most(self) -> int:
        return max(self.if_pass, self.if_fail)

    def times(self, outputs: int) -> PairsAdded:
        """What a decision on a group of ``outputs`` alike outputs adds."""
        return PairsAdded(self.if_pass * outputs, self.if_fail * outputs)

    def text(self) -> str:
        """"+4 if fail", "+2 if pass · +3 if fail", or empty when a decision adds none."""
        parts = [f"+{n:,} if {label}" for label, n in (("pass", self.if_pass), ("fail", self.if_fail)) if n]
        return " · ".join(parts)


def impact_rank(counts: LabelCounts, effective: str | None, degenerate: bool = False) -> tuple[int, int]:
    """Where an output stands in the impact order (smaller first): its tier, then the most pairs it could add."""
    if effective in DECIDING:
        return 4, 0
    if degenerate:
        return 3, 0
    added = PairsAdded.of(counts)
    tier = 0 if added.one_sided else 1 if added.most else 2
    return tier, -added.most


def impact_order(rows: Sequence[tuple[int, int, str | None]], counts: dict[int, LabelCounts],
                 descending: bool = False, degenerate: Collection[int] = ()) -> list[int]:
    """The ids of ``rows`` ((output id, item id, effective label), in suite order) in impact order; ties keep
    suite order, and ``descending`` reverses the whole order as every other sort does. ``degenerate``: the ids of
    the degenerate outputs among them."""
    empty = LabelCounts()
    ranked = sorted(range(len(rows)), key=lambda i: impact_rank(counts.get(rows[i][1], empty), rows[i][2],
                                                                rows[i][0] in degenerate))
    ids = [rows[i][0] for i in ranked]
    return ids[::-1] if descending else ids


def pairs_added(db: Database, outputs: Sequence[tuple[int, int, str | None]]) -> dict[int, PairsAdded]:
    """What deciding each undecided output of ``outputs`` ((output id, item id, effective label)) would add,
    under the current effective labels; decided outputs are left out, and so are degenerate ones: the queue
    showed "+8 if pass" beside UF's ``####``, a pair the impact order already counts as none (issue 28)."""
    undecided = {output_id: item_id for output_id, item_id, label in outputs if label not in DECIDING}
    if not undecided:
        return {}
    items = set(undecided.values())
    with db.session() as session:
        suite_of = {item_id: suite_id for item_id, suite_id in session.execute(
            select(Item.id, Item.suite_id).where(Item.id.in_(sorted(items))))}
        counts: dict[int, LabelCounts] = {}
        for suite_id in set(suite_of.values()):
            counts.update(effective_counts(session.connection(), suite_id, items))
            # the suite's outputs picked here, by their ids alone: "item in the suite" in the query made SQLite
            # read every output of the suite by item, 86 ms of each block of 300 rows the queue reads on a
            # million outputs instead of 2 ms
            in_suite = sorted(o for o, item_id in undecided.items() if suite_of.get(item_id) == suite_id)
            for output_id in session.scalars(select(Output.id).where(Output.id.in_(in_suite),
                                                                     degenerate_output(suite_id))):
                del undecided[output_id]
    empty = LabelCounts()
    return {output_id: PairsAdded.of(counts.get(item_id, empty)) for output_id, item_id in undecided.items()}
