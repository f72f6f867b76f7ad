"""Label counts per item, read from the summary table ``item_label_counts`` instead of from every output.

The table holds each item's AUTOMATIC label counts and is kept exact by every writer of outputs and automatic
labels, inside the writer's own transaction: labelling (``store_counts`` from the decisions it has in memory,
``refresh_counts`` for the few items it touched partly), output import and removal, and item restore
(``refresh_counts``); deleting an item deletes its row by cascade. Reviews are not in it: they are few, and a
review changes no automatic label, so ``reviews`` reads them from ``manual_labels`` and the effective counts
move each reviewed output from its automatic label to its manual one. Counting a million outputs with their
labels takes seconds; the summary and the reviews take milliseconds.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields

from sqlalchemy import (
    ColumnElement,
    Select,
    case,
    delete,
    exists,
    func,
    select,
)
from sqlalchemy.engine import Connection

from store.bulk import insert_tuples, select_tuples
from store.models import (
    AutoLabel,
    Item,
    ItemLabelCounts,
    LabelFingerprint,
    ManualLabel,
    Output,
)
from store.upsert import conflict_insert
from suite.labels import automatic_label

_ID_CHUNK = 500
"""Ids per ``IN (...)`` list: below SQLite's older limit of 999 bound parameters."""

COUNT_COLUMNS = ("passed", "failed", "conflict", "unknown", "error", "unlabelled", "outputs")
"""The columns of ``item_label_counts`` after ``item_id``, in the order ``store_counts`` takes them."""

FIELD_OF_LABEL: dict[str | None, str] = {"pass": "passed", "fail": "failed", "conflict": "conflict",
                                         "unknown": "unknown", "error": "error", None: "unlabelled"}
"""The count that a label (automatic or manual; None: not labelled yet) adds to."""


@dataclass(frozen=True)
class LabelCounts:
    """Labels over distinct outputs; ``unlabelled`` outputs have been neither labelled nor reviewed."""

    passed: int = 0
    failed: int = 0
    conflict: int = 0
    unknown: int = 0
    error: int = 0
    unlabelled: int = 0
    reviewed: int = 0
    outputs: int = 0

    @property
    def pass_rate(self) -> float | None:
        """passed / (passed + failed); None when nothing was judged, since 0 would claim failures."""
        judged = self.passed + self.failed
        return self.passed / judged if judged else None

    @property
    def undecided(self) -> int:
        """Outputs whose label still needs a person: unknown, conflict or error (what "most undecided" sorts by)."""
        return self.unknown + self.conflict + self.error

    def of(self, label: str | None) -> int:
        """How many outputs have ``label`` (None: not labelled yet)."""
        count: int = getattr(self, FIELD_OF_LABEL[label])
        return count

    def __add__(self, other: LabelCounts) -> LabelCounts:
        return LabelCounts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


@dataclass(frozen=True)
class Review:
    """A reviewed output: its item, the manual label and the automatic one (None: not labelled yet)."""

    item_id: int
    manual: str
    automatic: str | None


def _chunks(values: Sequence[int]) -> Iterable[Sequence[int]]:
    return (values[start:start + _ID_CHUNK] for start in range(0, len(values), _ID_CHUNK))


