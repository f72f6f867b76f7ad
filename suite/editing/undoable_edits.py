"""Saved edits as values: each one calls the core once and returns the edit that takes it back.

Undo is a new edit, not a rollback (a colleague may have built on the saved state; the core's version check
refuses the undo then), so every applied edit yields its inverse, built from what the core returned. A
removed row comes back under a new id; the ``Ledger`` maps the old id to it, so older undo steps that name
the old id still find their row, and remembers the version each row had after our last edit of it, which is
what an undo expects to find. These are the core's because they are decisions about data (which call takes
an edit back, which row and version it must find).

They are the window's one undo model (issue 16): an item's edits saved in Item & rules, the tree's new,
moved, renamed and deleted items, and a reviewer's decisions (P, F, U, C, Shift+P/F) are all such values, on
one undo stack. Each says what it changes (``changes()``, a ``suite.changes.Changes``) before it is applied,
so the window can tell whether undoing it reaches outside the screen in front of the user, and each names
itself (``summary()``: "pass on 00544005 · UEdin") for the Edit menu.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TypeVar

from store import Database
from store.domain import Label
from suite.changes import NOWHERE, Changes, Where, item_changes, review_changes
from suite.editing import api as editing
from suite.editing import review
from suite.editing.api import EditResult, ItemSnapshot
from suite.editing.review import KnownPut, OutputDecision, ReviewerDecision, ReviewPut, SeenOutput
from suite.engine.rules import RuleSpec

Entity = Literal["item", "rule", "known", "reference"]
Versioned = Literal["item", "rule", "known", "reference", "review"]
"""A review is versioned by its output's id (0: not reviewed)."""
T = TypeVar("T")


class Ledger:
    """Where rows re-created by an undo now live, and the version our own last edit left each row at."""

    def __init__(self) -> None:
        self._moved: dict[tuple[Entity, int], int] = {}
        self._versions: dict[tuple[Versioned, int], int] = {}

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
        self.moved(entity, key, row_id)
        self.seen(entity, row_id, version)

    def moved(self, entity: Entity, key: int, row_id: int) -> None:
        if key != row_id:
            self._moved[(entity, key)] = row_id

    def changed(self, entity: Entity, row_id: int, result: EditResult) -> None:
        self.seen(entity, row_id, _saved(result)[1])

    def seen(self, entity: Versioned, row_id: int, version: int) -> None:
        self._versions[(entity, row_id)] = version

    def version(self, entity: Versioned, row_id: int) -> int | None:
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
        """A few words for the undo menu ("add positive rule \\bbench\\b", "pass on 00544005 · UEdin")."""
        ...

    def changes(self) -> Changes:
        """What applying it changes (known before it is applied: where an undo would reach)."""
        ...


@dataclass(frozen=True)
class ChangeItem:
    item_id: int
    source: str
    comment: str
    before_source: str
    before_comment: str

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        item_id, expected = ledger.current("item", self.item_id)
        result = editing.change_item(
            db, item_id, author=author, expected_version=expected,
            source=_if_changed(self.source, self.before_source), comment=_if_changed(self.comment, self.before_comment))
        ledger.changed("item", item_id, result)
        return ChangeItem(self.item_id, self.before_source, self.before_comment, self.source, self.comment)

    def summary(self) -> str:
        return "change the item's source" if self.source != self.before_source else "change the item's comment"

    def changes(self) -> Changes:
        return item_changes([self.item_id])


@dataclass(frozen=True)
class MoveItem:
    item_id: int
    category: str
    phenomenon: str
    before_category: str
    before_phenomenon: str

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        item_id, expected = ledger.current("item", self.item_id)
        result = editing.move_item(db, item_id, category=self.category, phenomenon=self.phenomenon,
                                   author=author, expected_version=expected)
        ledger.changed("item", item_id, result)
        return MoveItem(self.item_id, self.before_category, self.before_phenomenon, self.category, self.phenomenon)

    def summary(self) -> str:
        return f"move the item to {self.category} / {self.phenomenon}"

    def changes(self) -> Changes:
        return replace(item_changes([self.item_id]), taxonomy=True)


