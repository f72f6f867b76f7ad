"""Label counts per item, read from two summary tables instead of from every output and every review.

``item_label_counts`` holds each item's AUTOMATIC label counts, ``item_review_counts`` how many of its outputs
were reviewed with each pair of automatic and manual label. The effective counts move each reviewed output from
its automatic label to its manual one. Counting a million outputs with their labels, or reading ten thousand
reviews with the automatic labels of their outputs, takes a tenth of a second or more; the summaries take
milliseconds. Both are kept exact by every writer, inside the writer's own transaction:

- writers of outputs and automatic labels: labelling (``store_counts`` from the decisions it has in memory
  and ``recount_reviews`` for the items that have reviews, ``refresh_counts`` for items it labelled in part),
  output import (``add_unlabelled``) and removal (``refresh_counts``); deleting an item deletes its rows by
  cascade;
- writers of manual labels: ``count_reviews``, with each output's manual label before and after.

``item_group_counts`` holds how many groups of alike outputs (``alike``, with one automatic label) each item
has: every writer above that recounts or replaces an item's automatic counts, or adds outputs to it, recounts
its groups from its outputs in the same statement's transaction (``_recount_groups``), but labelling, which
counts them from the decisions and group keys it has in memory (``store_counts``); manual labels leave groups as
they are.

Every write of an item's ``item_label_counts`` row gives it a new ``stamp``: labelling, which reads outputs
outside its write transactions, writes an item only if its stamp is still the one it planned with.

On PostgreSQL writers run side by side. A writer of automatic labels locks the items' ``item_label_counts``
rows for update before it counts (``lock_counts``), a writer of manual labels locks them shared before it reads
the outputs' automatic labels: so a review and a labelling of the same item take turns, and each counts what
the other committed.
"""
from __future__ import annotations

import secrets
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, fields
from operator import add, attrgetter
from typing import NamedTuple

from sqlalchemy import (
    BigInteger,
    Column,
    ColumnElement,
    Integer,
    MetaData,
    Select,
    String,
    Table,
    Text,
    case,
    cast,
    delete,
    distinct,
    exists,
    func,
    insert,
    literal,
    literal_column,
    select,
)
from sqlalchemy.engine import Connection

from store.bulk import insert_tuples, select_tuples
from store.domain import Label
from store.group_key import group_key
from store.models import (
    AutoLabel,
    Item,
    ItemGroupCounts,
    ItemLabelCounts,
    ItemReviewCounts,
    LabelFingerprint,
    ManualLabel,
    Output,
)
from store.upsert import conflict_insert
from suite.engine.labels import automatic_label

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

    def of(self, label: Label | None) -> int:
        """How many outputs have ``label`` (None: not labelled yet)."""
        count: int = getattr(self, FIELD_OF_LABEL[label])
        return count

    def __add__(self, other: LabelCounts) -> LabelCounts:
        return LabelCounts(*map(add, _values(self), _values(other)))


_FIELDS = tuple(f.name for f in fields(LabelCounts))
_values = attrgetter(*_FIELDS)
"""A ``LabelCounts``' values in field order, taken in C (``dataclasses.astuple`` copies them deeply, slowly)."""


class ReviewCount(NamedTuple):
    """How many of an item's outputs were reviewed ``manual`` while their automatic label is ``automatic``
    (None: not labelled yet). A tuple: a filter's total reads thousands of them."""

    automatic: str | None
    manual: str
    reviews: int


@dataclass(frozen=True)
class ReviewMove:
    """A manual label set, changed or cleared, as its writer passes it to ``count_reviews``: the review moves
    from one (automatic, manual) pair of its item's counts to another."""

    output_id: int
    before: str | None
    """The manual label before (None: not reviewed)."""
    after: str | None
    """The manual label after (None: cleared)."""


def _chunks(values: Sequence[int]) -> Iterable[Sequence[int]]:
    return (values[start:start + _ID_CHUNK] for start in range(0, len(values), _ID_CHUNK))


def _count(condition: ColumnElement[bool]) -> ColumnElement[int]:
    return func.sum(case((condition, 1), else_=0))


def new_stamp() -> int:
    """A fresh ``item_label_counts.stamp`` (never 0, which rows from before the stamp have)."""
    return secrets.randbits(62) + 1


def _literal_stamp() -> ColumnElement[int]:
    """A new stamp written into the statement, for the bulk writes whose parameters are the rows."""
    return literal_column(str(new_stamp()), BigInteger)


