"""The editing API both front-ends call: items, rules, known translations and references, and their history.

Each edit is one transaction that also relabels the edited item (``suite.editing.item_edit``) and writes one history
entry (``suite.editing.history``); a save of a row that someone changed since it was read is refused with
``EditConflict``. Whole items are edited in ``suite.editing.items``, categories and phenomena in
``suite.editing.taxonomy``, manual labels in ``suite.editing.review``; this module holds the edits of an item's parts
and names the whole API.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from store import Database
from store.domain import Polarity
from store.models import (
    POLARITIES,
    TRANSLATION_KINDS,
    Item,
    KnownTranslation,
    Reference,
    Rule,
)
from suite.editing.history import (
    HistoryRecord,
    checked_delete,
    checked_update,
    first_version,
    item_history,
    suite_history,
)
from suite.editing.item_detail import (
    ItemDetail,
    ItemOutput,
    KnownInfo,
    ReferenceInfo,
    StoredRule,
    item_detail,
)
from suite.editing.item_edit import EditResult, ItemEdit, default_author, edit_in, editing
from suite.editing.items import (
    ItemSnapshot,
    add_item,
    change_item,
    find_item,
    move_item,
    remove_item,
    restore_item,
    restore_removed_item,
)
from suite.editing.taxonomy import (
    merge_categories,
    merge_phenomena,
    rename_category,
    rename_phenomenon,
)
from suite.engine.rules import normalise, pattern_problem
from suite.errors import EditConflict, PatternError, TsqeError

__all__ = [
    "EditConflict", "EditResult", "HistoryRecord", "ItemDetail", "ItemOutput", "ItemSnapshot", "KnownInfo",
    "PatternError", "ReferenceInfo", "StoredRule", "add_item", "add_known", "add_reference", "add_rule",
    "change_item", "change_known", "change_reference", "change_rule", "default_author", "find_item",
    "item_detail", "item_history", "merge_categories", "merge_phenomena", "move_item", "remove_item",
    "remove_known", "remove_reference", "remove_rule", "rename_category", "rename_phenomenon", "reorder_rules",
    "restore_item", "restore_removed_item", "suite_history",
]


def _checked_pattern(pattern: str, ignore_case: bool) -> str:
    problem = pattern_problem(pattern, ignore_case)
    if problem is not None:
        raise PatternError(problem.position, problem.reason, str(problem))
    return pattern


def _ordered_rules(session: Session, item_id: int) -> list[Rule]:
    return list(session.scalars(select(Rule).where(Rule.item_id == item_id).order_by(Rule.position, Rule.id)))


def _renumber(session: Session, rules: Sequence[Rule]) -> None:
    """Store ``rules`` in this order; only where a rule moved, and without a new version (the order is the
    item's, recorded by the edit that changed it)."""
    for position, rule in enumerate(rules):
        if rule.position != position:
            session.execute(update(Rule).where(Rule.id == rule.id).values(position=position)
                            .execution_options(synchronize_session=False))
            rule.position = position
    session.flush()


def _rule_fields(rule: Rule, rules: Sequence[Rule]) -> dict[str, Any]:
    same = [other.id for other in rules if other.polarity == rule.polarity]
    return {"polarity": rule.polarity, "pattern": rule.pattern, "ignore_case": rule.ignore_case,
            "position": same.index(rule.id) if rule.id in same else None}


def add_rule(db: Database, item_id: int, polarity: Polarity, pattern: str, *, ignore_case: bool = False,
             position: int | None = None, author: str) -> EditResult:
    """Add a rule at ``position`` among the item's rules of its polarity (from 0; None: after the last)."""
    if polarity not in POLARITIES:
        raise TsqeError(f"a rule is {' or '.join(POLARITIES)}, not {polarity!r}")
    _checked_pattern(pattern, ignore_case)
    if position is not None and position < 0:
        raise TsqeError("a rule's position counts from 0")
    with editing(db, Item, item_id, author) as (edit, item):
        rules = _ordered_rules(edit.session, item.id)
        same = [index for index, rule in enumerate(rules) if rule.polarity == polarity]
        if position is not None and position < len(same):
            at = same[position]
        elif same:
            at = same[-1] + 1
        else:  # the first of its polarity: positive rules are listed before negative ones
            at = 0 if polarity == "positive" else len(rules)
        rule = Rule(item_id=item.id, polarity=polarity, pattern=pattern, ignore_case=ignore_case, valid=True,
                    error=None, position=len(rules))
        edit.session.add(rule)
        version = first_version(edit.session, Rule, rule)
        rules.insert(at, rule)
        _renumber(edit.session, rules)
        edit.record("rule", rule.id, "add", None, _rule_fields(rule, rules), version)
        return edit.finish(rule.id, version)


def change_rule(db: Database, rule_id: int, *, pattern: str | None = None, ignore_case: bool | None = None,
                author: str, expected_version: int | None = None) -> EditResult:
    """Change a rule's pattern and/or case sensitivity; a pattern that does not compile is refused."""
    with editing(db, Rule, rule_id, author, expected_version) as (edit, rule):
        changed: dict[str, Any] = {}
        if pattern is not None and pattern != rule.pattern:
            changed["pattern"] = pattern
        if ignore_case is not None and ignore_case != rule.ignore_case:
            changed["ignore_case"] = ignore_case
        if not changed:
            return edit.finish(rule.id, rule.version)
        _checked_pattern(changed.get("pattern", rule.pattern), changed.get("ignore_case", rule.ignore_case))
        before = {key: getattr(rule, key) for key in changed}
        if not rule.valid:
            before.update(valid=False, error=rule.error)
        version = checked_update(edit.session, Rule, rule, {**changed, "valid": True, "error": None})
        edit.record("rule", rule.id, "change", before, changed, version)
        return edit.finish(rule.id, version)


def remove_rule(db: Database, rule_id: int, *, author: str, expected_version: int | None = None) -> EditResult:
    with editing(db, Rule, rule_id, author, expected_version) as (edit, rule):
        rules = _ordered_rules(edit.session, rule.item_id)
        before = _rule_fields(rule, rules)
        checked_delete(edit.session, Rule, rule)
        _renumber(edit.session, [other for other in rules if other.id != rule_id])
        edit.record("rule", rule_id, "remove", before, None, None)
        return edit.finish(rule_id, None)


def reorder_rules(db: Database, item_id: int, rule_ids: Sequence[int], *, author: str) -> EditResult:
    """Put the item's rules in the order of ``rule_ids``, which must name each of them once. Within a polarity
    the first rule that matches decides, so the order decides which rule an output's label names."""
    with editing(db, Item, item_id, author) as (edit, item):
        rules = _ordered_rules(edit.session, item.id)
        by_id = {rule.id: rule for rule in rules}
        if sorted(rule_ids) != sorted(by_id):
            raise TsqeError(f"the new order must name each rule of item {item.external_id!r} once: "
                            f"{', '.join(map(str, sorted(by_id))) or 'it has none'}")
        before = [rule.id for rule in rules]
        if list(rule_ids) != before:
            _renumber(edit.session, [by_id[rule_id] for rule_id in rule_ids])
            edit.record("rule", None, "reorder", {"rule_ids": before}, {"rule_ids": list(rule_ids)}, None)
        return edit.finish(item.id, None)


TextModel = type[KnownTranslation] | type[Reference]


def _checked_text(model: TextModel, kind: str, text: str) -> None:
    what = "a known translation" if model is KnownTranslation else "a reference"
    if model is KnownTranslation and kind not in TRANSLATION_KINDS:
        raise TsqeError(f"a known translation is {' or '.join(TRANSLATION_KINDS)}, not {kind!r}")
    if not kind.strip() or len(kind) > 40:
        raise TsqeError(f"the kind of {what} must be 1 to 40 characters long")
    if not normalise(text):
        raise TsqeError(f"{what} cannot be empty")


class DuplicateKnown(TsqeError):
    """A known translation the item already has (normalised the same, of the same kind)."""


def _duplicate(edit: ItemEdit, model: TextModel, kind: str, text: str, row_id: int | None = None) -> None:
    """Refuse a second copy of the same known translation: it would say nothing and its removal would not undo
    what the linguist meant."""
    if model is not KnownTranslation:
        return
    for other in edit.session.scalars(select(KnownTranslation).where(KnownTranslation.item_id == edit.item.id,
                                                                    KnownTranslation.kind == kind)):
        if other.id != row_id and normalise(other.text) == normalise(text):
            raise DuplicateKnown(f"item {edit.item.external_id!r} already has the known {kind} translation "
                            f"{other.text!r} (id {other.id})")


def _entity(model: TextModel) -> str:
    return "known" if model is KnownTranslation else "reference"


def _add_text(db: Database, model: TextModel, item_id: int, kind: str, text: str, author: str) -> EditResult:
    _checked_text(model, kind, text)
    with editing(db, Item, item_id, author) as (edit, _):
        return _insert_text(edit, model, kind, text)


def _insert_text(edit: ItemEdit, model: TextModel, kind: str, text: str) -> EditResult:
    _duplicate(edit, model, kind, text)
    row = model(item_id=edit.item.id, kind=kind, text=text)
    edit.session.add(row)
    version = first_version(edit.session, model, row)
    edit.record(_entity(model), row.id, "add", None, {"kind": kind, "text": text}, version)
    return edit.finish(row.id, version)


def _change_text(db: Database, model: TextModel, row_id: int, text: str | None, kind: str | None, author: str,
                 expected_version: int | None) -> EditResult:
    with editing(db, model, row_id, author, expected_version) as (edit, row):
        changed = {key: value for key, value in (("kind", kind), ("text", text))
                   if value is not None and value != getattr(row, key)}
        if not changed:
            return edit.finish(row.id, row.version)
        new_kind, new_text = changed.get("kind", row.kind), changed.get("text", row.text)
        _checked_text(model, new_kind, new_text)
        _duplicate(edit, model, new_kind, new_text, row.id)
        before = {key: getattr(row, key) for key in changed}
        version = checked_update(edit.session, model, row, changed)
        edit.record(_entity(model), row.id, "change", before, changed, version)
        return edit.finish(row.id, version)


def _remove_text(db: Database, model: TextModel, row_id: int, author: str,
                 expected_version: int | None) -> EditResult:
    with editing(db, model, row_id, author, expected_version) as (edit, row):
        return _delete_text(edit, model, row)


def _delete_text(edit: ItemEdit, model: TextModel, row: KnownTranslation | Reference) -> EditResult:
    row_id, before = row.id, {"kind": row.kind, "text": row.text}
    checked_delete(edit.session, model, row)
    edit.record(_entity(model), row_id, "remove", before, None, None)
    return edit.finish(row_id, None)


def add_known_in(session: Session, item_id: int, kind: str, text: str, *, author: str) -> EditResult | None:
    """``add_known`` inside the caller's transaction; None (nothing added) when the item already has this known
    translation: a reviewer who settles an output as known wants it known, which it is."""
    _checked_text(KnownTranslation, kind, text)
    edit, _ = edit_in(session, Item, item_id, author)
    try:
        return _insert_text(edit, KnownTranslation, kind, text)
    except DuplicateKnown:
        return None


def remove_known_in(session: Session, known_id: int, *, author: str,
                    expected_version: int | None = None) -> EditResult:
    """``remove_known`` inside the caller's transaction."""
    edit, row = edit_in(session, KnownTranslation, known_id, author, expected_version)
    return _delete_text(edit, KnownTranslation, row)


def add_known(db: Database, item_id: int, kind: str, text: str, *, author: str) -> EditResult:
    """Add a known ``good`` or ``bad`` translation: an output equal to it (normalised) that no rule decides
    passes or fails."""
    return _add_text(db, KnownTranslation, item_id, kind, text, author)


def change_known(db: Database, known_id: int, *, text: str | None = None, kind: str | None = None, author: str,
                 expected_version: int | None = None) -> EditResult:
    return _change_text(db, KnownTranslation, known_id, text, kind, author, expected_version)


def remove_known(db: Database, known_id: int, *, author: str, expected_version: int | None = None) -> EditResult:
    return _remove_text(db, KnownTranslation, known_id, author, expected_version)


def add_reference(db: Database, item_id: int, text: str, *, kind: str = "standard", author: str) -> EditResult:
    """Add a reference translation (``kind`` e.g. standard, paraphrase); references feed reference-based
    metrics, not labels."""
    return _add_text(db, Reference, item_id, kind, text, author)


def change_reference(db: Database, reference_id: int, *, text: str | None = None, kind: str | None = None,
                     author: str, expected_version: int | None = None) -> EditResult:
    return _change_text(db, Reference, reference_id, text, kind, author, expected_version)


def remove_reference(db: Database, reference_id: int, *, author: str,
                     expected_version: int | None = None) -> EditResult:
    return _remove_text(db, Reference, reference_id, author, expected_version)
