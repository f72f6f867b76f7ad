"""Browsing a suite's distinct outputs: filtered, sorted id lists and the rows behind them.

A review table over a million outputs holds only the ordered list of matching ids (``output_ids``) and asks
for the rows it paints (``output_rows``), as Anki's browser does; ``browse_outputs`` serves one page with its
total for the command line. Filtering and sorting happen in the database, through SQLAlchemy Core with bound
parameters, and every ordering ends with item position and output id so that pages never overlap or skip.
Labels are read through ``suite.engine.labels`` only; a query joins the label tables only when a filter or the
sort needs them, because those joins are most of the cost of counting a million outputs.
"""
from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime
from itertools import groupby
from operator import itemgetter
from typing import Any, TextIO, TypeVar

from sqlalchemy import (
    ColumnElement,
    Select,
    SQLColumnExpression,
    case,
    func,
    literal,
    select,
)
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from store import Database
from store.domain import Label
from store.models import (
    AUTO_LABELS,
    AutoLabel,
    Category,
    Item,
    ManualLabel,
    Output,
    Phenomenon,
    Rule,
    System,
    SystemOutput,
)
from suite.engine.label_counts import (
    LabelCounts,
    ReviewCount,
    alike,
    automatic_counts,
    effective_counts,
    group_counts,
    review_counts,
)
from suite.engine.labels import (
    EFFECTIVE_LABELS,
    automatic_label,
    automatic_label_candidates,
    effective_label,
    effective_label_candidates,
    join_labels,
    rule_number,
)
from suite.engine.output_policy import degenerate_output
from suite.engine.rules import DEFAULT_TIMEOUT, ItemMatcher, ItemRule, Span, describe
from suite.errors import TsqeError
from suite.reading.impact import impact_order
from suite.suites import find_suite

SORTS = ("item", "label", "category", "systems", "text", "impact")
"""``systems`` orders by how many systems produced an output (a translation many systems share first when
descending), ``category`` by category then phenomenon name (outputs of items without one last), ``impact`` by the
pass/fail pairs a decision would add (``suite.reading.impact``: undecided outputs of items with outputs of one
label only first)."""

_Query = TypeVar("_Query", bound="Select[*tuple[Any, ...]]")

_ID_CHUNK = 500
"""Ids per ``IN (...)`` list: below SQLite's older limit of 999 bound parameters."""


@dataclass(frozen=True)
class OutputFilter:
    """Which outputs to show; every field that is set must hold (they combine with AND)."""

    label: Label | None = None
    """Effective label: pass, fail, conflict, unknown or error."""
    auto_label: Label | None = None
    reviewed: bool | None = None
    """True: has a manual label; False: has none."""
    disagree: bool = False
    """The manual label differs from the automatic one (a reviewed output not labelled automatically counts)."""
    category: str | None = None
    phenomenon: str | None = None
    item: str | None = None
    """An item's external id."""
    item_ids: tuple[int, ...] | None = None
    """Items' database ids (the GUI's "jump to these items")."""
    system: str | None = None
    contains: str | None = None
    """A substring of the output text, case-insensitive (on SQLite for ASCII letters only: its ``lower``)."""
    grouped: bool = False
    """Outputs of an item that are alike (``alike``) and have the same automatic label show once: the first of
    them that the other conditions let through stands for the group (``suite.assist.groups``)."""
    degenerate: bool = False
    """Only outputs that are empty, one of the suite's placeholders or identical to their source, whatever the
    suite's policy decides about them (``suite.engine.output_policy``)."""


@dataclass(frozen=True, slots=True)
class OutputRow:
    """One output as a table shows it. Slotted: a scrolled table keeps thousands, each otherwise with a dict
    that the garbage collector walks."""

    output_id: int
    item_id: int
    external_id: str
    category: str | None
    phenomenon: str | None
    source: str
    text: str
    systems: tuple[str, ...]
    auto_label: Label | None
    decided_by: str | None
    rule_id: int | None
    manual_label: Label | None
    reviewer: str | None
    reviewed_at: datetime | None
    comment: str | None
    effective_label: Label | None
    manual_version: int
    """The manual label's version, 0 when not reviewed: what an edit passes back as ``expected_version``."""


ROW_FIELDS = tuple(field.name for field in fields(OutputRow))


