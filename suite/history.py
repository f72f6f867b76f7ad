"""The history of edits and reviews, and the version check that keeps two editors from losing each other's work.

Every edit writes one ``HistoryEntry`` in the edit's own transaction, so the history never claims an edit that
was rolled back. A save of an existing row is a conditional ``UPDATE ... WHERE version = :seen``: of two
processes that read the same version, the database lets exactly one match, and the other is refused with
who changed the row since and what it holds now (``EditConflict``).
"""
from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    CursorResult,
    Delete,
    Update,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.orm import Session

from store import Database
from store.models import (
    HistoryEntry,
    Item,
    KnownTranslation,
    ManualLabel,
    Reference,
    Rule,
    utcnow,
)
from suite.errors import EditConflict, TsqeError
from suite.suites import find_suite

Versioned = type[Item] | type[Rule] | type[KnownTranslation] | type[Reference]

_ID_CHUNK = 5_000
"""Ids per ``IN (...)`` list, well below every backend's limit on bound parameters."""

ENTITY_OF: dict[type, str] = {Item: "item", Rule: "rule", KnownTranslation: "known", Reference: "reference",
                              ManualLabel: "manual_label"}


@dataclass(frozen=True)
class HistoryRecord:
    """One edit as the history shows it; ``before``/``after`` hold the edited fields (None: no such row)."""

    id: int
    at: datetime
    author: str
    entity: str
    entity_id: int | None
    action: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    version: int | None


def check_author(author: str) -> str:
    """Every write names a person: a history entry without one could not say who to ask."""
    if not author or not author.strip():
        raise TsqeError("an edit needs its author's name")
    return author.strip()


@dataclass(frozen=True)
class Change:
    """One history entry to write: ``before``/``after`` are the edited fields (None: no such row)."""

    suite_id: int
    external_id: str | None
    entity: str
    entity_id: int | None
    action: str
    author: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    version: int | None


def record(session: Session, changes: Sequence[Change]) -> None:
    """Add history entries to the caller's transaction, in one statement however many there are (importing
    reviews writes one per changed label)."""
    if not changes:
        return
    at = utcnow()
    # Core, not the ORM's bulk insert, which cost half as much again for the thousands of entries of an import
    session.connection().execute(insert(HistoryEntry), [
        {"suite_id": c.suite_id, "item_external_id": c.external_id, "entity": c.entity, "entity_id": c.entity_id,
         "action": c.action, "author": c.author, "at": at, "before": _dump(c.before), "after": _dump(c.after),
         "version": c.version} for c in changes])


def _dump(values: Mapping[str, Any] | None) -> str | None:
    return None if values is None else json.dumps(dict(values), ensure_ascii=False, default=str)


def _load(text: str | None) -> dict[str, Any] | None:
    return None if text is None else dict(json.loads(text))


def item_history(db: Database, external_id: str, suite_name: str | None = None) -> list[HistoryRecord]:
    """Every edit of the item with ``external_id`` (as in the imported file), its rules, known translations,
    references, outputs and manual labels, newest first; keyed by the external id, so a removed item's history
    is kept."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        entries = session.scalars(select(HistoryEntry)
                                  .where(HistoryEntry.suite_id == suite.id,
                                         HistoryEntry.item_external_id == external_id)
                                  .order_by(HistoryEntry.id.desc())).all()
        if not entries and session.scalar(select(Item.id).where(Item.suite_id == suite.id,
                                                                Item.external_id == external_id)) is None:
            raise TsqeError(f"no item {external_id!r} in suite {suite.name!r}")
        return _records(entries)


def suite_history(db: Database, suite_name: str | None = None) -> list[HistoryRecord]:
    """Every edit of the suite itself (its name, its languages) and of its categories and phenomena: the
    entries about no one item, newest first."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        return _records(session.scalars(select(HistoryEntry)
                                        .where(HistoryEntry.suite_id == suite.id,
                                               HistoryEntry.item_external_id.is_(None))
                                        .order_by(HistoryEntry.id.desc())).all())