def _recount(item_ids: Sequence[int], stamp: int) -> Select[*tuple[int, ...]]:
    """The automatic label counts of these items, grouped from their outputs and labels (the brute force)."""
    label, through = AutoLabel.label, LabelFingerprint.labelled_through
    return (select(Output.item_id, _count(label == "pass"), _count(label == "fail"), _count(label == "conflict"),
                   _count(label.is_(None) & (Output.id <= through)), _count(label == "error"),
                   _count(label.is_(None) & (through.is_(None) | (Output.id > through))), func.count(),
                   literal(stamp))
            .select_from(Output)
            .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
            .outerjoin(LabelFingerprint, LabelFingerprint.item_id == Output.item_id)
            .where(Output.item_id.in_(item_ids))
            .group_by(Output.item_id))


_REVIEWED_AUTOMATIC = func.coalesce(automatic_label(Output.id), "unlabelled")
"""A reviewed output's automatic label as ``item_review_counts`` keeps it (``unlabelled``: not labelled yet)."""


def alike() -> ColumnElement[str]:
    """What outputs of one item share when they are alike: their ``group_key`` (an output without one, written
    past its column default, is alike only to itself)."""
    return func.coalesce(Output.group_key, cast(Output.id, String))


def _recount_groups(connection: Connection, item_ids: Sequence[int]) -> None:
    """Replace these items' group counts by a count of their outputs' distinct (group key, automatic label)."""
    connection.execute(delete(ItemGroupCounts).where(ItemGroupCounts.item_id.in_(item_ids)))
    connection.execute(insert(ItemGroupCounts).from_select(
        ("item_id", "automatic", "groups"),
        select(Output.item_id, _REVIEWED_AUTOMATIC, func.count(distinct(alike())))
        .select_from(Output)
        .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
        .outerjoin(LabelFingerprint, LabelFingerprint.item_id == Output.item_id)
        .where(Output.item_id.in_(item_ids))
        .group_by(Output.item_id, _REVIEWED_AUTOMATIC)))


def lock_counts(connection: Connection, item_ids: Collection[int], *, shared: bool = False) -> dict[int, int]:
    """Lock these items' ``item_label_counts`` rows until the transaction ends (PostgreSQL; SQLite's writer
    holds the whole database) and return their stamps; items without a row (no outputs) are left out.

    ``shared``: for a writer of manual labels, which only reads the automatic labels the rows count."""
    stamps: dict[int, int] = {}
    for chunk in _chunks(sorted(set(item_ids))):
        query = (select(ItemLabelCounts.item_id, ItemLabelCounts.stamp).where(ItemLabelCounts.item_id.in_(chunk))
                 .order_by(ItemLabelCounts.item_id).with_for_update(read=shared))
        stamps.update({item_id: stamp for item_id, stamp in connection.execute(query)})
    return stamps


def refresh_counts(connection: Connection, item_ids: Collection[int]) -> None:
    """Recount these items' automatic labels and reviews from the tables, in the caller's transaction: for
    writers that touch a few items, or whose changes are easier to recount than to add up.

    Two imports into one suite run side by side on PostgreSQL, and both may change the same item. So the items'
    rows are locked first, which waits for the other import to commit; the recount, a later statement, then
    sees its outputs too (READ COMMITTED reads what committed before each statement). It replaces a row in
    place and drops the row of an item left without outputs: deleting the rows first let the later import's
    insert fail on the row the earlier one had put back."""
    for chunk in _chunks(sorted(set(item_ids))):
        lock_counts(connection, chunk)
        recount = conflict_insert(connection, ItemLabelCounts).from_select(("item_id", *COUNT_COLUMNS, "stamp"),
                                                                           _recount(chunk, new_stamp()))
        connection.execute(recount.on_conflict_do_update(
            index_elements=["item_id"],
            set_={name: recount.excluded[name] for name in (*COUNT_COLUMNS, "stamp")}))
        connection.execute(delete(ItemLabelCounts).where(
            ItemLabelCounts.item_id.in_(chunk), ~exists().where(Output.item_id == ItemLabelCounts.item_id)))
        _recount_reviews(connection, chunk)
        _recount_groups(connection, chunk)


GroupCountsRow = tuple[int, Label, int]
"""An item id, an automatic label and how many groups of alike outputs the item has with it."""