def _count(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return func.sum(case((condition, 1), else_=0))


def _recount(item_ids: Sequence[int]) -> Select[*tuple[int, ...]]:
    """The automatic label counts of these items, grouped from their outputs and labels (the brute force)."""
    label, through = AutoLabel.label, LabelFingerprint.labelled_through
    return (select(Output.item_id, _count(label == "pass"), _count(label == "fail"), _count(label == "conflict"),
                   _count(label.is_(None) & (Output.id <= through)), _count(label == "error"),
                   _count(label.is_(None) & (through.is_(None) | (Output.id > through))), func.count())
            .select_from(Output)
            .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
            .outerjoin(LabelFingerprint, LabelFingerprint.item_id == Output.item_id)
            .where(Output.item_id.in_(item_ids))
            .group_by(Output.item_id))


def refresh_counts(connection: Connection, item_ids: Collection[int]) -> None:
    """Recount these items' automatic labels from the tables, in the caller's transaction: for writers that
    touch a few items, or whose changes are easier to recount than to add up.

    Two imports into one suite run side by side on PostgreSQL, and both may change the same item. So the items'
    rows are locked first, which waits for the other import to commit; the recount, a later statement, then
    sees its outputs too (READ COMMITTED reads what committed before each statement). It replaces a row in
    place and drops the row of an item left without outputs: deleting the rows first let the later import's
    insert fail on the row the earlier one had put back."""
    for chunk in _chunks(sorted(set(item_ids))):
        connection.execute(select(ItemLabelCounts.item_id).where(ItemLabelCounts.item_id.in_(chunk))
                           .order_by(ItemLabelCounts.item_id).with_for_update()).all()
        recount = conflict_insert(connection, ItemLabelCounts).from_select(("item_id", *COUNT_COLUMNS),
                                                                           _recount(chunk))
        connection.execute(recount.on_conflict_do_update(
            index_elements=["item_id"], set_={name: recount.excluded[name] for name in COUNT_COLUMNS}))
        connection.execute(delete(ItemLabelCounts).where(
            ItemLabelCounts.item_id.in_(chunk), ~exists().where(Output.item_id == ItemLabelCounts.item_id)))


def store_counts(connection: Connection, item_ids: Collection[int],
                 rows: Sequence[tuple[int, int, int, int, int, int, int, int]]) -> None:
    """Replace the counts of ``item_ids`` by ``rows`` (item id, then ``COUNT_COLUMNS``), which a writer
    counted from what it wrote; an item without a row has no outputs."""
    for chunk in _chunks(sorted(set(item_ids))):
        connection.execute(delete(ItemLabelCounts).where(ItemLabelCounts.item_id.in_(chunk)))
    insert_tuples(connection, ItemLabelCounts, ("item_id", *COUNT_COLUMNS), rows)


def add_unlabelled(connection: Connection, added: Mapping[int, int]) -> None:
    """Count ``added[item]`` new, not yet labelled outputs of each item: cheaper than recounting an import of
    a million outputs, which are all new.

    One ``INSERT ... ON CONFLICT`` adds to an item's row or creates it: two imports adding outputs to the same
    items side by side on PostgreSQL both found an item without a row, and the later one's insert failed on
    the row the earlier one had created (or, reading it, added to a row the other was replacing)."""
    items = sorted(item for item, n in added.items() if n)
    if not items:
        return
    upsert = conflict_insert(connection, ItemLabelCounts)
    connection.execute(upsert.on_conflict_do_update(
        index_elements=["item_id"],
        set_={"unlabelled": ItemLabelCounts.unlabelled + upsert.excluded.unlabelled,
              "outputs": ItemLabelCounts.outputs + upsert.excluded.outputs}),
        [{"item_id": item, "unlabelled": added[item], "outputs": added[item]} for item in items])


def automatic_counts(connection: Connection, items: Select[int]) -> dict[int, LabelCounts]:
    """The stored automatic counts of the items that ``items`` selects (by id); items without outputs are
    left out."""
    return {item_id: LabelCounts(**dict(zip(COUNT_COLUMNS, counts))) for item_id, *counts in connection.execute(
        select(ItemLabelCounts.item_id, *(getattr(ItemLabelCounts, name) for name in COUNT_COLUMNS))
        .where(ItemLabelCounts.item_id.in_(items)))}


def reviews(connection: Connection, item_ids: Collection[int]) -> list[Review]:
    """The reviewed outputs of these items.

    Driven from ``manual_labels`` and filtered here: a suite's condition in the query let the database start
    from its million outputs to find a few thousand reviews.
    """
    wanted = set(item_ids)
    query = (select(Output.item_id, ManualLabel.label, automatic_label(Output.id)).select_from(ManualLabel)
             .join(Output, Output.id == ManualLabel.output_id)
             .outerjoin(AutoLabel, AutoLabel.output_id == ManualLabel.output_id)
             .outerjoin(LabelFingerprint, LabelFingerprint.item_id == Output.item_id))
    return [Review(item_id, manual, automatic) for item_id, manual, automatic in select_tuples(connection, query)
            if item_id in wanted]


def effective_counts(connection: Connection, suite_id: int,
                     item_ids: Collection[int] | None = None) -> dict[int, LabelCounts]:
    """Effective label counts (a review, else the automatic label) of the suite's items, or of ``item_ids``
    among them; items without outputs are left out."""
    counts = automatic_counts(connection, select(Item.id).where(Item.suite_id == suite_id))
    if item_ids is not None:
        counts = {item_id: value for item_id, value in counts.items() if item_id in item_ids}
    moved: defaultdict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for review in reviews(connection, counts):
        change = moved[review.item_id]
        change[FIELD_OF_LABEL[review.automatic]] -= 1
        change[FIELD_OF_LABEL[review.manual]] += 1
        change["reviewed"] += 1
    for item_id, change in moved.items():
        base = counts[item_id]
        counts[item_id] = LabelCounts(**{f.name: getattr(base, f.name) + change.get(f.name, 0)
                                         for f in fields(base)})
    return counts
