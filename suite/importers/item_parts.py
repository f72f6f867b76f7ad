"""Bringing items' rules, known translations and references up to date from a suite file, row by row.

An update changes only the rows that differ from the file: a rule or text the file still has keeps its id and
version (a rule may move to another position), so an editor holding it can still save it. A row the file no
longer has is removed and a new one added, each with a history entry as an edit would write (the item's
external id, the importing author, the fields before or after), and a new row starts at a version above any
earlier row with its id (``suite.editing.history.first_versions``): whoever holds a removed row is refused.
Rows of items new to the suite are added without entries of their own: the item's entry covers them.
"""
from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import Table, delete, insert, select, update
from sqlalchemy.orm import Session

from store.models import Item, KnownTranslation, Reference, Rule
from suite.editing.history import ENTITY_OF, Change, first_versions, record

Part = type[Rule] | type[KnownTranslation] | type[Reference]
PARTS: tuple[Part, ...] = (Rule, KnownTranslation, Reference)
CHUNK = 500
"""Ids per ``IN (...)`` list, well below every database's bound-parameter limit."""

_COLUMNS: dict[Part, tuple[str, ...]] = {
    Rule: ("polarity", "pattern", "ignore_case", "valid", "error", "position"),
    KnownTranslation: ("kind", "text"),
    Reference: ("kind", "text", "set_name"),
}


@dataclass(frozen=True)
class StoredPart:
    id: int
    values: dict[str, Any]


def stored_parts(session: Session, suite_id: int) -> dict[tuple[Part, int], list[StoredPart]]:
    """Every rule, known translation and reference of the suite by (model, item id), in their order.

    On PostgreSQL the rows are locked until the import commits, so that an editor's save made meanwhile is
    either read here or refused afterwards (the row's version moved on), never silently undone. SQLite's
    writer holds the whole database already.
    """
    grouped: dict[tuple[Part, int], list[StoredPart]] = defaultdict(list)
    for model in PARTS:
        order = (model.position, model.id) if model is Rule else (model.id,)
        query = (select(model.id, model.item_id, *(getattr(model, column) for column in _COLUMNS[model]))
                 .join(Item, Item.id == model.item_id).where(Item.suite_id == suite_id)
                 .order_by(model.item_id, *order).with_for_update(of=model))
        for row_id, item_id, *values in session.execute(query):
            grouped[(model, item_id)].append(StoredPart(row_id, dict(zip(_COLUMNS[model], values))))
    return grouped


def fingerprint(model: Part, rows: Sequence[dict[str, Any]]) -> list[tuple[object, ...]]:
    """What decides whether an item's rules, known translations or references changed."""
    if model is Rule:
        return [(r["polarity"], r["pattern"], bool(r["ignore_case"]), r["position"]) for r in rows]
    if model is Reference:  # their order is the order a suite file lists them in
        return [(str(r["kind"]), str(r["text"]), str(r["set_name"])) for r in rows]
    return sorted((str(r["kind"]), str(r["text"])) for r in rows)


@dataclass(frozen=True)
class ItemRef:
    """The item whose rows change, as its history entries name it."""

    id: int
    external_id: str
    is_new: bool


