"""Adding, changing, moving, removing and restoring whole items.

Removing an item takes its outputs, labels and scores with it; the ``ItemSnapshot`` it returns (also kept as
the history entry's ``before``) holds all of that, so ``restore_item`` undoes a removal without loss.
"""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from store import Database
from store.domain import HumanScoreKind, Label, Polarity
from store.models import (
    Category,
    ConstructedLabel,
    HistoryEntry,
    HumanSegmentScore,
    Item,
    KnownTranslation,
    ManualLabel,
    MetricScore,
    Output,
    Phenomenon,
    QEScore,
    QESystem,
    Reference,
    Rule,
    Suite,
    System,
    SystemOutput,
)
from suite.editing.history import (
    Versioned,
    check_author,
    checked_delete,
    checked_update,
    first_version,
    next_versions,
)
from suite.editing.item_edit import EditResult, ItemEdit, automatic_labels, editing
from suite.editing.taxonomy import phenomenon_id, place, remove_empty_phenomena
from suite.engine.label_counts import ReviewMove, count_reviews
from suite.engine.rules import RuleSpec
from suite.errors import TsqeError
from suite.suites import find_suite

SNAPSHOT_CHUNK = 500
"""Items per snapshot query: their ids make the ``IN (...)`` lists, well below every database's limit."""


@dataclass(frozen=True)
class RuleSnapshot:
    """A removed item's rule, restored under a new id: a ``StoredRule`` without its id. Held in the history as
    the columns of its row (``columns``), which a field added for the editor must not change."""

    spec: RuleSpec
    valid: bool
    error: str | None
    position: int
    version: int

    def columns(self) -> dict[str, Any]:
        return {**asdict(self.spec), "valid": self.valid, "error": self.error, "position": self.position,
                "version": self.version}

    @staticmethod
    def of_columns(data: dict[str, Any]) -> RuleSnapshot:
        return RuleSnapshot(RuleSpec(Polarity(data["polarity"]), data["pattern"], data["ignore_case"]),
                            data["valid"], data["error"], data["position"], data["version"])


@dataclass(frozen=True)
class TextSnapshot:
    """A known translation or a reference (with its set; None in snapshots taken before sets existed, which
    restore it to the set named after its kind)."""

    kind: str
    text: str
    version: int
    set_name: str | None = None


@dataclass(frozen=True)
class ManualLabelSnapshot:
    label: Label
    reviewer: str
    reviewed_at: datetime
    comment: str | None
    version: int


@dataclass(frozen=True)
class OutputSnapshot:
    text: str
    systems: tuple[str, ...]
    manual_label: ManualLabelSnapshot | None
    qe_scores: tuple[tuple[str, float], ...]
    """(QE system name, score)."""
    metric_scores: tuple[tuple[str, float], ...]
    """(metric signature, score)."""
    constructed: str | None = None
    """Its label by a challenge set's construction (``ConstructedLabel``), if it has one."""


@dataclass(frozen=True)
class HumanScoreSnapshot:
    """A system's segment-level human score of the item (``tsqe import human-scores --segments``)."""

    system: str
    score: float
    raw: float | None
    judgements: int | None
    kind: HumanScoreKind = HumanScoreKind.Z
    """Snapshots taken before a suite could hold several kinds hold z-scores, the kind of a suite without one."""


