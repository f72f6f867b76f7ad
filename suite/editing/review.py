"""Reviewers' decisions: manual labels, which always win over automatic ones, and explanations of the latter.

Setting or clearing a manual label writes one history entry (entity ``manual_label``, entity id the output's)
and is checked against the version the reviewer saw, like every edit (``suite.editing.history``). A decision on several
outputs at once (a reviewer's selection) is one transaction: a stale version of any of them refuses all.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Insert, delete, select, update
from sqlalchemy.orm import Session

from store import Database
from store.domain import Label, NameKind
from store.models import (
    MANUAL_LABELS,
    AutoLabel,
    ConstructedLabel,
    Item,
    KnownTranslation,
    ManualLabel,
    Output,
    Rule,
    utcnow,
)
from store.names import BadName, check_name
from store.upsert import conflict_insert
from suite.changes import Changes, Where
from suite.editing.api import add_known_in, remove_known_in
from suite.editing.history import Change, check_author, conflict, next_versions, record, rows_matched, short
from suite.engine.label_counts import ReviewMove, count_reviews
from suite.engine.labels import automatic_label, join_labels, rule_number
from suite.engine.output_policy import read_policy
from suite.engine.rules import (
    CONSTRUCTED,
    DEFAULT_TIMEOUT,
    Decision,
    ItemMatcher,
    ItemRule,
    KnownSpec,
    Span,
    describe,
)
from suite.errors import EditConflict, TsqeError
from suite.reading.browse import OutputRow
from suite.tasks import TaskState, progress_of


def _output(session: Session, output_id: int) -> Output:
    output = session.get(Output, output_id)
    if output is None:
        raise TsqeError(f"no output with id {output_id}")
    return output


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


def reviewer_name(text: str) -> str:
    """A reviewer's name as every manual label stores it (``store.names.check_name``: blanks around it stripped;
    empty, too long or holding a control character refused), for the command line's ``--reviewer`` and the
    window's reviewer field alike."""
    if not text.strip():
        raise BadName("a manual label needs the reviewer's name")
    return check_name(text, NameKind.REVIEWER).text


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


@dataclass(frozen=True)
class ReviewerDecision:
    """A reviewer's decision on one output as stored: what undoing a later decision puts back as it was."""

    label: Label
    reviewer: str
    comment: str | None
    reviewed_at: datetime

    @staticmethod
    def of(row: ManualLabel | None) -> ReviewerDecision | None:
        return None if row is None else ReviewerDecision(row.label, row.reviewer, row.comment, row.reviewed_at)


@dataclass(frozen=True)
class OutputDecision:
    """One output's part of a decision: the output as the reviewer saw it, and the label it gets (None: none).
    A comment (C) is a decision that gives each output the label it has, with the comment in ``seen``."""

    seen: SeenOutput
    label: Label | None


@dataclass(frozen=True)
class ReviewChange:
    """One output's review before and after a write, and its version after it (0: not reviewed)."""

    output_id: int
    item_id: int
    before: ReviewerDecision | None
    after: ReviewerDecision | None
    version: int


@dataclass(frozen=True)
class KnownChange:
    """A known translation a decision added (with its version) or removed (version None)."""

    known_id: int
    item_id: int
    kind: str
    text: str
    version: int | None


@dataclass(frozen=True)
class Decided:
    """What a decision (or taking one back) wrote: each output's review before and after, and the known
    translations added or removed with it."""

    reviews: tuple[ReviewChange, ...]
    known_added: tuple[KnownChange, ...] = ()
    known_removed: tuple[KnownChange, ...] = ()

    @property
    def changes(self) -> Changes:
        items = Where.of(known.item_id for known in self.known_added + self.known_removed)
        return Changes(reviews=Where.of(review.output_id for review in self.reviews), items=items, labels=items)


def decide(db: Database, decisions: Sequence[OutputDecision], reviewer: str, *, as_known: bool = False,
           task: TaskState | None = None) -> Decided:
    """One reviewer's decision on several outputs: a label each (None clears it), in one transaction, all or none.

    ``as_known`` also adds each output's text to its item's known ``good`` (pass) or ``bad`` (fail) translations,
    which relabels every output equal to it that no rule decides (TQ-AutoTest's way of settling an output), in
    the same transaction: the decision and the known translation are stored together or not at all (two
    transactions once left a decision without its known translation when the second failed). A text the item
    already knows of that kind is not added twice. When any output was reviewed or removed by someone else since
    its version was read, the whole decision is refused with ``EditConflict`` naming that output.
    """
    _check_decisions(decisions, reviewer, as_known)
    with db.transaction() as session:
        return decide_in(session, decisions, reviewer, as_known=as_known, task=task)


