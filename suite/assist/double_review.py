"""Double review: a share of reviewed outputs decided again, blind, by a second reviewer, and the disagreements
adjudicated.

A plan (``plan_review_checks``) chooses, per category, that share of the suite's reviewed outputs (seeded, so
the same plan on the same decisions chooses the same outputs), keeping each first decision as it was then, and
says how many control outputs (``suite.assist.controls``) to mix into each reviewer's assignments. Planning again
later tops the share up from outputs reviewed since. A reviewer then takes assignments (``take_assignments``):
double reviews of outputs someone else decided first, handed out so that no two reviewers ever get the same one
(on PostgreSQL ``FOR UPDATE SKIP LOCKED`` lets concurrent takers pass over each other's rows; SQLite's one writer
at a time does it by itself), with controls mixed in at random places. An assignment shows the item and the
text only: neither the first decision nor whether it is a control.

An answer is kept in its assignment, not as the output's manual label, which stays the first reviewer's. When
the two differ, an adjudicator decides (``adjudicate``): the result is a normal manual label, written through
``suite.editing.review`` in the same transaction that closes the assignment, and its history entry names both
decisions it settled.
"""
from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from store import Database
from store.domain import Label
from store.models import (
    MANUAL_LABELS,
    Category,
    Item,
    ManualLabel,
    Output,
    Phenomenon,
    ReviewAssignment,
    ReviewPlan,
    utcnow,
)
from suite.assist.controls import QUEUE_PLACES, add_controls
from suite.editing.history import check_author
from suite.editing.item_detail import item_detail
from suite.editing.review import (
    Decided,
    OutputDecision,
    ReviewerDecision,
    ReviewPut,
    SeenOutput,
    decide_in,
    put_reviews_in,
)
from suite.errors import TsqeError
from suite.suites import find_suite
from suite.tables import NO_CATEGORY


@dataclass(frozen=True)
class PlannedCategory:
    category: str | None
    reviewed: int
    """Outputs of the category with a manual label."""
    planned: int
    """Of them, double reviews planned in all (this plan's included)."""
    added: int


@dataclass(frozen=True)
class PlanResult:
    suite: str
    double_share: float
    control_share: float
    seed: int
    categories: tuple[PlannedCategory, ...]

    @property
    def added(self) -> int:
        return sum(category.added for category in self.categories)

    def lines(self) -> tuple[str, ...]:
        """What both front-ends say about the plan."""
        head = (f"suite {self.suite!r}: {self.added:,} reviewed outputs added for a second review "
                f"({self.double_share:.0%} of each category's reviewed outputs, seed {self.seed}); "
                f"controls: {self.control_share:.0%} of each reviewer's assignments")
        return (head, *(f"  {c.category or NO_CATEGORY}: {c.planned:,} of {c.reviewed:,} reviewed"
                        f"{f' (+{c.added:,})' if c.added else ''}" for c in self.categories))


def _check_share(name: str, share: float, *, zero: bool, one: bool) -> None:
    if not (share > 0 or zero and share == 0) or not (share < 1 or one and share == 1):
        limits = f"{'from 0' if zero else 'above 0'} {'up to' if one else 'below'} 1"
        raise TsqeError(f"the share of {name} must be a number {limits}, not {share}")