def plain(value: Any) -> Any:
    """A row's value as JSON and TSV hold it: times in ISO form, systems as a list."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple):
        return list(value)
    return value


def write_rows_tsv(rows: Iterable[OutputRow], out: TextIO) -> None:
    """Rows as tab-separated values under a header of their fields: ``tsqe outputs --format tsv`` and the review
    table's Copy (Ctrl+C) write the same text, to paste into a spreadsheet or a report."""
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(ROW_FIELDS)
    for row in rows:
        values = [plain(getattr(row, name)) for name in ROW_FIELDS]
        writer.writerow([", ".join(v) if isinstance(v, list) else "" if v is None else v for v in values])


@dataclass(frozen=True)
class OutputPage:
    total: int
    rows: list[OutputRow]


def _check(filter: OutputFilter, sort: str) -> None:
    """Refuse a bad filter before querying, so a typo is reported rather than shown as an empty table."""
    if filter.label is not None and filter.label not in EFFECTIVE_LABELS:
        raise TsqeError(f"label must be one of {', '.join(EFFECTIVE_LABELS)}, not {filter.label!r}")
    if filter.auto_label is not None and filter.auto_label not in AUTO_LABELS:
        raise TsqeError(f"automatic label must be one of {', '.join(AUTO_LABELS)}, not {filter.auto_label!r}")
    if sort not in SORTS:
        raise TsqeError(f"outputs can be sorted by {', '.join(SORTS)}, not {sort!r}")


def _needs_labels(filter: OutputFilter, sort: str | None) -> bool:
    return (sort in ("label", "impact") or filter.label is not None or filter.auto_label is not None
            or filter.reviewed is not None or filter.disagree)


def _label_rank(label: ColumnElement[Label]) -> ColumnElement[int]:
    """Labels in their fixed order (pass, fail, conflict, unknown, error), unlabelled outputs last."""
    return case({name: rank for rank, name in enumerate(EFFECTIVE_LABELS)}, value=label,
                else_=len(EFFECTIVE_LABELS))


def _items(suite_id: int, filter: OutputFilter) -> Select[int]:
    """The ids of the suite's items that the filter's item conditions allow."""
    query = select(Item.id).where(Item.suite_id == suite_id)
    if filter.category is not None or filter.phenomenon is not None:
        query = query.join(Phenomenon, Phenomenon.id == Item.phenomenon_id)
    if filter.category is not None:
        query = query.join(Category, Category.id == Phenomenon.category_id).where(Category.name == filter.category)
    if filter.phenomenon is not None:
        query = query.where(Phenomenon.name == filter.phenomenon)
    if filter.item is not None:
        query = query.where(Item.external_id == filter.item)
    if filter.item_ids is not None:
        query = query.where(Item.id.in_(filter.item_ids))
    return query


def _representatives(suite_id: int, filter: OutputFilter, items: Sequence[int] | None) -> Select[Any]:
    """The first output of each group of alike outputs with one automatic label among those ``filter`` lets
    through. Not correlated with the query it filters, which reads the same tables."""
    inner = _filtered(select(func.min(Output.id)).select_from(Output), suite_id, replace(filter, grouped=False),
                      None, items)
    if not _needs_labels(filter, None):
        inner = join_labels(inner, Output.id, Output.item_id)
    return inner.group_by(Output.item_id, alike(), automatic_label(Output.id)).correlate(None)


