"""Reviewers' decisions: manual labels, which always win over automatic ones, and explanations of the latter.

Setting or clearing a manual label writes one history entry (entity ``manual_label``, entity id the output's)
and is checked against the version the reviewer saw, like every edit (``suite.history``).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Insert, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
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
from suite.editing import add_known
from suite.errors import EditConflict, TsqeError
from suite.history import Change, conflict, next_versions, record, rows_matched
from suite.item_edit import EditResult
from suite.labels import automatic_label, join_labels
from suite.rules import (
    DEFAULT_TIMEOUT,
    Decision,
    ItemMatcher,
    KnownSpec,
    RuleSpec,
    Span,
    describe,
)


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


def _fields(label: ManualLabel) -> dict[str, str | None]:
    return {"label": label.label, "reviewer": label.reviewer, "comment": label.comment}


def _conflict(session: Session, output_id: int) -> EditConflict:
    current = session.get(ManualLabel, output_id, populate_existing=True)
    if current is None:
        return conflict(session, "manual_label", output_id, "not reviewed")
    return conflict(session, "manual_label", output_id, f"{current.label} by {current.reviewer}",
                    (current.reviewer, current.reviewed_at))


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
    if label not in MANUAL_LABELS:
        raise TsqeError(f"manual label must be one of {', '.join(MANUAL_LABELS)}, not {label!r}")
    if not reviewer.strip():
        raise TsqeError("a manual label needs the reviewer's name")
    reviewer, comment, reviewed_at = reviewer.strip(), comment or None, utcnow()
    after = {"label": label, "reviewer": reviewer, "comment": comment}
    values = {**after, "reviewed_at": reviewed_at}
    with db.transaction() as session:
        output = _output(session, output_id)
        existing = session.get(ManualLabel, output_id, populate_existing=True)
        seen = 0 if existing is None else existing.version
        if expected_version is not None and expected_version != seen:
            raise _conflict(session, output_id)
        if existing is None:
            version = next_versions(session, [output_id])[output_id]
            # Counted by RETURNING: an INSERT's rowcount is -1 through psycopg unless asked to be kept.
            done = len(session.execute(_insert_new(session).values(output_id=output_id, version=version, **values)
                                       .returning(ManualLabel.output_id)).all())
            before = None
        else:
            before = _fields(existing)
            version = seen + 1
            done = rows_matched(session, update(ManualLabel)
                                .where(ManualLabel.output_id == output_id, ManualLabel.version == seen)
                                .values(version=version, **values))
        if done != 1:
            raise _conflict(session, output_id)
        _history(session, output, "change" if before else "add", reviewer, before, after, version)
        return ManualLabelInfo(output_id, label, reviewer, reviewed_at, comment, version)


def _insert_new(session: Session) -> Insert:
    """An insert of a manual label that does nothing if another reviewer's label arrived first, which the
    caller then reports as a conflict rather than a failed transaction."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        return postgresql_insert(ManualLabel).on_conflict_do_nothing()
    if dialect == "sqlite":
        return sqlite_insert(ManualLabel).on_conflict_do_nothing()
    return insert(ManualLabel)


def clear_manual_label(db: Database, output_id: int, *, reviewer: str, expected_version: int | None = None) -> bool:
    """Remove a reviewer's label so the automatic one applies again; False when there was none."""
    if not reviewer.strip():
        raise TsqeError("clearing a manual label needs the reviewer's name")
    with db.transaction() as session:
        output = _output(session, output_id)
        existing = session.get(ManualLabel, output_id, populate_existing=True)
        seen = 0 if existing is None else existing.version
        if expected_version is not None and expected_version != seen:
            raise _conflict(session, output_id)
        if existing is None:
            return False
        before = _fields(existing)
        if rows_matched(session, delete(ManualLabel).where(ManualLabel.output_id == output_id,
                                                           ManualLabel.version == seen)) != 1:
            raise _conflict(session, output_id)
        session.expunge(existing)
        _history(session, output, "remove", reviewer.strip(), before, None, None)
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
        rules = [RuleSpec(r.id, r.polarity, r.pattern, r.ignore_case, r.valid, r.error)
                 for r in session.scalars(select(Rule).where(Rule.item_id == output.item_id)
                                          .order_by(Rule.position, Rule.id))]
        known = [KnownSpec(k.kind, k.text) for k in session.scalars(
            select(KnownTranslation).where(KnownTranslation.item_id == output.item_id))]
        stored = join_labels(select(automatic_label(Output.id), AutoLabel.rule_id, Rule.polarity, Rule.pattern,
                                    AutoLabel.reason).select_from(Output), Output.id, Output.item_id)
        label, rule_id, polarity, pattern, reason = session.execute(
            stored.outerjoin(Rule, Rule.id == AutoLabel.rule_id).where(Output.id == output_id)).one()
    matcher = ItemMatcher(rules, known, timeout)
    return Explanation(output.text, matcher.decide(output.text), matcher.spans(output.text),
                       label, None if label is None else describe(label, rule_id, polarity, pattern, reason))