def plan_review_checks(db: Database, *, double_share: float, control_share: float, seed: int, author: str,
                       suite_name: str | None = None) -> PlanResult:
    """Plan (or top up) double review and controls for a suite, in one transaction: per category, the share
    ``double_share`` of its reviewed outputs is chosen for a second review, and ``control_share`` of every
    reviewer's assignments will be controls. A category with reviewed outputs gets at least one."""
    _check_share("outputs reviewed twice", double_share, zero=False, one=True)
    _check_share("controls", control_share, zero=True, one=False)
    author = check_author(author)
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        plan = session.get(ReviewPlan, suite.id)
        if plan is None:
            session.add(ReviewPlan(suite_id=suite.id, double_share=double_share, control_share=control_share,
                                   seed=seed, author=author))
        else:
            plan.double_share, plan.control_share, plan.seed, plan.author = double_share, control_share, seed, author
            plan.created_at = utcnow()
        planned = set(session.scalars(select(ReviewAssignment.output_id).where(
            ReviewAssignment.suite_id == suite.id, ReviewAssignment.kind == "double")))
        by_category: defaultdict[str | None, list[tuple[int, int, str, str, str]]] = defaultdict(list)
        planned_in: defaultdict[str | None, int] = defaultdict(int)
        reviewed = (select(Output.id, Output.item_id, Output.text, ManualLabel.label, ManualLabel.reviewer,
                           Category.name)
                    .join(ManualLabel, ManualLabel.output_id == Output.id)
                    .join(Item, Item.id == Output.item_id)
                    .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
                    .outerjoin(Category, Category.id == Phenomenon.category_id)
                    .where(Item.suite_id == suite.id).order_by(Item.position, Output.id))
        order: dict[str | None, int] = {}
        for output_id, item_id, text, label, reviewer, category in session.execute(reviewed):
            order.setdefault(category, len(order))
            if output_id in planned:
                planned_in[category] += 1
            else:
                by_category[category].append((output_id, item_id, text, label, reviewer))
        results = []
        for name in order:
            eligible = by_category[name]
            already = planned_in[name]
            wanted = max(0, round(double_share * (already + len(eligible))) - already)
            if not wanted and not already and eligible:
                wanted = 1
            rng = random.Random(f"{seed}:{name}:{already}")
            chosen = sorted(rng.sample(range(len(eligible)), min(wanted, len(eligible))))
            session.add_all(ReviewAssignment(
                suite_id=suite.id, item_id=item_id, kind="double", output_id=output_id, text=text, category=name,
                expected=label, first_reviewer=reviewer, position=rng.randrange(QUEUE_PLACES))
                for output_id, item_id, text, label, reviewer in (eligible[i] for i in chosen))
            results.append(PlannedCategory(name, already + len(eligible), already + len(chosen), len(chosen)))
        return PlanResult(suite.name, double_share, control_share, seed, tuple(results))


@dataclass(frozen=True)
class Assignment:
    """An assignment as its reviewer sees it: what to decide, and their answer so far. Deliberately nothing
    that tells a control from a double review, nor the first decision."""

    id: int
    item_id: int | None
    external_id: str | None
    category: str | None
    phenomenon: str | None
    source: str | None
    text: str
    label: Label | None
    comment: str | None


def _assignments(session: Session, suite_id: int, reviewer: str, *, open_only: bool) -> list[Assignment]:
    query = (select(ReviewAssignment.id, ReviewAssignment.item_id, Item.external_id, ReviewAssignment.category,
                    Phenomenon.name, Item.source, ReviewAssignment.text, ReviewAssignment.label,
                    ReviewAssignment.comment)
             .outerjoin(Item, Item.id == ReviewAssignment.item_id)
             .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
             .where(ReviewAssignment.suite_id == suite_id, ReviewAssignment.reviewer == reviewer)
             .order_by(ReviewAssignment.position, ReviewAssignment.id))
    if open_only:
        query = query.where(ReviewAssignment.label.is_(None))
    return [Assignment(*row) for row in session.execute(query)]


def my_assignments(db: Database, reviewer: str, *, suite_name: str | None = None,
                   open_only: bool = False) -> list[Assignment]:
    """The assignments given to ``reviewer``, answered ones too unless ``open_only``, in their queue order."""
    with db.session() as session:
        return _assignments(session, find_suite(session, suite_name).id, check_author(reviewer), open_only=open_only)