@dataclass(frozen=True)
class AddItem:
    """A new item (the tree's New item…); undone by removing it, with what it has gathered since."""

    suite: str
    external_id: str
    source: str
    category: str
    phenomenon: str

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        result = editing.add_item(db, external_id=self.external_id, source=self.source, category=self.category,
                                  phenomenon=self.phenomenon, suite_name=self.suite, author=author)
        ledger.seen("item", result.item_id, _saved(result)[1])
        return RemoveItem(result.item_id, self.external_id)

    def summary(self) -> str:
        return f"add item {self.external_id}"

    def changes(self) -> Changes:
        return Changes(taxonomy=True)


@dataclass(frozen=True)
class RemoveItem:
    item_id: int
    external_id: str

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        item_id, expected = ledger.current("item", self.item_id)
        return RestoreItem(self.item_id, editing.remove_item(db, item_id, author=author, expected_version=expected))

    def summary(self) -> str:
        return f"delete item {self.external_id}"

    def changes(self) -> Changes:
        where = Where.of([self.item_id])
        return Changes(items=where, labels=where, outputs=where, taxonomy=True)


@dataclass(frozen=True)
class RestoreItem:
    """A removed item put back whole from the snapshot its removal returned (under a new id)."""

    key: int
    """The id the item had: older steps that name it find the restored item through the ledger."""
    snapshot: ItemSnapshot

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        result = editing.restore_item(db, self.snapshot, author=author)
        ledger.moved("item", self.key, result.item_id)
        ledger.seen("item", result.item_id, _saved(result)[1])
        return RemoveItem(self.key, self.snapshot.external_id)

    def summary(self) -> str:
        return f"restore item {self.snapshot.external_id}"

    def changes(self) -> Changes:
        return Changes(outputs=Where.of([self.key]), taxonomy=True)


@dataclass(frozen=True)
class RenameCategory:
    """A category renamed (``phenomenon`` None) or a phenomenon of ``category`` renamed."""

    suite: str
    category: str
    phenomenon: str | None
    new: str

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        if self.phenomenon is None:
            editing.rename_category(db, self.category, self.new, suite_name=self.suite, author=author)
            return RenameCategory(self.suite, self.new, None, self.category)
        editing.rename_phenomenon(db, self.category, self.phenomenon, self.new, suite_name=self.suite, author=author)
        return RenameCategory(self.suite, self.category, self.new, self.phenomenon)

    def summary(self) -> str:
        what = "category" if self.phenomenon is None else "phenomenon"
        return f"rename {what} {self.phenomenon or self.category} to {self.new}"

    def changes(self) -> Changes:
        return Changes(taxonomy=True)


@dataclass(frozen=True)
class AddRule:
    item_id: int
    spec: RuleSpec
    key: int
    """The id later edits use for the new rule: a stand-in, or the id of the rule this re-creates."""
    position: int | None = None

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        spec = self.spec
        result = editing.add_rule(db, ledger.resolve("item", self.item_id), spec.polarity, spec.pattern,
                                  ignore_case=spec.ignore_case, position=self.position, author=author)
        ledger.added("rule", self.key, result)
        return RemoveRule(self.item_id, self.key, spec, self.position)

    def summary(self) -> str:
        return f"add {self.spec.polarity} rule {self.spec.pattern}"

    def changes(self) -> Changes:
        return item_changes([self.item_id])


@dataclass(frozen=True)
class RemoveRule:
    item_id: int
    rule_id: int
    spec: RuleSpec
    position: int | None = None
    """Where the rule stood, so that undoing the removal puts it back there."""

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        rule_id, expected = ledger.current("rule", self.rule_id)
        editing.remove_rule(db, rule_id, author=author, expected_version=expected)
        return AddRule(self.item_id, self.spec, self.rule_id, self.position)

    def summary(self) -> str:
        return f"remove {self.spec.polarity} rule {self.spec.pattern}"

    def changes(self) -> Changes:
        return item_changes([self.item_id])