def _records(entries: Sequence[HistoryEntry]) -> list[HistoryRecord]:
    return [HistoryRecord(e.id, e.at, e.author, e.entity, e.entity_id, e.action, _load(e.before), _load(e.after),
                          e.version) for e in entries]


def conflict(session: Session, entity: str, entity_id: int, now: str,
             fallback: tuple[str, datetime] | None = None) -> EditConflict:
    """The refusal of a stale save: who last changed the row and when (its newest history entry, else
    ``fallback``, e.g. a review's own reviewer and time), and ``now``, what it holds now."""
    newest = session.execute(select(HistoryEntry.author, HistoryEntry.at)
                             .where(HistoryEntry.entity == entity, HistoryEntry.entity_id == entity_id)
                             .order_by(HistoryEntry.id.desc()).limit(1)).first() or fallback
    if newest is None:
        return EditConflict(f"changed by an unrecorded edit: now {now}")
    author, at = newest
    return EditConflict(f"changed by {author} at {at:%Y-%m-%d %H:%M:%S} UTC: now {now}")


def short(text: str, limit: int = 60) -> str:
    """A value as a conflict message quotes it, cut to one line's worth."""
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[:limit - 1] + "…")


def describe_row(model: Versioned, row: Any) -> str:
    """What a conflict message says a row holds now."""
    if row is None:
        return "removed"
    if model is Rule:
        return f"{row.polarity} {short(row.pattern)}" + (" (ignore case)" if row.ignore_case else "")
    if model is Item:
        return short(row.source)
    return f"{row.kind} {short(row.text)}"


def first_version(session: Session, model: Versioned, row: Any, at_least: int = 1) -> int:
    """Give a new row the first version no earlier row with its id had (:func:`first_versions`); ``at_least``
    keeps a restored row's own version."""
    session.flush()
    row.version = max(at_least, first_versions(session, model, [row.id])[row.id])
    session.flush()
    return int(row.version)


def first_versions(session: Session, model: Versioned, ids: Collection[int]) -> dict[int, int]:
    """The first version of each new row of ``model``: SQLite hands out a removed row's id again, and an editor
    still holding the removed row's version must not be able to save over the new one. Every history entry
    raises a row's version by at most one, and removing a row writes one, so one more than their number is
    safe."""
    versions = dict.fromkeys(ids, 1)
    ordered = sorted(ids)
    for start in range(0, len(ordered), _ID_CHUNK):
        for row_id, earlier in session.execute(
                select(HistoryEntry.entity_id, func.count())
                .where(HistoryEntry.entity == ENTITY_OF[model],
                       HistoryEntry.entity_id.in_(ordered[start:start + _ID_CHUNK]))
                .group_by(HistoryEntry.entity_id)):
            if row_id is not None:
                versions[row_id] = earlier + 1
    return versions


def next_versions(session: Session, output_ids: Collection[int]) -> dict[int, int]:
    """The version a new manual label of each output starts at: one above any its output had before, so that an
    editor who saw a label that was cleared and set again since is refused."""
    versions = dict.fromkeys(output_ids, 1)
    ids = sorted(output_ids)
    for start in range(0, len(ids), _ID_CHUNK):
        for output_id, newest in session.execute(
                select(HistoryEntry.entity_id, func.max(HistoryEntry.version))
                .where(HistoryEntry.entity == "manual_label",
                       HistoryEntry.entity_id.in_(ids[start:start + _ID_CHUNK]))
                .group_by(HistoryEntry.entity_id)):
            if output_id is not None and newest is not None:
                versions[output_id] = newest + 1
    return versions


def rows_matched(session: Session, statement: Update | Delete) -> int:
    """How many rows a conditional UPDATE or DELETE matched: 0 is how a stale save shows."""
    result = session.execute(statement.execution_options(synchronize_session=False))
    return cast("CursorResult[Any]", result).rowcount


