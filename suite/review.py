"""Reviewers' decisions: manual labels, which always win over automatic ones, and explanations of the latter.

Setting or clearing a manual label writes one history entry (entity ``manual_label``, entity id the output's)
and is checked against the version the reviewer saw, like every edit (``suite.history``). A decision on several
outputs at once (a reviewer's selection) is one transaction: a stale version of any of them refuses all.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Insert, delete, select, update
from sqlalchemy.orm import Session

from store import Database
from store.models import (
    MANUAL_LABELS,
    AutoLabel,
    Item,
    KnownTranslation,
    ManualLabel,
    Output,
    Rule,
    utcnow,
)
from store.upsert import conflict_insert
from suite.browse import OutputRow
from suite.editing import add_known
from suite.engine.output_policy import read_policy
from suite.errors import EditConflict, TsqeError
from suite.history import Change, conflict, next_versions, record, rows_matched, short
from suite.item_edit import EditResult
from suite.labels import automatic_label, join_labels, rule_number
from suite.rules import (
    DEFAULT_TIMEOUT,
    Decision,
    ItemMatcher,
    KnownSpec,
    RuleSpec,
    Span,
    describe,
)
from suite.tasks import TaskState, progress_of


def _output(session: Session, output_id: int) -> Output:
    output = session.get(Output, output_id)
    if output is None:
        raise TsqeError(f"no output with id {output_id}")
    return output


@dataclass(frozen=True)
class ManualLabelInfo:
    output_id: int
    label: str
    reviewer: str
    reviewed_at: datetime
    comment: str | None
    version: int
    """What a later ``set_manual_label``/``clear_manual_label`` passes as ``expected_version``."""


@dataclass(frozen=True)
class SeenOutput:
    """One output of a reviewer's decision, as the reviewer saw it."""

    output_id: int
    version: int | None = None
    """Its manual label's version when it was read (0: not reviewed). None decides without checking, which
    cannot replace or remove another reviewer's decision: that is done only knowingly."""
    comment: str | None = None
    """The comment the label gets (a decision on several outputs keeps each one's own). Another reviewer's
    comment, passed back as it was read, is not carried over: it explains their decision, not this one."""


def _fields(label: ManualLabel) -> dict[str, str | None]:
    return {"label": label.label, "reviewer": label.reviewer, "comment": label.comment}


def _conflict(session: Session, output: Output) -> EditConflict:
    """The refusal of a stale decision, naming the output, since a decision may cover several."""
    current = session.get(ManualLabel, output.id, populate_existing=True)
    if current is None:
        refused = conflict(session, "manual_label", output.id, "not reviewed")
    else:
        refused = conflict(session, "manual_label", output.id, f"{current.label} by {current.reviewer}",
                           (current.reviewer, current.reviewed_at))
    return EditConflict(f"{_name(session, output)}: {refused}")


def _name(session: Session, output: Output) -> str:
    external_id = session.scalar(select(Item.external_id).where(Item.id == output.item_id))
    return f"output {output.id} of item {external_id!r} ({short(output.text, 40)})"


def _refuse_unseen(session: Session, output: Output, seen: SeenOutput, existing: ManualLabel | None,
                   reviewer: str) -> None:
    """Another reviewer's decision is replaced or removed only by one who has seen it (passed its version back):
    a decision made without checking must not overwrite a colleague's unawares."""
    if seen.version is None and existing is not None and existing.reviewer != reviewer:
        raise EditConflict(f"{_name(session, output)}: decided {existing.label} by {existing.reviewer}; another "
                           f"reviewer's decision is replaced or removed only knowingly, with the version seen "
                           f"({existing.version})")


def decided_by_others(rows: Sequence[OutputRow], reviewer: str) -> list[OutputRow]:
    """The rows whose manual label another reviewer gave: what a decision by ``reviewer`` would replace."""
    return [row for row in rows if row.manual_label is not None and row.reviewer != reviewer.strip()]