def store_counts(connection: Connection, item_ids: Collection[int],
                 rows: Sequence[tuple[int, int, int, int, int, int, int, int]],
                 groups: Sequence[GroupCountsRow]) -> None:
    """Replace the label counts of ``item_ids`` by ``rows`` (item id, then ``COUNT_COLUMNS``) and their group
    counts by ``groups``, which a writer counted from what it wrote (every output of these items); an item
    without a row has no outputs.

    The groups come counted too, not recounted from the tables (``_recount_groups``): that recount read every
    output of the items again with its label and grouped them, which doubled the CPU time of labelling's
    writer in ``bench/label.py`` (1.5 s to 2.9 s on a million outputs), the run's critical path."""
    for chunk in _chunks(sorted(set(item_ids))):
        connection.execute(delete(ItemLabelCounts).where(ItemLabelCounts.item_id.in_(chunk)))
        connection.execute(delete(ItemGroupCounts).where(ItemGroupCounts.item_id.in_(chunk)))
    insert_tuples(connection, ItemLabelCounts, ("item_id", *COUNT_COLUMNS), rows, {"stamp": _literal_stamp()})
    insert_tuples(connection, ItemGroupCounts, ("item_id", "automatic", "groups"), groups)


_GROUP_PAIRS = Table("tsqe_group_pairs", MetaData(), Column("item_id", Integer), Column("group_key", Text),
                     prefixes=["TEMPORARY"])
"""The (item, group key) pairs of the outputs ``_add_groups`` counts, for the length of one call."""
_PAIR_CHUNK = 20_000
"""Pairs inserted by one statement."""


def add_unlabelled(connection: Connection, added: Sequence[tuple[int, str]]) -> None:
    """Count new, not yet labelled outputs (item id, text; written already, each once): cheaper than recounting
    an import of a million outputs, which are all new.

    One ``INSERT ... ON CONFLICT`` adds to an item's row or creates it: two imports adding outputs to the same
    items side by side on PostgreSQL both found an item without a row, and the later one's insert failed on
    the row the earlier one had created (or, reading it, added to a row the other was replacing). That row's
    lock also makes the later import count its groups after the earlier one committed (``_add_groups``)."""
    per_item = Counter(item for item, _ in added)
    items = sorted(item for item, n in per_item.items() if n)
    if not items:
        return
    upsert = conflict_insert(connection, ItemLabelCounts)
    connection.execute(upsert.on_conflict_do_update(
        index_elements=["item_id"],
        set_={"unlabelled": ItemLabelCounts.unlabelled + upsert.excluded.unlabelled,
              "outputs": ItemLabelCounts.outputs + upsert.excluded.outputs, "stamp": upsert.excluded.stamp}),
        [{"item_id": item, "unlabelled": per_item[item], "outputs": per_item[item], "stamp": new_stamp()}
         for item in items])
    _add_groups(connection, added)


def _add_groups(connection: Connection, added: Sequence[tuple[int, str]]) -> None:
    """Count the groups that new unlabelled outputs start: those whose key no other unlabelled output of their
    item has. Only outputs alike to the new ones are read (by the index on item and key): recounting every
    output of the items an import's batch touches read each item's outputs again for every batch.

    The (item, key) pairs go to a temporary table joined through that index, each pair probed once: an ``IN`` of
    the items and one of the keys probed every item with every key, 250 x 250 probes for a batch of one system's
    outputs of 250 items, which made a test set written a system at a time twice as slow."""
    new = {(item_id, text) for item_id, text in added}
    keys = {(item_id, group_key(text)) for item_id, text in new}
    _GROUP_PAIRS.create(connection)
    pairs = [{"item_id": item_id, "group_key": key} for item_id, key in sorted(keys)]
    for start in range(0, len(pairs), _PAIR_CHUNK):
        connection.execute(insert(_GROUP_PAIRS), pairs[start:start + _PAIR_CHUNK])
    del pairs
    rows = connection.execute(
        select(Output.item_id, Output.group_key, Output.text).select_from(_GROUP_PAIRS)
        .join(Output, (Output.item_id == _GROUP_PAIRS.c.item_id) & (Output.group_key == _GROUP_PAIRS.c.group_key))
        .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
        .outerjoin(LabelFingerprint, LabelFingerprint.item_id == Output.item_id)
        .where(_REVIEWED_AUTOMATIC == "unlabelled"))
    # (item, key) that an unlabelled output from before the new ones has
    taken = {(item_id, key) for item_id, key, text in rows if (item_id, text) not in new}
    _GROUP_PAIRS.drop(connection)
    started = Counter(item_id for item_id, key in keys if (item_id, key) not in taken)
    if not started:
        return
    upsert = conflict_insert(connection, ItemGroupCounts)
    connection.execute(upsert.on_conflict_do_update(
        index_elements=["item_id", "automatic"], set_={"groups": ItemGroupCounts.groups + upsert.excluded.groups}),
        [{"item_id": item, "automatic": "unlabelled", "groups": n} for item, n in sorted(started.items())])


