"""One item being edited as a whole, compared with the item as stored and turned into the core's edits.

It lives in the core, not beside the editor's widgets, because everything it decides is about data: which
edits a save applies and in which order the core accepts each of them (item fields first, then removals,
changes, additions and the rules' order), what would be refused (so that a save that would fail half-way
is never started), and how unsaved changes merge with a colleague's save (``rebased``). Any front-end that
saves an item in one go needs the same; the editor's tables edit its row lists in place, and tests and the
bench drive it without Qt. A draft starts from ``suite.editing.api.item_detail`` and also gives the
``suite.engine.preview.Draft`` of the live preview and the new or modified rules of the scope preview.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from store import models
from store.domain import Polarity
from suite.editing.api import ItemDetail, KnownInfo, ReferenceInfo, StoredRule
from suite.editing.undoable_edits import (
    AddEntry,
    AddRule,
    ChangeEntry,
    ChangeItem,
    ChangeRule,
    Edit,
    Ledger,
    MoveItem,
    RemoveEntry,
    RemoveRule,
    ReorderRules,
)
from suite.engine.preview import Draft, DraftKnown, DraftRule, ItemPreview
from suite.engine.rules import PatternProblem, RuleSpec, normalise, pattern_problem

POLARITIES = models.POLARITIES
KNOWN_KINDS = models.TRANSLATION_KINDS

_lowest_key = 0
"""Stand-in ids of rows not saved yet count down from -1: negative, as stored ids never are, and unique for the
whole session because the ledger remembers them for ever (drafts recovered from an autosave keep theirs, so the
count goes on below them)."""


def _new_key() -> int:
    global _lowest_key
    _lowest_key -= 1
    return _lowest_key


def _keep_below(keys: Iterable[int]) -> None:
    global _lowest_key
    _lowest_key = min(_lowest_key, *keys, 0)


@dataclass(frozen=True)
class RuleRow:
    """A row of the editor's rule table: the rule as typed, beside the rule as stored."""

    key: int
    """The stored rule's id, or a stand-in for a new rule."""
    spec: RuleSpec
    """The rule as typed."""
    stored: RuleSpec | None = None
    """The rule as stored (None for a new rule); its polarity is the row's, as a row never changes list."""
    position: int | None = None
    """Its place among the stored rules of its polarity (None for a new rule)."""

    @property
    def is_new(self) -> bool:
        return self.stored is None

    @property
    def modified(self) -> bool:
        return self.stored is not None and self.spec != self.stored

    @property
    def blank(self) -> bool:
        """A rule just added with nothing typed yet: not a rule. It is neither saved nor previewed nor a problem
        (it made every output an ``error`` in the preview the moment it was added, issue 16)."""
        return self.is_new and not self.spec.pattern.strip()

    def to_json(self) -> dict[str, Any]:
        """Flat, as the autosave has always held it (``suite.editing.draft_autosave``)."""
        return {"key": self.key, **asdict(self.spec),
                "stored_pattern": None if self.stored is None else self.stored.pattern,
                "stored_ignore_case": False if self.stored is None else self.stored.ignore_case,
                "position": self.position}

    @staticmethod
    def from_json(data: dict[str, Any]) -> RuleRow:
        polarity = Polarity(data["polarity"])
        stored = None if data["stored_pattern"] is None else \
            RuleSpec(polarity, data["stored_pattern"], data["stored_ignore_case"])
        return RuleRow(data["key"], RuleSpec(polarity, data["pattern"], data["ignore_case"]), stored,
                       data["position"])


@dataclass(frozen=True)
class EntryRow:
    """A known translation or a reference: a kind and a text."""

    key: int
    kind: str
    text: str = ""
    stored_kind: str | None = None
    stored_text: str | None = None

    @property
    def is_new(self) -> bool:
        return self.stored_text is None


@dataclass(frozen=True)
class DraftProblem:
    """Why the draft cannot be saved yet; ``pattern`` is set for a rule whose pattern does not compile."""

    message: str
    polarity: Polarity | None = None
    row: int | None = None
    pattern: PatternProblem | None = None


def new_rule(polarity: Polarity, pattern: str = "", ignore_case: bool = False) -> RuleRow:
    return RuleRow(_new_key(), RuleSpec(polarity, pattern, ignore_case))


def new_entry(kind: str) -> EntryRow:
    return EntryRow(_new_key(), kind)