@dataclass(frozen=True)
class ChangeRule:
    """A rule's pattern or flag changed (its polarity never is: a rule moves list only by being removed and
    added)."""

    item_id: int
    rule_id: int
    spec: RuleSpec
    before: RuleSpec

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        rule_id, expected = ledger.current("rule", self.rule_id)
        spec, before = self.spec, self.before
        result = editing.change_rule(db, rule_id, author=author, expected_version=expected,
                                     pattern=_if_changed(spec.pattern, before.pattern),
                                     ignore_case=_if_changed(spec.ignore_case, before.ignore_case))
        ledger.changed("rule", rule_id, result)
        return ChangeRule(self.item_id, self.rule_id, before, spec)

    def summary(self) -> str:
        spec, before = self.spec, self.before
        if spec.pattern == before.pattern:
            return f"{'ignore' if spec.ignore_case else 'match'} case in rule {spec.pattern}"
        return f"change rule {before.pattern} to {spec.pattern}"

    def changes(self) -> Changes:
        return item_changes([self.item_id])


@dataclass(frozen=True)
class ReorderRules:
    item_id: int
    rule_ids: tuple[int, ...]
    before_ids: tuple[int, ...]

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        editing.reorder_rules(db, ledger.resolve("item", self.item_id),
                              [ledger.resolve("rule", rule_id) for rule_id in self.rule_ids], author=author)
        return ReorderRules(self.item_id, self.before_ids, self.rule_ids)

    def summary(self) -> str:
        return "reorder the rules"

    def changes(self) -> Changes:
        return item_changes([self.item_id])


@dataclass(frozen=True)
class AddEntry:
    """A new known translation (kind good/bad) or reference (kind standard, paraphrase, …)."""

    entity: Literal["known", "reference"]
    item_id: int
    kind: str
    text: str
    key: int

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        item_id = ledger.resolve("item", self.item_id)
        if self.entity == "known":
            result = editing.add_known(db, item_id, self.kind, self.text, author=author)
        else:
            result = editing.add_reference(db, item_id, self.text, kind=self.kind, author=author)
        ledger.added(self.entity, self.key, result)
        return RemoveEntry(self.entity, self.item_id, self.key, self.kind, self.text)

    def summary(self) -> str:
        return f"add {_entry_name(self.entity, self.kind)} {self.text!r}"

    def changes(self) -> Changes:
        return _entry_changes(self.entity, self.item_id)


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

    def changes(self) -> Changes:
        return _entry_changes(self.entity, self.item_id)


@dataclass(frozen=True)
class ChangeEntry:
    entity: Literal["known", "reference"]
    item_id: int
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

    def changes(self) -> Changes:
        return _entry_changes(self.entity, self.item_id)


def _entry_name(entity: Literal["known", "reference"], kind: str) -> str:
    return f"known {kind} translation" if entity == "known" else f"{kind} reference"


def _entry_changes(entity: Literal["known", "reference"], item_id: int) -> Changes:
    """A reference changes no label; a known translation relabels its item."""
    return item_changes([item_id]) if entity == "known" else Changes(references=Where.of([item_id]))


@dataclass(frozen=True)
class ReviewedOutput:
    """One output a reviewer decides, as the row showed it: its review then, and its name for the menu."""

    output_id: int
    item_id: int
    name: str
    """"00544005 · UEdin": the item's id and the system that produced it (the first, "+2" for more)."""
    text: str
    version: int
    """Its review's version when it was read (0: not reviewed)."""
    comment: str | None = None
    label: Label | None = None
    """Its manual label when it was read."""


