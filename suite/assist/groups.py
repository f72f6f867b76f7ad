"""Groups of alike outputs, decided at once: outputs of one item whose texts differ only in case, punctuation,
quotes, white space or Unicode form (``store.group_key``) and that the item's rules label alike.

The automatic label is part of the group because a test suite's rules often tell such outputs apart on purpose
(DFKI de-en's punctuation and question items pass "Can you do that?" and fail "Can you do that"): outputs the
rules decided differently are not one decision for a reviewer. The review queue shows a group once (``grouped``
in ``suite.reading.browse.OutputFilter``), with its size and every system behind it; a decision on the group is one
``suite.editing.undoable_edits.Decide`` over all its outputs: one transaction, one undo step, a history entry per
output.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select

from store import Database
from store.domain import Label
from store.models import Output
from suite.editing.review import OutputDecision, SeenOutput
from suite.engine.labels import automatic_label, join_labels
from suite.reading.browse import OutputRow, alike, output_rows

_ID_CHUNK = 500


@dataclass(frozen=True)
class OutputGroup:
    """An output and the outputs alike to it (itself first, then by id)."""

    members: tuple[OutputRow, ...]

    @property
    def output_id(self) -> int:
        return self.members[0].output_id

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def systems(self) -> tuple[str, ...]:
        """Every system behind the group, each once, sorted."""
        return tuple(sorted({system for member in self.members for system in member.systems}))

    @property
    def others(self) -> tuple[OutputRow, ...]:
        return self.members[1:]


def output_groups(db: Database, output_ids: Sequence[int]) -> dict[int, OutputGroup]:
    """The group of each of these outputs (a group of one for an output alike to none); outputs that no longer
    exist are left out."""
    wanted = list(dict.fromkeys(output_ids))
    with db.session() as session:
        keys: dict[int, tuple[int, str, str | None]] = {}
        for start in range(0, len(wanted), _ID_CHUNK):
            chunk = wanted[start:start + _ID_CHUNK]
            keys.update((output_id, (item_id, key, label)) for output_id, item_id, key, label in session.execute(
                join_labels(select(Output.id, Output.item_id, alike(), automatic_label(Output.id)), Output.id,
                            Output.item_id).where(Output.id.in_(chunk))))
        items = sorted({item_id for item_id, _, _ in keys.values()})
        alike_outputs: defaultdict[tuple[int, str, str | None], list[int]] = defaultdict(list)
        for start in range(0, len(items), _ID_CHUNK):
            for output_id, item_id, key, label in session.execute(
                    join_labels(select(Output.id, Output.item_id, alike(), automatic_label(Output.id)), Output.id,
                                Output.item_id).where(Output.item_id.in_(items[start:start + _ID_CHUNK]))
                    .order_by(Output.id)):
                alike_outputs[item_id, key, label].append(output_id)
    members = {output_id: [output_id, *(other for other in alike_outputs[key] if other != output_id)]
               for output_id, key in keys.items()}
    rows = {row.output_id: row for row in output_rows(db, sorted({i for ids in members.values() for i in ids}))}
    return {output_id: OutputGroup(tuple(rows[i] for i in ids if i in rows))
            for output_id, ids in members.items() if output_id in rows}


def systems_text(systems: Sequence[str], shown: int = 2) -> str:
    """"UEdin, Online-A +3": the first systems of a group and how many more."""
    more = len(systems) - shown
    return ", ".join(systems[:shown]) + (f" +{more}" if more > 0 else "")


def group_decisions(group: OutputGroup, label: Label | None, *, comment: str | None = None,
                    seen_version: int | None = None) -> list[OutputDecision]:
    """One decision for every output of the group (``label`` None clears them), for ``suite.editing.review.decide``.
    ``seen_version`` is the first output's review as read; the others are decided without a version, which
    refuses to replace another reviewer's decision on any of them unawares."""
    return [OutputDecision(SeenOutput(member.output_id, seen_version if i == 0 else None, comment), label)
            for i, member in enumerate(group.members)]