@dataclass(frozen=True)
class ItemSnapshot:
    """Everything a removed item held; its automatic labels are not kept, as restoring relabels it."""

    suite: str
    external_id: str
    position: int
    category: str | None
    phenomenon: str | None
    source: str
    comment: str | None
    version: int
    rules: tuple[RuleSnapshot, ...]
    known: tuple[TextSnapshot, ...]
    references: tuple[TextSnapshot, ...]
    outputs: tuple[OutputSnapshot, ...]
    source_lang: str | None = None
    target_lang: str | None = None
    """The item's own languages (in a suite of several)."""
    human_scores: tuple[HumanScoreSnapshot, ...] = ()
    """Absent from snapshots taken before segment-level human scores existed."""

    def to_dict(self) -> dict[str, Any]:
        """The snapshot as JSON-ready values, as the history stores it."""
        data = {**asdict(self), "rules": [rule.columns() for rule in self.rules]}
        for output in data["outputs"]:
            if output["manual_label"] is not None:
                output["manual_label"]["reviewed_at"] = output["manual_label"]["reviewed_at"].isoformat()
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemSnapshot:
        """The snapshot a removal's history entry holds (``HistoryRecord.before``), to restore the item."""
        outputs = []
        for output in data["outputs"]:
            manual = output["manual_label"]
            outputs.append(OutputSnapshot(
                output["text"], tuple(output["systems"]),
                None if manual is None else ManualLabelSnapshot(**{
                    **manual, "reviewed_at": datetime.fromisoformat(manual["reviewed_at"])}),
                tuple((name, score) for name, score in output["qe_scores"]),
                tuple((signature, score) for signature, score in output["metric_scores"]),
                output.get("constructed")))
        return cls(data["suite"], data["external_id"], data["position"], data["category"], data["phenomenon"],
                   data["source"], data["comment"], data["version"],
                   tuple(RuleSnapshot.of_columns(rule) for rule in data["rules"]),
                   tuple(TextSnapshot(**known) for known in data["known"]),
                   tuple(TextSnapshot(**reference) for reference in data["references"]), tuple(outputs),
                   data.get("source_lang"), data.get("target_lang"),
                   tuple(HumanScoreSnapshot(**{**human, "kind": HumanScoreKind(human.get("kind", HumanScoreKind.Z))})
                         for human in data.get("human_scores", ())))


def find_item(db: Database, external_id: str, suite_name: str | None = None) -> int:
    """The database id of the item called ``external_id`` in the suite (as in the imported file)."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        return _item_id(session, suite, external_id)


def _item_id(session: Session, suite: Suite, external_id: str) -> int:
    found = session.scalar(select(Item.id).where(Item.suite_id == suite.id, Item.external_id == external_id))
    if found is None:
        raise TsqeError(f"no item {external_id!r} in suite {suite.name!r}")
    return found


def _text(value: str, what: str) -> str:
    if not value.strip():
        raise TsqeError(f"{what} cannot be empty")
    return value


def add_item(db: Database, *, external_id: str, source: str, category: str, phenomenon: str,
             comment: str | None = None, suite_name: str | None = None, author: str) -> EditResult:
    """A new item at the end of the suite, in ``category``/``phenomenon`` (created when new)."""
    author = check_author(author)
    external_id = external_id.strip()
    if not external_id or len(external_id) > 100:
        raise TsqeError("an item id must be 1 to 100 characters long")
    _text(source, "an item's source")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        if session.scalar(select(Item.id).where(Item.suite_id == suite.id, Item.external_id == external_id)):
            raise TsqeError(f"suite {suite.name!r} already has an item {external_id!r}")
        position = session.scalar(select(func.max(Item.position)).where(Item.suite_id == suite.id))
        item = Item(suite_id=suite.id, external_id=external_id, source=source, comment=comment or None,
                    position=0 if position is None else position + 1,
                    phenomenon_id=phenomenon_id(session, suite.id, category, phenomenon))
        session.add(item)
        version = first_version(session, Item, item)
        edit = ItemEdit(session, item, author, {})
        category_name, phenomenon_name = place(session, item.phenomenon_id)
        edit.record("item", item.id, "add", None, {"source": source, "comment": item.comment,
                                                   "category": category_name, "phenomenon": phenomenon_name},
                    version)
        return edit.finish(item.id, version)


def change_item(db: Database, item_id: int, *, source: str | None = None, comment: str | None = None, author: str,
                expected_version: int | None = None) -> EditResult:
    """Change an item's source and/or comment (an empty comment removes it)."""
    if source is not None:
        _text(source, "an item's source")
    with editing(db, Item, item_id, author, expected_version) as (edit, item):
        changed: dict[str, str | None] = {}
        if source is not None and source != item.source:
            changed["source"] = source
        if comment is not None and (comment or None) != item.comment:
            changed["comment"] = comment or None
        if not changed:
            return edit.finish(item.id, item.version)
        before = {key: getattr(item, key) for key in changed}
        version = checked_update(edit.session, Item, item, changed)
        edit.record("item", item.id, "change", before, changed, version)
        return edit.finish(item.id, version)