def take_assignments(db: Database, reviewer: str, *, suite_name: str | None = None,
                     limit: int = 20) -> list[Assignment]:
    """Give ``reviewer`` up to ``limit`` open assignments in one transaction: the ones they hold already, then
    double reviews nobody holds whose first decision is not theirs, then the controls that keep their share of
    the reviewer's assignments; returns the reviewer's open assignments in queue order."""
    reviewer = check_author(reviewer)
    if limit < 1:
        raise TsqeError(f"a reviewer takes at least one assignment, not {limit}")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        plan = session.get(ReviewPlan, suite.id)
        if plan is None:
            raise TsqeError(f"suite {suite.name!r} has no double review planned: plan the share of reviewed outputs "
                            f"to review twice first")
        held = session.scalar(select(func.count()).where(
            ReviewAssignment.suite_id == suite.id, ReviewAssignment.reviewer == reviewer,
            ReviewAssignment.label.is_(None))) or 0
        wanted = limit - held
        if wanted > 0:
            doubles = max(1, round(wanted * (1 - plan.control_share)))
            free = (select(ReviewAssignment.id)
                    .where(ReviewAssignment.suite_id == suite.id, ReviewAssignment.kind == "double",
                           ReviewAssignment.reviewer.is_(None), ReviewAssignment.first_reviewer != reviewer)
                    .order_by(ReviewAssignment.position, ReviewAssignment.id).limit(doubles)
                    .with_for_update(skip_locked=True))
            # Read and locked first, then given: as one UPDATE ... WHERE id IN (subquery), PostgreSQL may run the
            # subquery more than once and give more than asked for.
            taken = list(session.scalars(free))
            if taken:
                session.execute(update(ReviewAssignment)
                                .where(ReviewAssignment.id.in_(taken), ReviewAssignment.reviewer.is_(None))
                                .values(reviewer=reviewer, given_at=utcnow())
                                .execution_options(synchronize_session=False))
            add_controls(session, suite.id, plan, reviewer)
        return _assignments(session, suite.id, reviewer, open_only=True)


@dataclass(frozen=True)
class Answer:
    """A reviewer's answer to an assignment (``label`` None: no answer yet)."""

    assignment_id: int
    label: Label | None
    comment: str | None = None


@dataclass(frozen=True)
class Answered:
    """Each assignment's answer before and after a write."""

    before: tuple[Answer, ...]
    after: tuple[Answer, ...]


def answer_assignments(db: Database, answers: Sequence[Answer], reviewer: str) -> Answered:
    """Store a reviewer's answers (or take them back, label None) in one transaction: all or none. Only the
    reviewer an assignment was given to answers it, and not once its disagreement has been adjudicated."""
    reviewer = check_author(reviewer)
    for answer in answers:
        if answer.label is not None and answer.label not in MANUAL_LABELS:
            raise TsqeError(f"an answer must be one of {', '.join(MANUAL_LABELS)}, not {answer.label!r}")
    with db.transaction() as session:
        before = []
        for answer in answers:
            row = session.get(ReviewAssignment, answer.assignment_id, populate_existing=True)
            if row is None:
                raise TsqeError(f"no assignment with id {answer.assignment_id}")
            if row.reviewer != reviewer:
                raise TsqeError(f"assignment {row.id} is {'given to ' + row.reviewer if row.reviewer else 'not given'}"
                                f", not to {reviewer}")
            if row.adjudicated_by is not None:
                raise TsqeError(f"assignment {row.id} was adjudicated by {row.adjudicated_by}: its answer stays")
            before.append(Answer(row.id, row.label, row.comment))
            row.label, row.comment = answer.label, (answer.comment or None) if answer.label else None
            row.answered_at = utcnow() if answer.label else None
        return Answered(tuple(before), tuple(answers))


@dataclass(frozen=True)
class ReviewDisagreement:
    """A double review whose two decisions differ, with the output's manual label as it is now (what an
    adjudication replaces, at ``manual_version``)."""

    assignment_id: int
    output_id: int | None
    item_id: int | None
    external_id: str | None
    category: str | None
    text: str
    first_label: str
    first_reviewer: str | None
    second_label: str
    second_reviewer: str
    manual_label: Label | None
    manual_reviewer: str | None
    manual_version: int
    adjudicated_label: Label | None
    adjudicated_by: str | None