def _checked_outputs(session: Session, outputs: Sequence[SeenOutput]) -> list[tuple[SeenOutput, Output]]:
    """The outputs of a decision; one removed since it was read refuses the decision like a stale version."""
    repeated = sorted(output_id for output_id, n in Counter(seen.output_id for seen in outputs).items() if n > 1)
    if repeated:
        raise TsqeError(f"a decision names each output once, not output {', '.join(map(str, repeated))} twice")
    checked = []
    for seen in outputs:
        output = session.get(Output, seen.output_id)
        if output is None:
            if seen.version is None:
                raise TsqeError(f"no output with id {seen.output_id}")
            raise EditConflict(f"output {seen.output_id}: {conflict(session, 'output', seen.output_id, 'removed')}")
        checked.append((seen, output))
    return checked


def _history(session: Session, output: Output, action: str, author: str, before: dict[str, str | None] | None,
             after: dict[str, str | None] | None, version: int | None) -> None:
    item = session.get(Item, output.item_id)
    assert item is not None
    record(session, [Change(item.suite_id, item.external_id, "manual_label", output.id, action, author, before,
                            after, version)])


def set_manual_label(db: Database, output_id: int, label: str, reviewer: str, comment: str | None = None, *,
                     expected_version: int | None = None) -> ManualLabelInfo:
    """Record (or replace) a reviewer's label for one distinct output, stamped with the current time.

    ``expected_version`` is the manual label's version the reviewer saw (0: not reviewed); when given and
    someone has reviewed the output since, the label is refused with ``EditConflict``.
    """
    (info,) = set_manual_labels(db, [SeenOutput(output_id, expected_version, comment)], label, reviewer)
    return info


def set_manual_labels(db: Database, outputs: Sequence[SeenOutput], label: str, reviewer: str, *,
                      task: TaskState | None = None) -> list[ManualLabelInfo]:
    """One reviewer's label for several distinct outputs at once, in one transaction: all of them or none.

    When any output was reviewed or removed by someone else since its version was read, the whole decision is
    refused with ``EditConflict`` naming that output, and no label of it is stored.
    """
    if label not in MANUAL_LABELS:
        raise TsqeError(f"manual label must be one of {', '.join(MANUAL_LABELS)}, not {label!r}")
    if not reviewer.strip():
        raise TsqeError("a manual label needs the reviewer's name")
    task = progress_of(task)
    reviewer, reviewed_at = reviewer.strip(), utcnow()
    with db.transaction() as session:
        checked = _checked_outputs(session, outputs)
        decided = []
        for done, (seen, output) in enumerate(checked):
            task.progress(done, len(checked), f"reviewing output {done + 1:,} of {len(checked):,}")
            decided.append(_set(session, output, seen, label, reviewer, reviewed_at))
        task.progress(len(checked), len(checked), f"reviewed {len(checked):,} outputs")  # before the commit
        return decided


def _set(session: Session, output: Output, seen: SeenOutput, label: str, reviewer: str,
         reviewed_at: datetime) -> ManualLabelInfo:
    existing = session.get(ManualLabel, output.id, populate_existing=True)
    version_read = 0 if existing is None else existing.version
    if seen.version is not None and seen.version != version_read:
        raise _conflict(session, output)
    _refuse_unseen(session, output, seen, existing, reviewer)
    comment = seen.comment or None
    if existing is not None and existing.reviewer != reviewer and comment == existing.comment:
        comment = None  # theirs stays in the history, with their decision
    after = {"label": label, "reviewer": reviewer, "comment": comment}
    values = {**after, "reviewed_at": reviewed_at}
    if existing is None:
        version = next_versions(session, [output.id])[output.id]
        # Counted by RETURNING: an INSERT's rowcount is -1 through psycopg unless asked to be kept.
        done = len(session.execute(_insert_new(session).values(output_id=output.id, version=version, **values)
                                   .returning(ManualLabel.output_id)).all())
        before = None
    else:
        before = _fields(existing)
        version = version_read + 1
        done = rows_matched(session, update(ManualLabel)
                            .where(ManualLabel.output_id == output.id, ManualLabel.version == version_read)
                            .values(version=version, **values))
    if done != 1:
        raise _conflict(session, output)
    _history(session, output, "change" if before else "add", reviewer, before, after, version)
    return ManualLabelInfo(output.id, label, reviewer, reviewed_at, comment, version)


def _insert_new(session: Session) -> Insert:
    """An insert of a manual label that does nothing if another reviewer's label arrived first, which the
    caller then reports as a conflict rather than a failed transaction."""
    return conflict_insert(session.connection(), ManualLabel).on_conflict_do_nothing()