def move_item(db: Database, item_id: int, *, category: str, phenomenon: str, author: str,
              expected_version: int | None = None) -> EditResult:
    """Put an item under ``category``/``phenomenon``, creating them when new; a category or phenomenon left
    without items goes."""
    with editing(db, Item, item_id, author, expected_version) as (edit, item):
        target = phenomenon_id(edit.session, item.suite_id, category, phenomenon)
        if target == item.phenomenon_id:
            return edit.finish(item.id, item.version)
        before = dict(zip(("category", "phenomenon"), place(edit.session, item.phenomenon_id)))
        version = checked_update(edit.session, Item, item, {"phenomenon_id": target})
        remove_empty_phenomena(edit.session, item.suite_id)
        edit.record("item", item.id, "move", before,
                    dict(zip(("category", "phenomenon"), place(edit.session, target))), version)
        return edit.finish(item.id, version)


def snapshot_items(session: Session, items: Sequence[Item]) -> list[ItemSnapshot]:
    """Everything each of ``items`` holds, for the history entries of their removal (by an edit or by an import),
    read ``SNAPSHOT_CHUNK`` items at a time: an update removing thousands of items would otherwise spend most
    of its time on ten queries per item."""
    snapshots: list[ItemSnapshot] = []
    for start in range(0, len(items), SNAPSHOT_CHUNK):
        snapshots += _snapshots(session, items[start:start + SNAPSHOT_CHUNK])
    return snapshots


def _snapshots(session: Session, items: Sequence[Item]) -> list[ItemSnapshot]:
    ids = [item.id for item in items]
    places: dict[int | None, tuple[str | None, str | None]] = {
        phenomenon: (category, name) for phenomenon, category, name in session.execute(
            select(Phenomenon.id, Category.name, Phenomenon.name).join(Phenomenon.category)
            .where(Phenomenon.id.in_({item.phenomenon_id for item in items if item.phenomenon_id is not None})))}
    suites = dict(session.execute(select(Suite.id, Suite.name)
                                  .where(Suite.id.in_({item.suite_id for item in items}))).all())
    rules: dict[int, list[RuleSnapshot]] = defaultdict(list)
    for item_id, polarity, pattern, ignore_case, valid, error, position, version in session.execute(
            select(Rule.item_id, Rule.polarity, Rule.pattern, Rule.ignore_case, Rule.valid, Rule.error, Rule.position,
                   Rule.version).where(Rule.item_id.in_(ids)).order_by(Rule.position, Rule.id)):
        rules[item_id].append(RuleSnapshot(RuleSpec(polarity, pattern, ignore_case), valid, error, position, version))
    texts: dict[tuple[type, int], list[TextSnapshot]] = defaultdict(list)
    for item_id, kind, text, version in session.execute(
            select(KnownTranslation.item_id, KnownTranslation.kind, KnownTranslation.text, KnownTranslation.version)
            .where(KnownTranslation.item_id.in_(ids)).order_by(KnownTranslation.id)):
        texts[(KnownTranslation, item_id)].append(TextSnapshot(kind, text, version))
    for item_id, reference_kind, text, version, set_name in session.execute(
            select(Reference.item_id, Reference.kind, Reference.text, Reference.version, Reference.set_name)
            .where(Reference.item_id.in_(ids)).order_by(Reference.id)):
        texts[(Reference, item_id)].append(TextSnapshot(reference_kind, text, version, set_name))
    systems: dict[int, list[str]] = defaultdict(list)
    for output_id, name in session.execute(select(SystemOutput.output_id, System.name)
                                           .join(System, System.id == SystemOutput.system_id)
                                           .where(SystemOutput.item_id.in_(ids)).order_by(System.name)):
        systems[output_id].append(name)
    qe: dict[int, list[tuple[str, float]]] = defaultdict(list)
    for output_id, name, score in session.execute(select(QEScore.output_id, QESystem.name, QEScore.score)
                                                  .join(QESystem, QESystem.id == QEScore.qe_system_id)
                                                  .join(Output, Output.id == QEScore.output_id)
                                                  .where(Output.item_id.in_(ids)).order_by(QESystem.name)):
        qe[output_id].append((name, score))
    metrics: dict[int, list[tuple[str, float]]] = defaultdict(list)
    for output_id, signature, score in session.execute(
            select(MetricScore.output_id, MetricScore.signature, MetricScore.score)
            .join(Output, Output.id == MetricScore.output_id).where(Output.item_id.in_(ids))
            .order_by(MetricScore.signature)):
        metrics[output_id].append((signature, score))
    outputs: dict[int, list[OutputSnapshot]] = defaultdict(list)
    for item_id, output_id, text, label, reviewer, reviewed_at, comment, version, constructed in session.execute(
            select(Output.item_id, Output.id, Output.text, ManualLabel.label, ManualLabel.reviewer,
                   ManualLabel.reviewed_at, ManualLabel.comment, ManualLabel.version, ConstructedLabel.label)
            .outerjoin(ManualLabel, ManualLabel.output_id == Output.id)
            .outerjoin(ConstructedLabel, ConstructedLabel.output_id == Output.id)
            .where(Output.item_id.in_(ids)).order_by(Output.id)):
        outputs[item_id].append(OutputSnapshot(
            text, tuple(systems[output_id]),
            None if label is None else ManualLabelSnapshot(label, reviewer, reviewed_at, comment, version),
            tuple(qe[output_id]), tuple(metrics[output_id]), constructed))
    human: dict[int, list[HumanScoreSnapshot]] = defaultdict(list)
    for item_id, name, score, raw, judgements, human_kind in session.execute(
            select(HumanSegmentScore.item_id, System.name, HumanSegmentScore.score, HumanSegmentScore.raw,
                   HumanSegmentScore.judgements, HumanSegmentScore.kind)
            .join(System, System.id == HumanSegmentScore.system_id)
            .where(HumanSegmentScore.item_id.in_(ids)).order_by(System.name, HumanSegmentScore.kind)):
        human[item_id].append(HumanScoreSnapshot(name, score, raw, judgements, HumanScoreKind(human_kind)))
    return [ItemSnapshot(suites[item.suite_id], item.external_id, item.position,
                         *places.get(item.phenomenon_id, (None, None)), item.source, item.comment, item.version,
                         tuple(rules[item.id]), tuple(texts[(KnownTranslation, item.id)]),
                         tuple(texts[(Reference, item.id)]), tuple(outputs[item.id]), item.source_lang,
                         item.target_lang, tuple(human[item.id]))
            for item in items]