def disagreements(db: Database, *, suite_name: str | None = None, open_only: bool = True) -> list[ReviewDisagreement]:
    """The suite's double reviews whose answers differ from the first decision, in suite order; adjudicated ones
    too unless ``open_only``."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        return _disagreements(session, suite.id, open_only=open_only)


def _disagreements(session: Session, suite_id: int, *, open_only: bool,
                   assignment_id: int | None = None) -> list[ReviewDisagreement]:
    query = (select(ReviewAssignment.id, ReviewAssignment.output_id, ReviewAssignment.item_id, Item.external_id,
                    ReviewAssignment.category, ReviewAssignment.text, ReviewAssignment.expected,
                    ReviewAssignment.first_reviewer, ReviewAssignment.label, ReviewAssignment.reviewer,
                    ManualLabel.label, ManualLabel.reviewer, func.coalesce(ManualLabel.version, 0),
                    ReviewAssignment.adjudicated_label, ReviewAssignment.adjudicated_by)
             .outerjoin(Item, Item.id == ReviewAssignment.item_id)
             .outerjoin(ManualLabel, ManualLabel.output_id == ReviewAssignment.output_id)
             .where(ReviewAssignment.suite_id == suite_id, ReviewAssignment.kind == "double",
                    ReviewAssignment.label.is_not(None), ReviewAssignment.label != ReviewAssignment.expected)
             .order_by(Item.position, ReviewAssignment.id))
    if open_only:
        query = query.where(ReviewAssignment.adjudicated_by.is_(None))
    if assignment_id is not None:
        query = query.where(ReviewAssignment.id == assignment_id)
    return [ReviewDisagreement(*list(row)) for row in session.execute(query)]


def _disagreement(session: Session, assignment_id: int) -> tuple[ReviewAssignment, ReviewDisagreement]:
    row = session.get(ReviewAssignment, assignment_id, populate_existing=True)
    if row is None:
        raise TsqeError(f"no assignment with id {assignment_id}")
    found = _disagreements(session, row.suite_id, open_only=False, assignment_id=assignment_id)
    if not found:
        raise TsqeError(f"assignment {assignment_id} is no disagreement of two reviewers: nothing to adjudicate")
    if row.output_id is None:
        raise TsqeError(f"the output of assignment {assignment_id} was removed: nothing to adjudicate")
    return row, found[0]


def adjudicate(db: Database, assignment_id: int, label: Label, adjudicator: str, *, comment: str | None = None,
               expected_version: int | None = None) -> Decided:
    """Settle a disagreement: the output gets ``label`` as the adjudicator's manual label (refused like any
    decision when its review changed since ``expected_version`` was read), and its history entry names the first
    and the second decision; the assignment is closed in the same transaction."""
    adjudicator = check_author(adjudicator)
    with db.transaction() as session:
        row, found = _disagreement(session, assignment_id)
        if row.adjudicated_by is not None:
            raise TsqeError(f"assignment {assignment_id} was adjudicated already by {row.adjudicated_by} "
                            f"({row.adjudicated_label})")
        assert row.output_id is not None
        decided = decide_in(session, [OutputDecision(SeenOutput(row.output_id, expected_version, comment), label)],
                            adjudicator, noted={row.output_id: {
                                "first_review": f"{found.first_label} by {found.first_reviewer}",
                                "second_review": f"{found.second_label} by {found.second_reviewer}"}})
        row.adjudicated_label, row.adjudicated_by, row.adjudicated_at = label, adjudicator, utcnow()
        return decided


def reopen_adjudication(db: Database, assignment_id: int, *, expected_version: int, review: ReviewerDecision | None,
                        author: str) -> Decided:
    """Take an adjudication back: the output's review as it was before (found at ``expected_version``, as the
    adjudication left it) and the disagreement open again, in one transaction."""
    author = check_author(author)
    with db.transaction() as session:
        row, _ = _disagreement(session, assignment_id)
        assert row.output_id is not None
        decided = put_reviews_in(session, [ReviewPut(row.output_id, expected_version, review)], author=author)
        row.adjudicated_label = row.adjudicated_by = None
        row.adjudicated_at = None
        return decided


@dataclass(frozen=True)
class BlindItem:
    """What a reviewer deciding blind sees of an assignment's item: no rule, known translation, other output or
    decision, any of which could tell a control or the first decision."""

    external_id: str
    category: str | None
    phenomenon: str | None
    source: str
    references: tuple[str, ...]


def blind_item(db: Database, item_id: int) -> BlindItem:
    item = item_detail(db, item_id)
    return BlindItem(item.external_id, item.category, item.phenomenon, item.source,
                     tuple(reference.text for reference in item.references))