@dataclass
class EditorDraft:
    detail: ItemDetail
    source: str
    comment: str
    category: str
    phenomenon: str
    rules: dict[str, list[RuleRow]]
    known: list[EntryRow]
    references: list[EntryRow]
    versions: dict[tuple[Literal["item", "rule", "known", "reference"], int], int] = field(default_factory=dict)

    @classmethod
    def of(cls, detail: ItemDetail) -> EditorDraft:
        rules: dict[str, list[RuleRow]] = {polarity: [] for polarity in POLARITIES}
        versions: dict[tuple[Literal["item", "rule", "known", "reference"], int], int] = {
            ("item", detail.id): detail.version}
        for rule in detail.rules:
            rules[rule.spec.polarity].append(RuleRow(rule.id, rule.spec, rule.spec, rule.position))
            versions[("rule", rule.id)] = rule.version
        for known in detail.known:
            versions[("known", known.id)] = known.version
        for reference in detail.references:
            versions[("reference", reference.id)] = reference.version
        return cls(detail, detail.source, detail.comment or "", detail.category or "", detail.phenomenon or "",
                   rules,
                   [EntryRow(k.id, k.kind, k.text, k.kind, k.text) for k in detail.known],
                   [EntryRow(r.id, r.kind, r.text, r.kind, r.text) for r in detail.references],
                   versions)

    def rebased(self, fresh: ItemDetail) -> EditorDraft:
        """This draft's unsaved changes on top of ``fresh``, the item as it is now (after a colleague's save,
        an undo, or the part of a save that went through before a refusal).

        What the linguist changed since loading wins where both sides changed the same field or row; what only
        the other side changed stays; rows the linguist removed stay removed, new rows are appended. The rules'
        order is the fresh one. The versions are the fresh ones, so saving the result overwrites what the
        linguist has now seen, and only that.
        """
        old = self.detail
        draft = EditorDraft.of(fresh)
        if self.source != old.source:
            draft.source = self.source
        if self.comment != (old.comment or ""):
            draft.comment = self.comment
        if (self.category, self.phenomenon) != (old.category or "", old.phenomenon or ""):
            draft.category, draft.phenomenon = self.category, self.phenomenon
        mine = {row.key: row for row in self.all_rules()}
        removed = {rule.id for rule in old.rules} - set(mine)
        for polarity in POLARITIES:
            draft.rules[polarity] = [
                replace(row, spec=mine[row.key].spec) if row.key in mine and mine[row.key].modified else row
                for row in draft.rules[polarity] if row.key not in removed]
        for row in self.all_rules():
            if row.is_new:
                draft.rules[row.spec.polarity].append(row)
        draft.known = _rebased_entries(self.known, [k.id for k in old.known], draft.known)
        draft.references = _rebased_entries(self.references, [r.id for r in old.references], draft.references)
        return draft

    @property
    def item_id(self) -> int:
        return self.detail.id

    def to_json(self) -> dict[str, Any]:
        """The draft as JSON values, for the autosave (``suite.editing.draft_autosave``): the item as it was read
        (without its outputs, which a recovered draft reads afresh) and everything the linguist changed on top of it."""
        detail = {**asdict(self.detail), "rules": [rule.to_json() for rule in self.detail.rules], "outputs": []}
        return {"detail": detail, "source": self.source, "comment": self.comment, "category": self.category,
                "phenomenon": self.phenomenon,
                "rules": {polarity: [row.to_json() for row in rows] for polarity, rows in self.rules.items()},
                "known": [asdict(row) for row in self.known], "references": [asdict(row) for row in self.references],
                "versions": [[entity, row_id, version] for (entity, row_id), version in self.versions.items()]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EditorDraft:
        """A draft written by ``to_json``: rebase it on the item as it is now before showing it (``rebased``)."""
        detail = data["detail"]
        draft = cls(ItemDetail(**{**detail, "rules": [StoredRule.from_json(rule) for rule in detail["rules"]],
                                  "known": [KnownInfo(**known) for known in detail["known"]],
                                  "references": [ReferenceInfo(**ref) for ref in detail["references"]],
                                  "outputs": []}),
                    data["source"], data["comment"], data["category"], data["phenomenon"],
                    {polarity: [RuleRow.from_json(row) for row in rows] for polarity, rows in data["rules"].items()},
                    [EntryRow(**row) for row in data["known"]], [EntryRow(**row) for row in data["references"]],
                    {(entity, row_id): version for entity, row_id, version in data["versions"]})
        _keep_below([*(row.key for row in draft.all_rules()), *(row.key for row in draft.known + draft.references)])
        return draft

    def all_rules(self) -> list[RuleRow]:
        """Positive rules, then negative ones, in the lists' order: the order they are saved and previewed in."""
        return [row for polarity in POLARITIES for row in self.rules[polarity]]

    def preview_draft(self) -> Draft:
        return Draft(tuple(DraftRule(row.spec, None if row.is_new else row.key) for row in self.all_rules()),
                     tuple(DraftKnown(row.kind, row.text) for row in self.known if row.text.strip()))

    def rule_at(self, index: int) -> tuple[str, int]:
        """The list (polarity) and row of ``preview_draft().rules[index]``."""
        positives = len(self.rules["positive"])
        return ("positive", index) if index < positives else ("negative", index - positives)

    def matches(self, preview: ItemPreview) -> dict[str, dict[int, int]]:
        """Per polarity, how many of the preview's outputs each rule (by row) matches."""
        counts: dict[str, Counter[int]] = {polarity: Counter() for polarity in POLARITIES}
        for output in preview.outputs:
            for rule_index in {span.rule_index for span in output.spans}:
                polarity, row = self.rule_at(rule_index)
                counts[polarity][row] += 1
        return {polarity: {row: counts[polarity][row] for row in range(len(self.rules[polarity]))}
                for polarity in POLARITIES}

    def changed_rules(self) -> list[DraftRule]:
        """The new or modified rules, which the scope preview tries on the other items (those that compile:
        one that does not would only make every output there an error)."""
        return [DraftRule(row.spec) for row in self.all_rules()
                if (row.is_new or row.modified) and pattern_problem(row.spec.pattern, row.spec.ignore_case) is None]

    def problems(self) -> list[DraftProblem]:
        found: list[DraftProblem] = []
        for polarity in POLARITIES:
            for index, row in enumerate(self.rules[polarity]):
                if not row.blank and (problem := pattern_problem(row.spec.pattern, row.spec.ignore_case)) is not None:
                    found.append(DraftProblem(f"{polarity} rule {index + 1}: {problem}", polarity, index, problem))
        for what, rows in (("known translation", self.known), ("reference", self.references)):
            found.extend(DraftProblem(f"{what} {index + 1} is empty")
                         for index, row in enumerate(rows) if not row.text.strip())
        first: dict[tuple[str, str], int] = {}
        for index, known in enumerate(self.known):
            copied = first.setdefault((known.kind, normalise(known.text)), index)
            if copied != index and known.text.strip():
                found.append(DraftProblem(f"known translation {index + 1} is a copy of known translation {copied + 1}"))
        if not self.source.strip():
            found.append(DraftProblem("the source sentence is empty"))
        return found

    @property
    def dirty(self) -> bool:
        return bool(self.edits())

    def seed(self, ledger: Ledger) -> None:
        """Tell the ledger which versions this draft was read at: what saving it expects to overwrite."""
        for (entity, row_id), version in self.versions.items():
            ledger.seen(entity, row_id, version)

    def edits(self) -> list[Edit]:
        """What saving applies, in an order every step of which the core accepts."""
        detail, item_id = self.detail, self.detail.id
        edits: list[Edit] = []
        if (self.source, self.comment) != (detail.source, detail.comment or ""):
            edits.append(ChangeItem(item_id, self.source, self.comment, detail.source, detail.comment or ""))
        if (self.category, self.phenomenon) != (detail.category or "", detail.phenomenon or ""):
            edits.append(MoveItem(item_id, self.category, self.phenomenon, detail.category or "",
                                  detail.phenomenon or ""))
        rows = [row for row in self.all_rules() if not row.blank]
        kept = {row.key for row in rows}
        stored = detail.rules
        edits.extend(RemoveRule(item_id, r.id, r.spec, r.position) for r in stored if r.id not in kept)
        edits.extend(ChangeRule(item_id, row.key, row.spec, row.stored) for row in rows if row.stored and row.modified)
        added = [row for row in rows if row.is_new]
        edits.extend(AddRule(item_id, row.spec, row.key) for row in added)
        after_saving = [r.id for r in stored if r.id in kept] + [row.key for row in added]
        wanted = [row.key for row in rows]
        if _by_polarity(after_saving, rows) != _by_polarity(wanted, rows):
            edits.append(ReorderRules(item_id, tuple(wanted), tuple(after_saving)))
        edits.extend(_entry_edits("known", item_id, self.known,
                                  [(k.id, k.kind, k.text) for k in detail.known]))
        edits.extend(_entry_edits("reference", item_id, self.references,
                                  [(r.id, r.kind, r.text) for r in detail.references]))
        return edits


def _by_polarity(keys: list[int], rows: list[RuleRow]) -> tuple[list[int], list[int]]:
    """Only the order within each polarity decides anything (which rule is named as having decided)."""
    polarity = {row.key: row.spec.polarity for row in rows}
    return ([key for key in keys if polarity[key] == "positive"],
            [key for key in keys if polarity[key] == "negative"])


def _rebased_entries(mine: list[EntryRow], loaded: list[int], fresh: list[EntryRow]) -> list[EntryRow]:
    rows = {row.key: row for row in mine}
    removed = set(loaded) - set(rows)
    changed = {key: row for key, row in rows.items()
               if not row.is_new and (row.kind, row.text) != (row.stored_kind, row.stored_text)}
    kept = [replace(row, kind=changed[row.key].kind, text=changed[row.key].text) if row.key in changed else row
            for row in fresh if row.key not in removed]
    return kept + [row for row in mine if row.is_new]


def _entry_edits(entity: Literal["known", "reference"], item_id: int, rows: list[EntryRow],
                 stored: list[tuple[int, str, str]]) -> list[Edit]:
    kept = {row.key for row in rows}
    edits: list[Edit] = [RemoveEntry(entity, item_id, entry_id, kind, text)
                         for entry_id, kind, text in stored if entry_id not in kept]
    edits.extend(ChangeEntry(entity, item_id, row.key, row.kind, row.text, row.stored_kind or "", row.stored_text or "")
                 for row in rows if not row.is_new and (row.kind, row.text) != (row.stored_kind, row.stored_text))
    edits.extend(AddEntry(entity, item_id, row.kind, row.text, row.key) for row in rows if row.is_new)
    return edits