def _recount_reviews(connection: Connection, item_ids: Sequence[int]) -> None:
    """Replace these items' review counts by a count of their reviews and their outputs' automatic labels."""
    connection.execute(delete(ItemReviewCounts).where(ItemReviewCounts.item_id.in_(item_ids)))
    connection.execute(insert(ItemReviewCounts).from_select(
        ("item_id", "automatic", "manual", "reviews"),
        select(Output.item_id, _REVIEWED_AUTOMATIC, ManualLabel.label, func.count())
        .select_from(ManualLabel)
        .join(Output, Output.id == ManualLabel.output_id)
        .outerjoin(AutoLabel, AutoLabel.output_id == ManualLabel.output_id)
        .outerjoin(LabelFingerprint, LabelFingerprint.item_id == Output.item_id)
        .where(Output.item_id.in_(item_ids))
        .group_by(Output.item_id, _REVIEWED_AUTOMATIC, ManualLabel.label)))


def recount_reviews(connection: Connection, item_ids: Collection[int]) -> None:
    """Recount the reviews of those of these items that have any, after their automatic labels changed (a
    writer of automatic labels, which has locked the items' counts with ``lock_counts``).

    Only items with rows in ``item_review_counts`` have reviews, and finding an item's reviews means visiting its
    outputs: most items have none to visit."""
    for chunk in _chunks(sorted(set(item_ids))):
        reviewed = sorted(set(connection.scalars(select(ItemReviewCounts.item_id)
                                                 .where(ItemReviewCounts.item_id.in_(chunk)))))
        if reviewed:
            _recount_reviews(connection, reviewed)


def count_reviews(connection: Connection, changes: Sequence[ReviewMove]) -> None:
    """Count manual labels set, changed or cleared, in the writer's transaction (before or after it wrote
    them): each change moves one review between the pairs of (automatic, manual) label of its output's item."""
    changes = [change for change in changes if change.before != change.after]
    if not changes:
        return
    outputs = sorted({change.output_id for change in changes})
    item_of: dict[int, int] = {}
    for chunk in _chunks(outputs):
        item_of.update({output_id: item_id for output_id, item_id in connection.execute(
            select(Output.id, Output.item_id).where(Output.id.in_(chunk)))})
    lock_counts(connection, item_of.values(), shared=True)  # a labelling of these items commits first
    automatic: dict[int, str] = {}
    for chunk in _chunks(outputs):
        automatic.update({output_id: label for output_id, label in connection.execute(
            select(Output.id, _REVIEWED_AUTOMATIC).select_from(Output)
            .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
            .outerjoin(LabelFingerprint, LabelFingerprint.item_id == Output.item_id)
            .where(Output.id.in_(chunk)))})
    moved: Counter[tuple[int, str, str]] = Counter()
    for change in changes:
        key = (item_of[change.output_id], automatic[change.output_id])
        if change.before is not None:
            moved[(*key, change.before)] -= 1
        if change.after is not None:
            moved[(*key, change.after)] += 1
    moved = Counter({pair: n for pair, n in moved.items() if n})  # without the pairs that came out even
    if not moved:
        return
    upsert = conflict_insert(connection, ItemReviewCounts)
    connection.execute(upsert.on_conflict_do_update(
        index_elements=["item_id", "automatic", "manual"],
        set_={"reviews": ItemReviewCounts.reviews + upsert.excluded.reviews}),
        [{"item_id": item_id, "automatic": auto, "manual": manual, "reviews": n}
         for (item_id, auto, manual), n in sorted(moved.items())])
    for chunk in _chunks(sorted({item_id for item_id, _, _ in moved})):
        connection.execute(delete(ItemReviewCounts).where(ItemReviewCounts.item_id.in_(chunk),
                                                          ItemReviewCounts.reviews == 0))