def remove_item(db: Database, item_id: int, *, author: str, expected_version: int | None = None) -> ItemSnapshot:
    """Remove an item with its rules, known translations, references, outputs, labels and scores; what it
    held, for ``restore_item`` (the history keeps it too)."""
    with editing(db, Item, item_id, author, expected_version) as (edit, item):
        (snapshot,) = snapshot_items(edit.session, [item])
        checked_delete(edit.session, Item, item)
        remove_empty_phenomena(edit.session, item.suite_id)
        edit.record("item", item_id, "remove", snapshot.to_dict(), None, None)
        return snapshot


def restore_item(db: Database, snapshot: ItemSnapshot, *, author: str) -> EditResult:
    """Put a removed item back where it was, with everything ``remove_item`` took (under new row ids);
    systems that have gone since are created again, scores of QE systems that have gone are not restored."""
    author = check_author(author)
    with db.transaction() as session:
        suite = find_suite(session, snapshot.suite)
        if session.scalar(select(Item.id).where(Item.suite_id == suite.id,
                                                Item.external_id == snapshot.external_id)):
            raise TsqeError(f"suite {suite.name!r} already has an item {snapshot.external_id!r}")
        session.execute(update(Item).where(Item.suite_id == suite.id, Item.position >= snapshot.position)
                        .values(position=Item.position + 1).execution_options(synchronize_session=False))
        place_id = None if snapshot.category is None or snapshot.phenomenon is None else \
            phenomenon_id(session, suite.id, snapshot.category, snapshot.phenomenon)
        item = Item(suite_id=suite.id, external_id=snapshot.external_id, position=snapshot.position,
                    phenomenon_id=place_id, source=snapshot.source, comment=snapshot.comment,
                    source_lang=snapshot.source_lang, target_lang=snapshot.target_lang)
        session.add(item)
        first_version(session, Item, item, snapshot.version + 1)
        _restore_children(session, suite.id, item.id, snapshot)
        edit = ItemEdit(session, item, author, automatic_labels(session, item.id))
        edit.record("item", item.id, "add", None,
                    {"restored": True, "source": item.source, "comment": item.comment,
                     "category": snapshot.category, "phenomenon": snapshot.phenomenon,
                     "rules": len(snapshot.rules), "outputs": len(snapshot.outputs)}, item.version)
        return edit.finish(item.id, item.version)


