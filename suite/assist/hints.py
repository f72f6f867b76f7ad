"""What the review queue shows beside each output it lists: the outputs alike to it (a group decided with it), the
pass/fail pairs deciding it would add, and its neighbour's suggestion; read for a page of rows in one call, so
that a table's rows and what it shows beside them arrive together.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from store import Database
from suite.assist.groups import OutputGroup, output_groups
from suite.assist.neighbours import Neighbour, NeighbourContext, neighbours
from suite.reading.browse import OutputRow
from suite.reading.impact import PairsAdded, pairs_added


@dataclass(frozen=True)
class RowHints:
    group: OutputGroup | None
    """The output's group when the queue groups alike outputs (itself alone included)."""
    pairs: PairsAdded | None
    """What deciding it (its whole group) adds; None for a decided output."""
    neighbour: Neighbour | None

    @property
    def size(self) -> int:
        return 1 if self.group is None else self.group.size


def review_hints(db: Database, rows: Sequence[OutputRow], *, grouped: bool,
                 context: NeighbourContext | None) -> dict[int, RowHints]:
    """The hints of ``rows``: groups when ``grouped``, neighbours when a context has been learned (None: not yet)."""
    if not rows:
        return {}
    ids = [row.output_id for row in rows]
    groups = output_groups(db, ids) if grouped else {}
    added = pairs_added(db, [(row.output_id, row.item_id, row.effective_label) for row in rows])
    near = neighbours(db, context, ids) if context is not None else {}
    hints = {}
    for output_id in ids:
        group = groups.get(output_id)
        pairs = added.get(output_id)
        if pairs is not None and group is not None:
            pairs = pairs.times(group.size)
        hints[output_id] = RowHints(group, pairs, near.get(output_id))
    return hints


def neighbour_hints(db: Database, context: NeighbourContext, hints: dict[int, RowHints]) -> dict[int, RowHints]:
    """``hints`` with the neighbours of a context learned since they were read."""
    near = neighbours(db, context, list(hints))
    return {output_id: RowHints(hint.group, hint.pairs, near.get(output_id)) for output_id, hint in hints.items()}