def automatic_counts(connection: Connection, items: Select[int]) -> dict[int, LabelCounts]:
    """The stored automatic counts of the items that ``items`` selects (by id); items without outputs are
    left out."""
    return {item_id: LabelCounts(passed, failed, conflict, unknown, error, unlabelled, 0, outputs)
            for item_id, passed, failed, conflict, unknown, error, unlabelled, outputs in select_tuples(connection, (
                select(ItemLabelCounts.item_id, *(getattr(ItemLabelCounts, name) for name in COUNT_COLUMNS))
                .where(ItemLabelCounts.item_id.in_(items))))}


def review_counts(connection: Connection, items: Select[int]) -> dict[int, list[ReviewCount]]:
    """The stored review counts of the items that ``items`` selects (by id); items without reviews are left
    out."""
    counts: defaultdict[int, list[ReviewCount]] = defaultdict(list)
    for item_id, automatic, manual, reviews in select_tuples(connection, (
            select(ItemReviewCounts.item_id, ItemReviewCounts.automatic, ItemReviewCounts.manual,
                   ItemReviewCounts.reviews).where(ItemReviewCounts.item_id.in_(items)))):
        counts[item_id].append(ReviewCount(None if automatic == "unlabelled" else automatic, manual, reviews))
    return dict(counts)


def group_counts(connection: Connection, items: Select[int]) -> dict[int, dict[str | None, int]]:
    """The stored group counts of the items that ``items`` selects (by id), by automatic label (None: not
    labelled yet); items without outputs are left out."""
    counts: defaultdict[int, dict[str | None, int]] = defaultdict(dict)
    for item_id, automatic, groups in select_tuples(connection, (
            select(ItemGroupCounts.item_id, ItemGroupCounts.automatic, ItemGroupCounts.groups)
            .where(ItemGroupCounts.item_id.in_(items)))):
        counts[item_id][None if automatic == "unlabelled" else automatic] = groups
    return dict(counts)


def effective_counts(connection: Connection, suite_id: int,
                     item_ids: Collection[int] | None = None) -> dict[int, LabelCounts]:
    """Effective label counts (a review, else the automatic label) of the suite's items, or of ``item_ids``
    among them; items without outputs are left out."""
    in_suite = select(Item.id).where(Item.suite_id == suite_id)
    counts = automatic_counts(connection, in_suite)
    if item_ids is not None:
        counts = {item_id: value for item_id, value in counts.items() if item_id in item_ids}
    for item_id, reviewed in review_counts(connection, in_suite).items():
        base = counts.get(item_id)
        if base is None:
            continue
        change: Counter[str] = Counter()
        for review in reviewed:
            change[FIELD_OF_LABEL[review.automatic]] -= review.reviews
            change[FIELD_OF_LABEL[review.manual]] += review.reviews
            change["reviewed"] += review.reviews
        counts[item_id] = LabelCounts(*(value + change[name] for name, value in zip(_FIELDS, _values(base))))
    return counts


def suite_counts(connection: Connection, suite_id: int) -> LabelCounts:
    """The suite's effective label counts, the per-item counts summed by the database: what a run of labelling
    reports when it ends (adding up 2,767 items' counts in Python cost a tenth of that run's final step)."""
    in_suite = select(Item.id).where(Item.suite_id == suite_id)
    summed = connection.execute(select(*(func.coalesce(func.sum(getattr(ItemLabelCounts, name)), 0)
                                         for name in COUNT_COLUMNS)).where(ItemLabelCounts.item_id.in_(in_suite))).one()
    totals: Counter[str] = Counter(dict(zip(COUNT_COLUMNS, summed, strict=True)))
    for automatic, manual, reviews in connection.execute(
            select(ItemReviewCounts.automatic, ItemReviewCounts.manual, func.sum(ItemReviewCounts.reviews))
            .where(ItemReviewCounts.item_id.in_(in_suite))
            .group_by(ItemReviewCounts.automatic, ItemReviewCounts.manual)):
        totals[FIELD_OF_LABEL[None if automatic == "unlabelled" else automatic]] -= reviews
        totals[FIELD_OF_LABEL[manual]] += reviews
        totals["reviewed"] += reviews
    return LabelCounts(*(totals[name] for name in _FIELDS))
