"""Saved edits as values: each one calls ``suite.editing`` once and returns the edit that takes it back.

Undo is a new edit, not a rollback (a colleague may have built on the saved state; the core's version check
refuses the undo then), so every applied edit yields its inverse, built from what the core returned. A
removed row comes back under a new id; the ``Ledger`` maps the old id to it, so older undo steps that name
the old id still find their row, and remembers the version each row had after our last edit of it, which is
what an undo expects to find. These are the core's because they are decisions about data (which call takes
an edit back, which row and version it must find); the editor screen runs them on the operations' worker
thread and keeps them on its undo stack.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TypeVar

from store import Database
from suite import editing
from suite.editing import EditResult

Entity = Literal["rule", "known", "reference"]
T = TypeVar("T")


class Ledger:
    """Where rows re-created by an undo now live, and the version our own last edit left each row at."""

    def __init__(self) -> None:
        self._moved: dict[tuple[Entity, int], int] = {}
        self._versions: dict[tuple[Entity | Literal["item"], int], int] = {}

    def resolve(self, entity: Entity, row_id: int) -> int:
        while (entity, row_id) in self._moved:
            row_id = self._moved[(entity, row_id)]
        return row_id

    def current(self, entity: Entity, row_id: int) -> tuple[int, int | None]:
        """Where the row an edit names lives now, and the version that changing or removing it expects."""
        row_id = self.resolve(entity, row_id)
        return row_id, self.version(entity, row_id)

    def added(self, entity: Entity, key: int, result: EditResult) -> None:
        """An add saved: later edits that name ``key`` (a stand-in, or a removed row's id) find the new row."""
        row_id, version = _saved(result)
        if key != row_id:
            self._moved[(entity, key)] = row_id
        self.seen(entity, row_id, version)

    def changed(self, entity: Entity | Literal["item"], row_id: int, result: EditResult) -> None:
        self.seen(entity, row_id, _saved(result)[1])

    def seen(self, entity: Entity | Literal["item"], row_id: int, version: int) -> None:
        self._versions[(entity, row_id)] = version

    def version(self, entity: Entity | Literal["item"], row_id: int) -> int | None:
        return self._versions.get((entity, row_id))


def _saved(result: EditResult) -> tuple[int, int]:
    """The row an add or change saved and its version after it (only a removal reports none)."""
    assert result.entity_id is not None and result.version is not None, "an add or change names its row"
    return result.entity_id, result.version


def _if_changed(value: T, before: T) -> T | None:
    """The core leaves a field passed as None as it is, so a change passes only the fields it changes."""
    return value if value != before else None


class Edit(Protocol):
    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        """Save this edit through the core and return the edit that undoes it."""
        ...

    def summary(self) -> str:
        """A few words for the undo menu ("add positive rule \\bbench\\b")."""
        ...


@dataclass(frozen=True)
class ChangeItem:
    item_id: int
    source: str
    comment: str
    before_source: str
    before_comment: str

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        result = editing.change_item(
            db, self.item_id, author=author, expected_version=ledger.version("item", self.item_id),
            source=_if_changed(self.source, self.before_source), comment=_if_changed(self.comment, self.before_comment))
        ledger.changed("item", self.item_id, result)
        return ChangeItem(self.item_id, self.before_source, self.before_comment, self.source, self.comment)

    def summary(self) -> str:
        return "change the item's source" if self.source != self.before_source else "change the item's comment"


@dataclass(frozen=True)
class MoveItem:
    item_id: int
    category: str
    phenomenon: str
    before_category: str
    before_phenomenon: str

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        result = editing.move_item(db, self.item_id, category=self.category, phenomenon=self.phenomenon,
                                   author=author, expected_version=ledger.version("item", self.item_id))
        ledger.changed("item", self.item_id, result)
        return MoveItem(self.item_id, self.before_category, self.before_phenomenon, self.category, self.phenomenon)

    def summary(self) -> str:
        return f"move the item to {self.category} / {self.phenomenon}"


@dataclass(frozen=True)
class AddRule:
    item_id: int
    polarity: str
    pattern: str
    ignore_case: bool
    key: int
    """The id later edits use for the new rule: a stand-in, or the id of the rule this re-creates."""
    position: int | None = None

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        result = editing.add_rule(db, self.item_id, self.polarity, self.pattern, ignore_case=self.ignore_case,
                                  position=self.position, author=author)
        ledger.added("rule", self.key, result)
        return RemoveRule(self.item_id, self.key, self.polarity, self.pattern, self.ignore_case, self.position)

    def summary(self) -> str:
        return f"add {self.polarity} rule {self.pattern}"


@dataclass(frozen=True)
class RemoveRule:
    item_id: int
    rule_id: int
    polarity: str
    pattern: str
    ignore_case: bool
    position: int | None = None
    """Where the rule stood, so that undoing the removal puts it back there."""

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        rule_id, expected = ledger.current("rule", self.rule_id)
        editing.remove_rule(db, rule_id, author=author, expected_version=expected)
        return AddRule(self.item_id, self.polarity, self.pattern, self.ignore_case, self.rule_id, self.position)

    def summary(self) -> str:
        return f"remove {self.polarity} rule {self.pattern}"


@dataclass(frozen=True)
class ChangeRule:
    rule_id: int
    pattern: str
    ignore_case: bool
    before_pattern: str
    before_ignore_case: bool

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        rule_id, expected = ledger.current("rule", self.rule_id)
        result = editing.change_rule(db, rule_id, author=author, expected_version=expected,
                                     pattern=_if_changed(self.pattern, self.before_pattern),
                                     ignore_case=_if_changed(self.ignore_case, self.before_ignore_case))
        ledger.changed("rule", rule_id, result)
        return ChangeRule(self.rule_id, self.before_pattern, self.before_ignore_case, self.pattern, self.ignore_case)

    def summary(self) -> str:
        if self.pattern == self.before_pattern:
            return f"{'ignore' if self.ignore_case else 'match'} case in rule {self.pattern}"
        return f"change rule {self.before_pattern} to {self.pattern}"


@dataclass(frozen=True)
class ReorderRules:
    item_id: int
    rule_ids: tuple[int, ...]
    before_ids: tuple[int, ...]

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        editing.reorder_rules(db, self.item_id, [ledger.resolve("rule", rule_id) for rule_id in self.rule_ids],
                              author=author)
        return ReorderRules(self.item_id, self.before_ids, self.rule_ids)

    def summary(self) -> str:
        return "reorder the rules"


@dataclass(frozen=True)
class AddEntry:
    """A new known translation (kind good/bad) or reference (kind standard, paraphrase, …)."""

    entity: Literal["known", "reference"]
    item_id: int
    kind: str
    text: str
    key: int

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        if self.entity == "known":
            result = editing.add_known(db, self.item_id, self.kind, self.text, author=author)
        else:
            result = editing.add_reference(db, self.item_id, self.text, kind=self.kind, author=author)
        ledger.added(self.entity, self.key, result)
        return RemoveEntry(self.entity, self.item_id, self.key, self.kind, self.text)

    def summary(self) -> str:
        return f"add {_entry_name(self.entity, self.kind)} {self.text!r}"


@dataclass(frozen=True)
class RemoveEntry:
    entity: Literal["known", "reference"]
    item_id: int
    entry_id: int
    kind: str
    text: str

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        entry_id, expected = ledger.current(self.entity, self.entry_id)
        remove = editing.remove_known if self.entity == "known" else editing.remove_reference
        remove(db, entry_id, author=author, expected_version=expected)
        return AddEntry(self.entity, self.item_id, self.kind, self.text, self.entry_id)

    def summary(self) -> str:
        return f"remove {_entry_name(self.entity, self.kind)} {self.text!r}"


@dataclass(frozen=True)
class ChangeEntry:
    entity: Literal["known", "reference"]
    entry_id: int
    kind: str
    text: str
    before_kind: str
    before_text: str

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        entry_id, expected = ledger.current(self.entity, self.entry_id)
        change = editing.change_known if self.entity == "known" else editing.change_reference
        result = change(db, entry_id, author=author, expected_version=expected,
                        text=_if_changed(self.text, self.before_text), kind=_if_changed(self.kind, self.before_kind))
        ledger.changed(self.entity, entry_id, result)
        return replace(self, kind=self.before_kind, text=self.before_text, before_kind=self.kind,
                       before_text=self.text)

    def summary(self) -> str:
        return f"change {_entry_name(self.entity, self.before_kind)} {self.before_text!r} to {self.text!r}"


def _entry_name(entity: Literal["known", "reference"], kind: str) -> str:
    return f"known {kind} translation" if entity == "known" else f"{kind} reference"


def apply_all(db: Database, edits: Sequence[Edit], author: str, ledger: Ledger, undo: list[Edit]) -> None:
    """Apply ``edits`` in order, putting each one's inverse at the front of ``undo`` as soon as it is saved.

    Each edit is its own transaction in the core (it relabels the item and writes history), so when one is
    refused the ones before it stay saved, and ``undo`` (filled in place, read by the caller even after an
    exception) holds exactly what takes them back.
    """
    for edit in edits:
        undo.insert(0, edit.apply(db, author, ledger))


def summary(edits: Sequence[Edit]) -> str:
    """What a save did, in words for the undo menu."""
    if len(edits) == 1:
        return edits[0].summary()
    return f"{edits[0].summary()} and {len(edits) - 1} more"