def _filtered(query: _Query, suite_id: int, filter: OutputFilter, sort: str | None,
              items: Sequence[int] | None = None) -> _Query:
    """``query`` (selecting from ``Output``) with the filter applied, joined to what the filter and the sort
    need (``sort`` None: no order, for counting).

    Conditions on items, systems and stored labels are uncorrelated ``IN`` subqueries, so that the database can
    start from the few outputs a rare label or a system names rather than from every output of the suite.
    ``items``, ids of items the filter allows, replaces the item conditions and the stored-label candidates:
    the database then starts from those items' outputs, and does not read every label of a common value.
    """
    if sort is not None:
        query = query.join(Item, Item.id == Output.item_id)
    if sort == "category":
        query = (query.outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
                 .outerjoin(Category, Category.id == Phenomenon.category_id))
    if _needs_labels(filter, sort):
        query = join_labels(query, Output.id, Output.item_id)
    conditions: list[ColumnElement[bool]] = [Output.item_id.in_(_items(suite_id, filter) if items is None else items)]
    if filter.label is not None:
        conditions.append(effective_label(Output.id) == filter.label)
        if items is None and (candidates := effective_label_candidates(filter.label)) is not None:
            conditions.append(Output.id.in_(candidates))
    if filter.auto_label is not None:
        conditions.append(automatic_label(Output.id) == filter.auto_label)
        if items is None and (automatic := automatic_label_candidates(filter.auto_label)) is not None:
            conditions.append(Output.id.in_(automatic))
    if filter.reviewed is False:
        conditions.append(ManualLabel.output_id.is_(None))
    if filter.reviewed or filter.disagree:
        conditions.append(Output.id.in_(select(ManualLabel.output_id)))
    if filter.disagree:
        conditions.append(ManualLabel.label.is_distinct_from(automatic_label(Output.id)))
    if filter.system is not None:
        # Uncorrelated, so the database reads the system's outputs once (by the primary key, which starts
        # with the system) instead of searching them again for every output.
        conditions.append(Output.id.in_(select(SystemOutput.output_id)
                                        .join(System, System.id == SystemOutput.system_id)
                                        .where(System.suite_id == suite_id, System.name == filter.system)))
    if filter.contains is not None:
        conditions.append(Output.text.icontains(filter.contains, autoescape=True))
    if filter.degenerate:
        conditions.append(degenerate_output(suite_id))
    if filter.grouped:
        conditions.append(Output.id.in_(_representatives(suite_id, filter, items)))
    return query.where(*conditions)


def _ordering(sort: str, descending: bool) -> list[SQLColumnExpression[Any]]:
    keys: list[SQLColumnExpression[Any]]
    if sort == "label":
        keys = [_label_rank(effective_label(Output.id))]
    elif sort == "category":
        keys = [Category.name.is_(None), Category.name, Phenomenon.name.is_(None), Phenomenon.name]
    elif sort == "systems":
        keys = [select(func.count()).where(SystemOutput.output_id == Output.id).scalar_subquery()]
    elif sort == "text":
        keys = [Output.text]
    else:
        keys = []
    keys += [Item.position, Output.id]
    return [key.desc() if descending else key.asc() for key in keys]


def _suite_id(session: Session, suite_name: str | None) -> int:
    return find_suite(session, suite_name).id


def output_ids(db: Database, filter: OutputFilter = OutputFilter(), *, suite_name: str | None = None,
               sort: str = "item", descending: bool = False) -> list[int]:
    """Every matching output id in display order: the list a lazy table model holds."""
    _check(filter, sort)
    with db.session() as session:
        if sort == "impact":
            return _impact_ids(session, _suite_id(session, suite_name), filter, descending)
        query = _filtered(select(Output.id).select_from(Output), _suite_id(session, suite_name), filter, sort)
        return list(session.scalars(query.order_by(*_ordering(sort, descending))))


def browse_outputs(db: Database, filter: OutputFilter = OutputFilter(), *, suite_name: str | None = None,
                   sort: str = "item", descending: bool = False, limit: int = 100, offset: int = 0) -> OutputPage:
    """One page of matching outputs and how many match in all."""
    _check(filter, sort)
    if limit < 0 or offset < 0:
        raise TsqeError("a page needs a limit and an offset of at least 0")
    with db.session() as session:
        suite_id = _suite_id(session, suite_name)
        if sort == "impact":
            ids = _impact_ids(session, suite_id, filter, descending)
            return OutputPage(len(ids), _rows(session, ids[offset:offset + limit]))
        items: list[int] | None = None
        if filter.system is not None or filter.contains is not None or filter.degenerate:
            # The total ignores the sort: a count needs none of the joins that only ordering asks for.
            total = session.scalar(_filtered(select(func.count()).select_from(Output), suite_id, filter, None)) or 0
        else:
            per_item = _matches_per_item(session.connection(), suite_id, filter)
            total = sum(matches for _, _, matches in per_item)
            if sort == "item" and (page := _page_items(per_item, descending, limit, offset)) is not None:
                items, offset = page
        query = _filtered(select(Output.id).select_from(Output), suite_id, filter, sort, items)
        ids = list(session.scalars(query.order_by(*_ordering(sort, descending)).limit(limit).offset(offset)))
        return OutputPage(total, _rows(session, ids))


