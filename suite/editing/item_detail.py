"""One item read whole, with the versions an editor sends back with its saves (``tsqe item show``, the GUI)."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from store import Database
from store.domain import Label, Polarity
from store.models import (
    AutoLabel,
    Item,
    KnownTranslation,
    ManualLabel,
    Output,
    Reference,
    Rule,
    Suite,
    System,
    SystemOutput,
)
from suite.editing.taxonomy import place
from suite.engine.labels import automatic_label, effective_label, join_labels, rule_number
from suite.engine.rules import RuleSpec, describe, pattern_problem
from suite.errors import TsqeError
from suite.word_diff import closest


@dataclass(frozen=True)
class StoredRule:
    """A rule read for editing: its save sends the version back."""

    id: int
    spec: RuleSpec
    valid: bool
    error: str | None
    position: int
    """Its place among the item's rules of its polarity, from 0, as ``add_rule`` takes it."""
    version: int

    def to_json(self) -> dict[str, Any]:
        """Flat, as the autosave has always held it (``suite.editing.draft_autosave``)."""
        return {"id": self.id, **asdict(self.spec), "valid": self.valid, "error": self.error,
                "position": self.position, "version": self.version}

    @staticmethod
    def from_json(data: dict[str, Any]) -> StoredRule:
        return StoredRule(data["id"], RuleSpec(Polarity(data["polarity"]), data["pattern"], data["ignore_case"]),
                          data["valid"], data["error"], data["position"], data["version"])

    @property
    def problem(self) -> str | None:
        """What is wrong with an invalid rule in the editor's words ("pattern is too complex: …", "pattern does not
        compile: …"); None for a valid one."""
        if self.valid:
            return None
        return str(pattern_problem(self.spec.pattern, self.spec.ignore_case)
                   or f"pattern does not compile: {self.error}")


@dataclass(frozen=True)
class KnownInfo:
    id: int
    kind: str
    text: str
    version: int


@dataclass(frozen=True)
class ReferenceInfo:
    id: int
    kind: str
    text: str
    version: int


@dataclass(frozen=True)
class ItemOutput:
    output_id: int
    text: str
    systems: tuple[str, ...]
    auto_label: Label | None
    """None when the output has not been labelled yet."""
    decided_by: str | None
    manual_label: Label | None
    reviewer: str | None
    reviewed_at: datetime | None
    comment: str | None
    effective_label: Label | None
    manual_version: int
    """The manual label's version, 0 when there is none: what a decision passes back as the version seen
    (``suite.editing.review.SeenOutput``)."""


@dataclass(frozen=True)
class ItemDetail:
    id: int
    external_id: str
    suite: str
    category: str | None
    phenomenon: str | None
    source: str
    comment: str | None
    version: int
    rules: list[StoredRule]
    """In the order they are tried."""
    known: list[KnownInfo]
    references: list[ReferenceInfo]
    outputs: list[ItemOutput]


def item_detail(db: Database, item_id: int) -> ItemDetail:
    with db.session() as session:
        item = session.get(Item, item_id)
        if item is None:
            raise TsqeError(f"no item with id {item_id}")
        suite = session.scalar(select(Suite.name).where(Suite.id == item.suite_id))
        assert suite is not None
        category, phenomenon = place(session, item.phenomenon_id)
        seen = {"positive": 0, "negative": 0}
        rules = []
        for rule in session.scalars(select(Rule).where(Rule.item_id == item_id).order_by(Rule.position, Rule.id)):
            rules.append(StoredRule(rule.id, RuleSpec(rule.polarity, rule.pattern, rule.ignore_case), rule.valid,
                                    rule.error, seen[rule.polarity], rule.version))
            seen[rule.polarity] += 1
        known = [KnownInfo(k.id, k.kind, k.text, k.version) for k in session.scalars(
            select(KnownTranslation).where(KnownTranslation.item_id == item_id).order_by(KnownTranslation.id))]
        references = [ReferenceInfo(r.id, r.kind, r.text, r.version) for r in session.scalars(
            select(Reference).where(Reference.item_id == item_id).order_by(Reference.id))]
        systems: dict[int, list[str]] = {}
        for output_id, name in session.execute(select(SystemOutput.output_id, System.name)
                                               .join(System, System.id == SystemOutput.system_id)
                                               .where(SystemOutput.item_id == item_id).order_by(System.name)):
            systems.setdefault(output_id, []).append(name)
        query = (join_labels(select(Output.id, Output.text, automatic_label(Output.id), rule_number(),
                                    Rule.polarity, Rule.pattern, AutoLabel.reason, ManualLabel.label,
                                    ManualLabel.reviewer, ManualLabel.reviewed_at, ManualLabel.comment,
                                    effective_label(Output.id), ManualLabel.version).select_from(Output),
                             Output.id, Output.item_id)
                 .outerjoin(Rule, Rule.id == AutoLabel.rule_id)
                 .where(Output.item_id == item_id).order_by(Output.id))
        outputs = [ItemOutput(output_id, text, tuple(systems.get(output_id, ())), auto,
                              None if auto is None else describe(auto, number, polarity, pattern, reason),
                              manual, reviewer, reviewed_at, comment, effective, manual_version or 0)
                   for (output_id, text, auto, number, polarity, pattern, reason, manual, reviewer, reviewed_at,
                        comment, effective, manual_version) in session.execute(query)]
        return ItemDetail(item.id, item.external_id, suite, category, phenomenon, item.source, item.comment,
                          item.version, rules, known, references, outputs)


@dataclass(frozen=True)
class Nearest:
    """The reference or known translation most like an output: what a reviewer reads the output against."""

    what: str
    """What it is, in words: "reference (human)", "known good translation"."""
    text: str
    identical: bool
    """The same words as the output (spacing aside): there is no difference to show."""


def nearest_translation(item: ItemDetail, output: str) -> Nearest | None:
    """Among the item's references and known translations, the one most like ``output`` by word overlap (the
    first of equals, references first); None when the item has neither."""
    candidates = [(f"reference ({r.kind})", r.text) for r in item.references]
    candidates += [(f"known {k.kind} translation", k.text) for k in item.known]
    found = closest(output, [text for _, text in candidates])
    if found is None:
        return None
    what, text = candidates[found]
    return Nearest(what, text, text.split() == output.split())