def clear_manual_label(db: Database, output_id: int, *, reviewer: str, expected_version: int | None = None) -> bool:
    """Remove a reviewer's label so the automatic one applies again; False when there was none."""
    return bool(clear_manual_labels(db, [SeenOutput(output_id, expected_version)], reviewer=reviewer))


def clear_manual_labels(db: Database, outputs: Sequence[SeenOutput], *, reviewer: str,
                        task: TaskState | None = None) -> list[int]:
    """Remove the manual labels of several outputs at once, in one transaction: all of them or none (refused
    like ``set_manual_labels``); the ids of the outputs that had one."""
    if not reviewer.strip():
        raise TsqeError("clearing a manual label needs the reviewer's name")
    task = progress_of(task)
    with db.transaction() as session:
        checked = _checked_outputs(session, outputs)
        cleared = []
        for done, (seen, output) in enumerate(checked):
            task.progress(done, len(checked), f"clearing output {done + 1:,} of {len(checked):,}")
            if _clear(session, output, seen, reviewer.strip()):
                cleared.append(output.id)
        task.progress(len(checked), len(checked), f"cleared {len(cleared):,} manual labels")  # before the commit
        return cleared


def _clear(session: Session, output: Output, seen: SeenOutput, reviewer: str) -> bool:
    existing = session.get(ManualLabel, output.id, populate_existing=True)
    version_read = 0 if existing is None else existing.version
    if seen.version is not None and seen.version != version_read:
        raise _conflict(session, output)
    if existing is None:
        return False
    _refuse_unseen(session, output, seen, existing, reviewer)
    before = _fields(existing)
    if rows_matched(session, delete(ManualLabel).where(ManualLabel.output_id == output.id,
                                                       ManualLabel.version == version_read)) != 1:
        raise _conflict(session, output)
    session.expunge(existing)
    _history(session, output, "remove", reviewer, before, None, None)
    return True


def resolve_as_known(db: Database, output_id: int, kind: str, *, author: str) -> EditResult:
    """Settle an output by adding its text to its item's known ``good`` or ``bad`` translations, which
    relabels every output equal to it that no rule decides; undone by ``remove_known`` of the result's
    ``entity_id``."""
    with db.session() as session:
        output = _output(session, output_id)
    return add_known(db, output.item_id, kind, output.text, author=author)


@dataclass(frozen=True)
class Explanation:
    """Why an output has its automatic label now, and where each rule matches it (for highlighting)."""

    text: str
    decision: Decision
    spans: list[Span]
    stored: str | None
    """The automatic label stored by the last labelling run (None when it has not been labelled yet)."""
    stored_decided_by: str | None
    """What decided the stored label, in words (it differs from ``decision`` once the rules have changed)."""


def explain(db: Database, output_id: int, timeout: float = DEFAULT_TIMEOUT) -> Explanation:
    """Run the output's item rules on it afresh; computed on demand, nothing is written."""
    with db.session() as session:
        output = _output(session, output_id)
        item = session.get(Item, output.item_id)
        assert item is not None  # an output's item is deleted with it
        decided = read_policy(session, item.suite_id).decisions(item.source)
        rules = [RuleSpec(r.id, r.polarity, r.pattern, r.ignore_case, r.valid, r.error)
                 for r in session.scalars(select(Rule).where(Rule.item_id == output.item_id)
                                          .order_by(Rule.position, Rule.id))]
        known = [KnownSpec(k.kind, k.text) for k in session.scalars(
            select(KnownTranslation).where(KnownTranslation.item_id == output.item_id))]
        stored = join_labels(select(automatic_label(Output.id), rule_number(), Rule.polarity, Rule.pattern,
                                    AutoLabel.reason).select_from(Output), Output.id, Output.item_id)
        label, number, polarity, pattern, reason = session.execute(
            stored.outerjoin(Rule, Rule.id == AutoLabel.rule_id).where(Output.id == output_id)).one()
    matcher = ItemMatcher(rules, known, timeout, decided)
    return Explanation(output.text, matcher.decide(output.text), matcher.spans(output.text),
                       label, None if label is None else describe(label, number, polarity, pattern, reason))