def _impact_ids(session: Session, suite_id: int, filter: OutputFilter, descending: bool) -> list[int]:
    """The matching ids in impact order, ranked in Python from the items' effective label counts: the rank of an
    output depends on its whole item, which a sort key of SQL would count again for every output."""
    query = _filtered(select(Output.id, Output.item_id, effective_label(Output.id), degenerate_output(suite_id))
                      .select_from(Output), suite_id, filter, "impact")
    rows, degenerate = [], set()
    for output_id, item_id, label, is_degenerate in session.execute(query.order_by(*_ordering("item", False))):
        rows.append((output_id, item_id, label))
        if is_degenerate:
            degenerate.add(output_id)
    return impact_order(rows, effective_counts(session.connection(), suite_id), descending, degenerate)


def _matches_per_item(connection: Connection, suite_id: int, filter: OutputFilter) -> list[tuple[int, int, int]]:
    """(position, item id, matching outputs) of the items the filter allows, in suite order, from the per-item
    label, review and group counts (``suite.engine.label_counts``): for a filter on items and labels only, which
    is what these can answer without visiting outputs. In the grouped queue an item with reviews is counted
    from its outputs: its members' manual labels decide which of its groups a label filter lets through."""
    items = connection.execute(_items(suite_id, filter).add_columns(Item.position)
                               .order_by(Item.position, Item.id)).all()
    reviewed = review_counts(connection, _items(suite_id, filter))
    if filter.grouped:
        groups = group_counts(connection, _items(suite_id, filter))
        counted = _grouped_matches(connection, suite_id, filter, sorted(reviewed))
        return [(position, item_id, counted.get(item_id, 0) if item_id in reviewed
                 else _group_matches(filter, groups.get(item_id, {}))) for item_id, position in items]
    counts = automatic_counts(connection, _items(suite_id, filter))
    return [(position, item_id, _matches(filter, counts.get(item_id, LabelCounts()), reviewed.get(item_id, [])))
            for item_id, position in items]


def _group_matches(filter: OutputFilter, groups: dict[str | None, int]) -> int:
    """How many groups of an item without reviews pass the filter's label conditions: its groups of the one
    automatic label asked for (an unreviewed output's effective label is its automatic one)."""
    asked = {label for label in (filter.label, filter.auto_label) if label is not None}
    if len(asked) > 1 or filter.reviewed or filter.disagree:
        return 0
    if not asked:
        return sum(groups.values())
    return groups.get(next(iter(asked)), 0)


