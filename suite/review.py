"""Reviewers' decisions: manual labels, which always win over automatic ones, and explanations of the latter."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from store import Database
from store.models import MANUAL_LABELS, AutoLabel, KnownTranslation, ManualLabel, Output, Rule, utcnow
from suite.errors import TsqeError
from suite.labels import automatic_label, join_labels
from suite.rules import DEFAULT_TIMEOUT, Decision, ItemMatcher, KnownSpec, RuleSpec, Span, describe


def _output(session: Session, output_id: int) -> Output:
    output = session.get(Output, output_id)
    if output is None:
        raise TsqeError(f"no output with id {output_id}")
    return output


def set_manual_label(db: Database, output_id: int, label: str, reviewer: str, comment: str | None = None) -> None:
    """Record (or replace) a reviewer's label for one distinct output, stamped with the current time."""
    if label not in MANUAL_LABELS:
        raise TsqeError(f"manual label must be one of {', '.join(MANUAL_LABELS)}, not {label!r}")
    if not reviewer.strip():
        raise TsqeError("a manual label needs the reviewer's name")
    with db.transaction() as session:
        _output(session, output_id)
        existing = session.get(ManualLabel, output_id)
        if existing is None:
            existing = ManualLabel(output_id=output_id)
            session.add(existing)
        existing.label = label
        existing.reviewer = reviewer.strip()
        existing.comment = comment or None
        existing.reviewed_at = utcnow()


def clear_manual_label(db: Database, output_id: int) -> bool:
    """Remove a reviewer's label so the automatic one applies again; False when there was none."""
    with db.transaction() as session:
        _output(session, output_id)
        return session.execute(delete(ManualLabel).where(ManualLabel.output_id == output_id)).rowcount > 0


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
        label, *decided_by = session.execute(stored.outerjoin(Rule, Rule.id == AutoLabel.rule_id)
                                             .where(Output.id == output_id)).one()
    matcher = ItemMatcher(rules, known, timeout)
    return Explanation(output.text, matcher.decide(output.text), matcher.spans(output.text),
                       label, None if label is None else describe(label, *decided_by))
