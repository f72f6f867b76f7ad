"""Control outputs: known good and bad translations mixed unmarked into a reviewer's assignments, and each
reviewer's accuracy on them.

A known good translation should be answered pass, a known bad one fail. Controls are made for one reviewer at a
time, when they take assignments (``suite.assist.double_review.take_assignments``), so that they make up the
plan's share of that reviewer's assignments; they are drawn per reviewer (seeded by the plan's seed and the
reviewer's name) from the suite's known translations, one category after another in a shuffled order, so that a
reviewer is checked across the suite and never gets the same control twice.
"""
from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from store import Database
from store.models import Category, Item, KnownTranslation, Phenomenon, ReviewAssignment, ReviewPlan, utcnow
from store.upsert import conflict_insert
from suite.suites import find_suite
from suite.tables import Cell, Column, Table

QUEUE_PLACES = 2**31 - 1
"""Places in a reviewer's queue are drawn from [0, QUEUE_PLACES): a control stands anywhere among the rest."""
EXPECTED = {"good": "pass", "bad": "fail"}


def add_controls(session: Session, suite_id: int, plan: ReviewPlan, reviewer: str) -> int:
    """Give ``reviewer`` the controls that make up the plan's share of their assignments (counted over every
    assignment they were ever given), in the caller's transaction; how many were added."""
    if plan.control_share <= 0:
        return 0
    given = {kind: count for kind, count in session.execute(
        select(ReviewAssignment.kind, func.count())
        .where(ReviewAssignment.suite_id == suite_id, ReviewAssignment.reviewer == reviewer)
        .group_by(ReviewAssignment.kind))}
    controls = given.get("control", 0)
    wanted = round(given.get("double", 0) * plan.control_share / (1 - plan.control_share)) - controls
    if wanted <= 0:
        return 0
    used = select(ReviewAssignment.known_id).where(ReviewAssignment.suite_id == suite_id,
                                                   ReviewAssignment.kind == "control",
                                                   ReviewAssignment.reviewer == reviewer)
    known = session.execute(
        select(KnownTranslation.id, KnownTranslation.item_id, KnownTranslation.kind, KnownTranslation.text,
               Category.name)
        .join(Item, Item.id == KnownTranslation.item_id)
        .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
        .outerjoin(Category, Category.id == Phenomenon.category_id)
        .where(Item.suite_id == suite_id, KnownTranslation.id.not_in(used))
        .order_by(KnownTranslation.id)).all()
    by_category: defaultdict[str | None, list[tuple[int, int, str, str]]] = defaultdict(list)
    for known_id, item_id, kind, text, category in known:
        if text.strip():
            by_category[category].append((known_id, item_id, kind, text.strip()))
    rng = random.Random(f"{plan.seed}:{reviewer}:{controls}")
    order = sorted(by_category, key=lambda name: (name is None, name or ""))
    rng.shuffle(order)
    for name in order:
        rng.shuffle(by_category[name])
    chosen: list[tuple[str | None, tuple[int, int, str, str]]] = []
    while len(chosen) < wanted and any(by_category[name] for name in order):
        for name in order:
            if by_category[name] and len(chosen) < wanted:
                chosen.append((name, by_category[name].pop()))
    if not chosen:
        return 0
    now = utcnow()
    session.execute(conflict_insert(session.connection(), ReviewAssignment).on_conflict_do_nothing(), [
        {"suite_id": suite_id, "item_id": item_id, "kind": "control", "known_id": known_id, "text": text,
         "category": category, "expected": EXPECTED[kind], "position": rng.randrange(QUEUE_PLACES),
         "reviewer": reviewer, "given_at": now}
        for category, (known_id, item_id, kind, text) in chosen])
    return len(chosen)


@dataclass(frozen=True)
class ControlAccuracy:
    """A reviewer's answers to controls: on known good translations (should be pass) and known bad ones (fail)."""

    reviewer: str
    good: int
    good_right: int
    bad: int
    bad_right: int
    open: int
    """Controls given but not answered yet."""

    @property
    def answered(self) -> int:
        return self.good + self.bad

    @property
    def right(self) -> int:
        return self.good_right + self.bad_right

    @property
    def accuracy(self) -> float | None:
        return self.right / self.answered if self.answered else None


def control_accuracy(db: Database, *, suite_name: str | None = None) -> list[ControlAccuracy]:
    """Each reviewer's accuracy on the controls they answered, by reviewer name."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        rows = session.execute(select(ReviewAssignment.reviewer, ReviewAssignment.expected, ReviewAssignment.label)
                               .where(ReviewAssignment.suite_id == suite.id, ReviewAssignment.kind == "control"))
        counts: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
        for reviewer, expected, label in rows:
            count = counts[reviewer or ""]
            if label is None:
                count[4] += 1
                continue
            at = 0 if expected == "pass" else 2
            count[at] += 1
            count[at + 1] += label == expected
        return [ControlAccuracy(reviewer, *count) for reviewer, count in sorted(counts.items())]


def controls_table(accuracies: list[ControlAccuracy]) -> Table:
    """Each reviewer's accuracy on controls, overall and on known good and bad translations."""
    def rate(right: int, of: int) -> Cell:
        return Cell(right / of if of else None)

    return Table(
        "Reviewers' accuracy on control outputs",
        [Column("reviewer", "text"), Column("answered", "count"), Column("right", "count"),
         Column("accuracy", "fraction"), Column("on good", "fraction"), Column("on bad", "fraction"),
         Column("open", "count")],
        [[Cell(a.reviewer), Cell(a.answered), Cell(a.right), rate(a.right, a.answered), rate(a.good_right, a.good),
          rate(a.bad_right, a.bad), Cell(a.open)] for a in accuracies],
        notes=["Controls are known good (right: pass) and known bad (right: fail) translations mixed unmarked "
               "into each reviewer's assignments; an answer 'unknown' counts as not right."])