def restore_removed_item(db: Database, external_id: str, suite_name: str | None = None, *,
                         author: str) -> EditResult:
    """Undo the latest removal of the item ``external_id`` from the snapshot its history keeps."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        before = session.scalar(select(HistoryEntry.before)
                                .where(HistoryEntry.suite_id == suite.id, HistoryEntry.item_external_id == external_id,
                                       HistoryEntry.entity == "item", HistoryEntry.action == "remove")
                                .order_by(HistoryEntry.id.desc()).limit(1))
    if before is None:
        raise TsqeError(f"the history of suite {suite.name!r} holds no removal of an item {external_id!r}")
    return restore_item(db, ItemSnapshot.from_dict(json.loads(before)), author=author)


def _restore_children(session: Session, suite_id: int, item_id: int, snapshot: ItemSnapshot) -> None:
    parts: list[tuple[Versioned, tuple[RuleSnapshot | TextSnapshot, ...]]] = [
        (Rule, snapshot.rules), (KnownTranslation, snapshot.known), (Reference, snapshot.references)]
    for model, rows in parts:
        for part in rows:
            columns = part.columns() if isinstance(part, RuleSnapshot) else asdict(part)
            row = model(item_id=item_id, **{key: value for key, value in columns.items()
                                            if value is not None or key != "set_name"})
            session.add(row)
            first_version(session, model, row, part.version)
    system_ids = dict(session.execute(select(System.name, System.id).where(System.suite_id == suite_id)).all())
    qe_ids = dict(session.execute(select(QESystem.name, QESystem.id)).all())
    outputs = []
    for human in snapshot.human_scores:
        if human.system not in system_ids:
            system = System(suite_id=suite_id, name=human.system)
            session.add(system)
            session.flush()
            system_ids[human.system] = system.id
        session.add(HumanSegmentScore(system_id=system_ids[human.system], item_id=item_id, kind=human.kind,
                                      score=human.score, raw=human.raw, judgements=human.judgements))
    for output_snapshot in snapshot.outputs:
        output = Output(item_id=item_id, text=output_snapshot.text)
        session.add(output)
        outputs.append(output)
    session.flush()
    versions = next_versions(session, [output.id for output in outputs])
    for output, output_snapshot in zip(outputs, snapshot.outputs, strict=True):
        for name in output_snapshot.systems:
            if name not in system_ids:
                system = System(suite_id=suite_id, name=name)
                session.add(system)
                session.flush()
                system_ids[name] = system.id
            session.add(SystemOutput(system_id=system_ids[name], item_id=item_id, output_id=output.id))
        manual = output_snapshot.manual_label
        if manual is not None:
            session.add(ManualLabel(output_id=output.id, **{**asdict(manual),
                                                            "version": max(manual.version, versions[output.id])}))
        session.add_all(QEScore(qe_system_id=qe_ids[name], output_id=output.id, score=score)
                        for name, score in output_snapshot.qe_scores if name in qe_ids)
        session.add_all(MetricScore(signature=signature, output_id=output.id, score=score)
                        for signature, score in output_snapshot.metric_scores)
        if output_snapshot.constructed is not None:
            session.add(ConstructedLabel(output_id=output.id, label=output_snapshot.constructed))
    session.flush()
    count_reviews(session.connection(), [ReviewMove(output.id, None, output_snapshot.manual_label.label)
                                         for output, output_snapshot in zip(outputs, snapshot.outputs, strict=True)
                                         if output_snapshot.manual_label is not None])