def checked_row(session: Session, model: Versioned, row_id: int, expected_version: int | None) -> Any:
    """The row to edit, or a refusal when it is gone or its version is not the one the editor saw."""
    row: Any = session.get(model, row_id, populate_existing=True)
    if row is None and expected_version is None:
        raise TsqeError(f"no {ENTITY_OF[model].replace('known', 'known translation')} with id {row_id}")
    if row is None or (expected_version is not None and row.version != expected_version):
        raise conflict(session, ENTITY_OF[model], row_id, describe_row(model, row))
    return row


def checked_update(session: Session, model: Versioned, row: Any, values: Mapping[str, Any]) -> int:
    """Write ``values`` to ``row`` only if nobody changed it since it was read; its new version."""
    seen = row.version
    if rows_matched(session, update(model).where(model.id == row.id, model.version == seen)
                    .values(**values, version=seen + 1)) != 1:
        raise conflict(session, ENTITY_OF[model], row.id,
                       describe_row(model, session.get(model, row.id, populate_existing=True)))
    session.refresh(row)
    return int(seen) + 1


def checked_delete(session: Session, model: Versioned, row: Any) -> None:
    """Delete ``row`` only if nobody changed it since it was read."""
    if rows_matched(session, delete(model).where(model.id == row.id, model.version == row.version)) != 1:
        raise conflict(session, ENTITY_OF[model], row.id,
                       describe_row(model, session.get(model, row.id, populate_existing=True)))
    session.expunge(row)


NO_VALUE = "—"
"""How a history shows a field without a value."""


@dataclass(frozen=True)
class FieldChange:
    """One field of an edit as a person reads it; None: no value (absent, None or empty), shown as ``NO_VALUE``."""

    field: str
    before: str | None
    after: str | None


def value_text(value: Any) -> str | None:
    """A stored field value in words: yes/no for a flag, a list of ids joined, a nested list by its length
    (a removed item's rules or outputs); None for no value, so no Python repr ever reaches a reader."""
    if value is None or (isinstance(value, str | list | tuple | dict) and not value):
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        if all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
            return ", ".join(str(v) for v in value)
        return str(len(value))
    if isinstance(value, dict):
        return str(len(value))
    return str(value)


def changed_fields(entry: HistoryRecord) -> list[FieldChange]:
    """The fields an edit changed: every field with a value of an added or removed row, and of a changed row
    only those that differ, so a change of one pattern reads as that pattern before and after.

    A rule's place is stored counting from 0 within its polarity; it reads as the number the editor shows (the
    stored "position: 1" is the editor's rule 2, which the history named "position: 1" before, issue 16)."""
    before, after = entry.before or {}, entry.after or {}
    keys = dict.fromkeys([*before, *after])

    def shown(key: str, values: dict[str, Any]) -> str | None:
        value = values.get(key)
        if entry.entity == "rule" and key == "position" and isinstance(value, int):
            value += 1
        return value_text(value)

    fields = [FieldChange(_FIELD_NAMES.get((entry.entity, key), key.replace("_", " ")), shown(key, before),
                          shown(key, after)) for key in keys]
    return [f for f in fields if f.before != f.after]


_FIELD_NAMES = {("rule", "position"): "number"}
"""How a stored field is named in a history line where its key would mislead."""


def change_text(entry: HistoryRecord) -> str:
    """The edit in one line, as the item's history in the window and ``tsqe history`` print it."""
    fields = changed_fields(entry)
    if entry.before is None:
        return " · ".join(f"{f.field}: {f.after}" for f in fields)
    if entry.after is None:
        return " · ".join(f"{f.field}: {f.before}" for f in fields) + f" → {NO_VALUE}"
    return " · ".join(f"{f.field}: {f.before or NO_VALUE} → {f.after or NO_VALUE}" for f in fields)