@dataclass(frozen=True)
class Decide:
    """A reviewer's decision on outputs: P / F (``label``), U (``label`` None), C (``comment``, each output keeps
    its label), Shift+P / Shift+F (``as_known``: also a known good / bad translation of its item)."""

    outputs: tuple[ReviewedOutput, ...]
    label: Label | None
    comment: str | None = None
    commenting: bool = False
    as_known: bool = False

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        decisions = [OutputDecision(SeenOutput(o.output_id, o.version, self.comment if self.commenting else o.comment),
                                    o.label if self.commenting else self.label) for o in self.outputs]
        decided = review.decide(db, decisions, author, as_known=self.as_known)
        return _taken_back(self.summary(), decided, ledger)

    def summary(self) -> str:
        if self.commenting:
            verb = "comment on"
        elif self.label is None:
            verb = "clear the label of"
        else:
            verb = f"{self.label} on"
        text = f"{verb} {_names(self.outputs)}"
        if self.as_known:
            kind = "good" if self.label == "pass" else "bad"
            text += f", added as known {kind} translation{'s' if len(self.outputs) > 1 else ''}"
        return text

    def changes(self) -> Changes:
        items = Where.of(o.item_id for o in self.outputs) if self.as_known else NOWHERE
        return review_changes(o.output_id for o in self.outputs) | Changes(items=items, labels=items)


@dataclass(frozen=True)
class PutReviews:
    """Outputs' reviews put back as they were (and the known translations a decision added taken away, or put
    back): the inverse of a decision, and of its undo."""

    name: str
    """The step's name, the same whichever way it goes ("pass on 00544005 · UEdin")."""
    reviews: tuple[tuple[int, int, ReviewerDecision | None], ...]
    """(output id, item id, the review it gets)."""
    add_known: tuple[tuple[int, KnownPut], ...] = ()
    """(the id the known translation had, what to add back)."""
    remove_known: tuple[int, ...] = ()
    """Ids of known translations to remove (as the ledger resolves them)."""

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        puts = [ReviewPut(output_id, ledger.version("review", output_id) or 0, verdict)
                for output_id, _, verdict in self.reviews]
        removing = [ledger.current("known", key) for key in self.remove_known]
        decided = review.put_reviews(db, puts, author=author, add_known=[known for _, known in self.add_known],
                                     remove_known=removing)
        for (key, _), added in zip(self.add_known, decided.known_added, strict=True):
            ledger.moved("known", key, added.known_id)
            ledger.seen("known", added.known_id, added.version or 0)
        inverse = _taken_back(self.name, decided, ledger)
        return replace(inverse, add_known=tuple(
            (key, KnownPut(gone.item_id, gone.kind, gone.text))
            for key, gone in zip(self.remove_known, decided.known_removed, strict=True)),
            remove_known=tuple(key for key, _ in self.add_known))

    def summary(self) -> str:
        return self.name

    def changes(self) -> Changes:
        items = Where.of(known.item_id for _, known in self.add_known) | Where.of(
            item_id for _, item_id, _ in self.reviews) if self.add_known or self.remove_known else NOWHERE
        return review_changes(output_id for output_id, _, _ in self.reviews) | Changes(items=items, labels=items)


def _taken_back(name: str, decided: review.Decided, ledger: Ledger) -> PutReviews:
    """What takes a written decision back: each review as it was before, the known translations added removed."""
    for change in decided.reviews:
        ledger.seen("review", change.output_id, change.version)
    for known in decided.known_added:
        ledger.seen("known", known.known_id, known.version or 0)
    return PutReviews(name, tuple((c.output_id, c.item_id, c.before) for c in decided.reviews),
                      remove_known=tuple(known.known_id for known in decided.known_added))


def _names(outputs: Sequence[ReviewedOutput]) -> str:
    if len(outputs) == 1:
        return outputs[0].name
    items = list(dict.fromkeys(o.name.split(" · ")[0] for o in outputs))
    shown = ", ".join(items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")
    return f"{len(outputs)} outputs of {shown}"


def output_name(external_id: str, systems: Sequence[str]) -> str:
    """"00544005 · UEdin": how a step names an output (an output of several systems: "… · UEdin +2")."""
    if not systems:
        return external_id
    more = f" +{len(systems) - 1}" if len(systems) > 1 else ""
    return f"{external_id} · {systems[0]}{more}"


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


def changes_of(edits: Sequence[Edit]) -> Changes:
    """What applying all of ``edits`` changes."""
    total = Changes()
    for edit in edits:
        total |= edit.changes()
    return total