def _check_decisions(decisions: Sequence[OutputDecision], reviewer: str, as_known: bool) -> None:
    for decision in decisions:
        label = decision.label
        if label is not None and label not in MANUAL_LABELS:
            raise TsqeError(f"manual label must be one of {', '.join(MANUAL_LABELS)}, not {label!r}")
        if as_known and label not in ("pass", "fail"):
            raise TsqeError(f"only a pass or a fail makes an output a known translation, not {label or 'no label'}")
    reviewer_name(reviewer)


def decide_in(session: Session, decisions: Sequence[OutputDecision], reviewer: str, *, as_known: bool = False,
              task: TaskState | None = None, noted: Mapping[int, Mapping[str, str]] | None = None) -> Decided:
    """``decide`` in the caller's transaction, for a write that decides outputs as part of something larger (an
    adjudication marks its assignment in the same transaction). ``noted`` adds fields to the history entry of
    an output's new label (by output id): what the history keeps about how the decision came about."""
    _check_decisions(decisions, reviewer, as_known)
    task = progress_of(task)
    reviewer, reviewed_at = reviewer_name(reviewer), utcnow()
    checked = _checked_outputs(session, [decision.seen for decision in decisions])
    changes = []
    for done, ((seen, output), decision) in enumerate(zip(checked, decisions, strict=True)):
        task.progress(done, len(checked), f"reviewing output {done + 1:,} of {len(checked):,}")
        existing, verdict = _verdict(session, output, seen, decision.label, reviewer, reviewed_at)
        before = ReviewerDecision.of(existing)  # before the write, which updates the row in the session
        version = _put(session, output, existing, verdict, reviewer, (noted or {}).get(output.id))
        changes.append(ReviewChange(output.id, output.item_id, before, verdict, version))
    _count(session, changes)
    known = tuple(added for (_, output), decision in zip(checked, decisions, strict=True)
                  if as_known and (added := _add_known(session, output, decision.label, reviewer)) is not None)
    task.progress(len(checked), len(checked), f"reviewed {len(checked):,} outputs")  # before the commit
    return Decided(tuple(changes), known)


def _count(session: Session, changes: Sequence[ReviewChange]) -> None:
    """Keep the per-item review counts (``suite.engine.label_counts``) in the writer's transaction."""
    count_reviews(session.connection(), [ReviewMove(change.output_id, _label(change.before), _label(change.after))
                                         for change in changes])


def _label(verdict: ReviewerDecision | None) -> str | None:
    return None if verdict is None else verdict.label


def _add_known(session: Session, output: Output, label: Label | None, author: str) -> KnownChange | None:
    kind = "good" if label == "pass" else "bad"
    result = add_known_in(session, output.item_id, kind, output.text, author=author)
    if result is None:
        return None
    assert result.entity_id is not None and result.version is not None, "an added known translation has an id"
    return KnownChange(result.entity_id, output.item_id, kind, output.text, result.version)


@dataclass(frozen=True)
class ReviewPut:
    """One output's review to be exactly ``verdict`` (None: no manual label), found at ``expected_version``."""

    output_id: int
    expected_version: int
    verdict: ReviewerDecision | None


@dataclass(frozen=True)
class KnownPut:
    """A known translation to add back (it was removed under another id)."""

    item_id: int
    kind: str
    text: str


def put_reviews(db: Database, puts: Sequence[ReviewPut], *, author: str, add_known: Sequence[KnownPut] = (),
                remove_known: Sequence[tuple[int, int | None]] = (), task: TaskState | None = None) -> Decided:
    """Put outputs' reviews back as they were (the reviewer, comment and time of each verdict, not the author's),
    and add or remove (id, expected version) known translations, in one transaction: what taking a decision back,
    and doing it again, writes. Each review must be at its expected version: an undo never overwrites what a
    colleague decided since. The history names ``author`` as who put each review back."""
    author = check_author(author)
    with db.transaction() as session:
        return put_reviews_in(session, puts, author=author, add_known=add_known, remove_known=remove_known, task=task)


def put_reviews_in(session: Session, puts: Sequence[ReviewPut], *, author: str, add_known: Sequence[KnownPut] = (),
                   remove_known: Sequence[tuple[int, int | None]] = (), task: TaskState | None = None) -> Decided:
    """``put_reviews`` in the caller's transaction (reopening an adjudication also marks its assignment)."""
    author = check_author(author)
    task = progress_of(task)
    checked = _checked_outputs(session, [SeenOutput(put.output_id, put.expected_version) for put in puts])
    changes = []
    for done, ((_, output), put) in enumerate(zip(checked, puts, strict=True)):
        task.progress(done, len(checked), f"putting back output {done + 1:,} of {len(checked):,}")
        existing = session.get(ManualLabel, output.id, populate_existing=True)
        if (0 if existing is None else existing.version) != put.expected_version:
            raise _conflict(session, output)
        changes.append(ReviewChange(output.id, output.item_id, ReviewerDecision.of(existing), put.verdict,
                                    _put(session, output, existing, put.verdict, author)))
    _count(session, changes)
    removed = []
    for known_id, expected in remove_known:
        row = session.get(KnownTranslation, known_id)
        kind, text = (row.kind, row.text) if row is not None else ("", "")  # a removed one: refused below
        gone = remove_known_in(session, known_id, author=author, expected_version=expected)
        removed.append(KnownChange(known_id, gone.item_id, kind, text, None))
    added = []
    for known in add_known:
        result = add_known_in(session, known.item_id, known.kind, known.text, author=author)
        if result is not None:
            assert result.entity_id is not None and result.version is not None
            added.append(KnownChange(result.entity_id, known.item_id, known.kind, known.text, result.version))
    task.progress(len(checked), len(checked), f"put back {len(checked):,} reviews")  # before the commit
    return Decided(tuple(changes), tuple(added), tuple(removed))