def _grouped_matches(connection: Connection, suite_id: int, filter: OutputFilter,
                     item_ids: Sequence[int]) -> dict[int, int]:
    """The grouped queue's rows of each of these items (with reviews), counted from their outputs."""
    counted: dict[int, int] = {}
    for start in range(0, len(item_ids), _ID_CHUNK // 2):  # the ids are bound twice: the rows and their groups
        chunk = item_ids[start:start + _ID_CHUNK // 2]
        query = _filtered(select(Output.item_id, func.count()).select_from(Output), suite_id, filter, None, chunk)
        counted.update((item_id, n) for item_id, n in connection.execute(query.group_by(Output.item_id)))
    return counted


def _matches(filter: OutputFilter, counts: LabelCounts, reviewed: list[ReviewCount]) -> int:
    """How many outputs of an item with these automatic counts and reviews pass the filter's label conditions:
    its unreviewed outputs of the one automatic label asked for, plus its reviews that qualify."""
    asked = {label for label in (filter.label, filter.auto_label) if label is not None}
    unreviewed = 0
    if len(asked) <= 1 and not filter.reviewed and not filter.disagree:
        label = next(iter(asked), None)
        unreviewed = (counts.outputs if label is None else counts.of(label)) - sum(
            review.reviews for review in reviewed if label is None or review.automatic == label)
    if filter.reviewed is False:
        return unreviewed
    return unreviewed + sum(
        review.reviews for review in reviewed
        if filter.label in (None, review.manual) and filter.auto_label in (None, review.automatic)
        and not (filter.disagree and review.manual == review.automatic))


def _page_items(per_item: list[tuple[int, int, int]], descending: bool, limit: int, offset: int
                ) -> tuple[list[int], int] | None:
    """The items whose matching outputs hold rows ``offset`` to ``offset + limit`` in item order, and the offset
    of the page among those items' outputs: the page query then reads a hundred rows' items instead of sorting
    every match. Items of one position form a unit, since their outputs interleave by output id. None when
    the page spans too many items for one ``IN`` list."""
    units = [[(item_id, matches) for _, item_id, matches in unit]
             for _, unit in groupby(per_item, key=itemgetter(0))]
    skipped, taken, items = 0, 0, list[int]()
    for unit in reversed(units) if descending else units:
        matches = sum(n for _, n in unit)
        if not matches:
            continue
        if not items and skipped + matches <= offset:
            skipped += matches
            continue
        if taken >= offset - skipped + limit:
            break
        items += [item_id for item_id, n in unit if n]
        taken += matches
    return (items, offset - skipped) if len(items) <= _ID_CHUNK else None


def output_rows(db: Database, ids: Sequence[int]) -> list[OutputRow]:
    """The rows of these outputs in the order given; ids that no longer exist are left out."""
    with db.session() as session:
        return _rows(session, ids)


def _rows(session: Session, ids: Sequence[int]) -> list[OutputRow]:
    found: dict[int, tuple[Any, ...]] = {}
    systems: defaultdict[int, list[str]] = defaultdict(list)
    columns = (Output.id, Output.item_id, Item.external_id, Category.name, Phenomenon.name, Item.source, Output.text,
               automatic_label(Output.id), AutoLabel.rule_id, rule_number(), Rule.polarity, Rule.pattern,
               AutoLabel.reason,
               ManualLabel.label, ManualLabel.reviewer, ManualLabel.reviewed_at, ManualLabel.comment,
               effective_label(Output.id), func.coalesce(ManualLabel.version, literal(0)))
    for chunk in _chunks(ids):
        query = join_labels(select(*columns).select_from(Output)
                            .join(Item, Item.id == Output.item_id)
                            .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
                            .outerjoin(Category, Category.id == Phenomenon.category_id), Output.id, Output.item_id)
        found.update((row[0], tuple(row)) for row in session.execute(
            query.outerjoin(Rule, Rule.id == AutoLabel.rule_id).where(Output.id.in_(chunk))))
        for output_id, name in session.execute(select(SystemOutput.output_id, System.name)
                                               .join(System, System.id == SystemOutput.system_id)
                                               .where(SystemOutput.output_id.in_(chunk)).order_by(System.name)):
            systems[output_id].append(name)
    return [_row(found[i], systems[i]) for i in ids if i in found]


def _row(values: tuple[Any, ...], systems: list[str]) -> OutputRow:
    (output_id, item_id, external_id, category, phenomenon, source, text, auto, rule_id, number, polarity, pattern,
     reason, manual, reviewer, reviewed_at, comment, effective, version) = values
    return OutputRow(output_id, item_id, external_id, category, phenomenon, source, text, tuple(systems), auto,
                     None if auto is None else describe(auto, number, polarity, pattern, reason), rule_id, manual,
                     reviewer, reviewed_at, comment, effective, version)


def _chunks(ids: Sequence[int]) -> list[list[int]]:
    unique = list(dict.fromkeys(ids))
    return [unique[start:start + _ID_CHUNK] for start in range(0, len(unique), _ID_CHUNK)]


def output_spans(db: Database, ids: Sequence[int], timeout: float = DEFAULT_TIMEOUT) -> dict[int, list[Span]]:
    """Where each output's item's STORED rules match it, for highlighting; outputs that vanished are left out.

    Computed on demand (nothing is stored): the rules may have changed since the output was labelled, and the
    highlight should show what they match now.
    """
    with db.session() as session:
        outputs: list[tuple[int, int, str]] = []
        for chunk in _chunks(ids):
            outputs += [(o, i, t) for o, i, t in session.execute(
                select(Output.id, Output.item_id, Output.text).where(Output.id.in_(chunk)))]
        item_ids = sorted({item_id for _, item_id, _ in outputs})
        rules: defaultdict[int, list[ItemRule]] = defaultdict(list)
        for chunk in _chunks(item_ids):
            for rule in session.scalars(select(Rule).where(Rule.item_id.in_(chunk))
                                        .order_by(Rule.item_id, Rule.position, Rule.id)):
                rules[rule.item_id].append(ItemRule.of(rule))
    matchers = {item_id: ItemMatcher(rules[item_id], (), timeout) for item_id in item_ids}
    return {output_id: matchers[item_id].spans(text) for output_id, item_id, text in outputs}