@dataclass
class PartChanges:
    """What an update does to one model's rows over all items, written in a few statements by :meth:`write`."""

    model: Part
    suite_id: int
    author: str
    removed: list[tuple[ItemRef, StoredPart, dict[str, Any]]] = field(default_factory=list)
    """(item, row, its fields as history shows them)."""
    added: list[tuple[ItemRef, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    """(item, the row's columns, its fields as history shows them)."""
    moved: list[dict[str, int]] = field(default_factory=list)
    """{"id", "position"} of kept rules that move."""
    reordered: list[Change] = field(default_factory=list)

    def replace(self, item: ItemRef, stored: list[StoredPart], wanted: list[dict[str, Any]]) -> None:
        """Turn an item's ``stored`` rows into ``wanted``, keeping the rows both have."""
        kept, removed, added = _match(self.model, [row.values for row in stored], wanted)
        shown_old, shown_new = _shown(self.model, [row.values for row in stored]), _shown(self.model, wanted)
        self.removed += [(item, stored[k], shown_old[k]) for k in removed]
        self.added += [(item, wanted[k], shown_new[k]) for k in added]
        if self.model is not Rule:
            return
        self.moved += [{"id": stored[old].id, "position": int(wanted[new]["position"])} for old, new in kept
                       if stored[old].values["position"] != wanted[new]["position"]]
        after = [stored[old].id for old, _ in kept]
        before = [stored[old].id for old in sorted(old for old, _ in kept)]
        if before != after:
            self.reordered.append(Change(self.suite_id, item.external_id, "rule", None, "reorder", self.author,
                                         {"rule_ids": before}, {"rule_ids": after}, None))

    def write(self, session: Session) -> None:
        """Remove, move and add the rows, with a history entry for each row of an item that existed before."""
        entity = ENTITY_OF[self.model]
        removed_ids = [row.id for _, row, _ in self.removed]
        for chunk in _chunks(removed_ids):
            session.execute(delete(self.model).where(self.model.id.in_(chunk)))
        record(session, [Change(self.suite_id, item.external_id, entity, row.id, "remove", self.author, shown,
                                None, None) for item, row, shown in self.removed])  # before versions are counted
        if self.moved:
            session.execute(update(Rule), self.moved)
        rows = [{"item_id": item.id, **values} for item, values, _ in self.added]
        # Core, not the ORM's bulk insert: half the cost for the ten thousand rows of a new suite
        table = cast(Table, self.model.__table__)
        ids = list(session.connection().scalars(insert(table).returning(table.c.id, sort_by_parameter_order=True),
                                                rows)) if rows else []
        versions = first_versions(session, self.model, ids)
        later = [{"id": row_id, "version": version} for row_id, version in versions.items() if version > 1]
        if later:
            session.execute(update(self.model), later)
        record(session, [Change(self.suite_id, item.external_id, entity, row_id, "add", self.author, None, shown,
                                versions[row_id])
                         for (item, _, shown), row_id in zip(self.added, ids, strict=True) if not item.is_new]
               + self.reordered)


def _match(model: Part, stored: list[dict[str, Any]], wanted: list[dict[str, Any]]
           ) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Indices of (kept (stored, wanted) pairs in the file's order, stored rows to remove, wanted rows to add).

    Rules and known translations are kept when the file has the same one anywhere among the item's (a rule
    keeps its id when only its position changes); references only as far as the file lists the same ones in
    the same order, since their order is their ids' order.
    """
    if model is Reference:
        common = 0
        while common < min(len(stored), len(wanted)) and _key(model, stored[common]) == _key(model, wanted[common]):
            common += 1
        return ([(k, k) for k in range(common)], list(range(common, len(stored))),
                list(range(common, len(wanted))))
    pool: dict[Hashable, deque[int]] = defaultdict(deque)
    for k, row in enumerate(stored):
        pool[_key(model, row)].append(k)
    kept, added = [], []
    for k, row in enumerate(wanted):
        same = pool[_key(model, row)]
        if same:
            kept.append((same.popleft(), k))
        else:
            added.append(k)
    taken = {old for old, _ in kept}
    return kept, [k for k in range(len(stored)) if k not in taken], added


def _key(model: Part, values: dict[str, Any]) -> Hashable:
    if model is Rule:
        return values["polarity"], values["pattern"], bool(values["ignore_case"])
    if model is Reference:
        return str(values["kind"]), str(values["text"]), str(values["set_name"])
    return str(values["kind"]), str(values["text"])


def _shown(model: Part, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row's fields as an edit's history entry holds them (a rule's position counts within its polarity,
    as ``suite.editing.api`` numbers it)."""
    if model is Reference:  # the set only where it is not the one named after the kind
        return [{"kind": row["kind"], "text": row["text"],
                 **({"set": row["set_name"]} if row["set_name"] != row["kind"] else {})} for row in rows]
    if model is not Rule:
        return [{"kind": row["kind"], "text": row["text"]} for row in rows]
    shown: list[dict[str, Any]] = [{} for _ in rows]
    seen: dict[str, int] = defaultdict(int)
    for k in sorted(range(len(rows)), key=lambda k: int(rows[k]["position"])):
        row = rows[k]
        shown[k] = {"polarity": row["polarity"], "pattern": row["pattern"], "ignore_case": bool(row["ignore_case"]),
                    "position": seen[row["polarity"]]}
        seen[row["polarity"]] += 1
    return shown


def _chunks(values: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(values), CHUNK):
        yield values[start:start + CHUNK]