def _put(session: Session, output: Output, existing: ManualLabel | None, verdict: ReviewerDecision | None,
         author: str, noted: Mapping[str, str] | None = None) -> int:
    """The one versioned write of a review: ``verdict`` over ``existing`` (None: no manual label; both None:
    nothing to do), guarded by the version read, with its history entry (``noted`` adds fields to it); the
    review's version after it. A decision, a clearing, an undo and a redo all come down to this."""
    if verdict is None:
        if existing is None:
            return 0
        removed = _fields(existing)
        if rows_matched(session, delete(ManualLabel).where(ManualLabel.output_id == output.id,
                                                           ManualLabel.version == existing.version)) != 1:
            raise _conflict(session, output)
        session.expunge(existing)
        _history(session, output, "remove", author, removed, None, None)
        return 0
    before: dict[str, str | None] | None = None
    after: dict[str, str | None] = {"label": verdict.label, "reviewer": verdict.reviewer, "comment": verdict.comment}
    values = {**after, "reviewed_at": verdict.reviewed_at}
    if existing is None:
        version = next_versions(session, [output.id])[output.id]
        # Counted by RETURNING: an INSERT's rowcount is -1 through psycopg unless asked to be kept.
        done = len(session.execute(_insert_new(session).values(output_id=output.id, version=version, **values)
                                   .returning(ManualLabel.output_id)).all())
    else:
        before, version = _fields(existing), existing.version + 1
        done = rows_matched(session, update(ManualLabel)
                            .where(ManualLabel.output_id == output.id, ManualLabel.version == existing.version)
                            .values(version=version, **values))
    if done != 1:
        raise _conflict(session, output)
    _history(session, output, "change" if before else "add", author, before, {**after, **(noted or {})}, version)
    return version


def _seen(session: Session, output: Output, seen: SeenOutput) -> ManualLabel | None:
    """The output's review, refused when it is not the version the reviewer saw."""
    existing = session.get(ManualLabel, output.id, populate_existing=True)
    if seen.version is not None and seen.version != (0 if existing is None else existing.version):
        raise _conflict(session, output)
    return existing


def _verdict(session: Session, output: Output, seen: SeenOutput, label: Label | None, reviewer: str,
             reviewed_at: datetime) -> tuple[ManualLabel | None, ReviewerDecision | None]:
    """The output's review as it is and as ``label`` makes it (None: none), after checking that the reviewer saw
    it: what ``_put`` then writes."""
    existing = _seen(session, output, seen)
    _refuse_unseen(session, output, seen, existing, reviewer)
    if label is None:
        return existing, None
    comment = seen.comment or None
    if existing is not None and existing.reviewer != reviewer and comment == existing.comment:
        comment = None  # theirs stays in the history, with their decision
    return existing, ReviewerDecision(label, reviewer, comment, reviewed_at)


def _insert_new(session: Session) -> Insert:
    """An insert of a manual label that does nothing if another reviewer's label arrived first, which the
    caller then reports as a conflict rather than a failed transaction."""
    return conflict_insert(session.connection(), ManualLabel).on_conflict_do_nothing()


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
        rules = [ItemRule.of(r) for r in session.scalars(select(Rule).where(Rule.item_id == output.item_id)
                                                         .order_by(Rule.position, Rule.id))]
        known = [KnownSpec(k.kind, k.text) for k in session.scalars(
            select(KnownTranslation).where(KnownTranslation.item_id == output.item_id))]
        stored = join_labels(select(automatic_label(Output.id), rule_number(), Rule.polarity, Rule.pattern,
                                    AutoLabel.reason).select_from(Output), Output.id, Output.item_id)
        label, number, polarity, pattern, reason = session.execute(
            stored.outerjoin(Rule, Rule.id == AutoLabel.rule_id).where(Output.id == output_id)).one()
        constructed = session.get(ConstructedLabel, output_id)
    matcher = ItemMatcher(rules, known, timeout, decided)
    decision = CONSTRUCTED[constructed.label] if constructed is not None else matcher.decide(output.text)
    return Explanation(output.text, decision, matcher.spans(output.text),
                       label, None if label is None else describe(label, number, polarity, pattern, reason))
