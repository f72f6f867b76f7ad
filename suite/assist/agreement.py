"""How far reviewers agree: Cohen's kappa, raw agreement and counts per reviewer pair and category, over the
answered double reviews (``suite.assist.double_review``).

Each answered double review compares the first decision (as it was when the output was planned for a second
review) with the second reviewer's answer. Kappa corrects raw agreement for the agreement two reviewers with
their own label frequencies would reach by chance (Cohen 1960): kappa = (p_o - p_e) / (1 - p_e). A pair is
unordered: who decided first does not change it. Kappa is undefined (shown empty) when both reviewers gave one
and the same label throughout, where chance already explains every agreement.
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from sqlalchemy import func, select

from store import Database
from store.models import Category, Item, Phenomenon, ReviewAssignment
from suite.suites import find_suite
from suite.tables import NO_CATEGORY, Cell, Column, Table


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's kappa of two raters' labels on the same things; None for no pairs, or when chance agreement is
    already complete (both raters used one and the same label only)."""
    n = len(pairs)
    if not n:
        return None
    observed = sum(first == second for first, second in pairs) / n
    firsts, seconds = Counter(first for first, _ in pairs), Counter(second for _, second in pairs)
    chance = sum(firsts[label] * seconds[label] for label in firsts) / (n * n)
    if chance == 1:
        return None
    return (observed - chance) / (1 - chance)


@dataclass(frozen=True)
class AgreementRow:
    reviewers: tuple[str, str]
    category: str | None
    """None on a pair's row over all categories (``overall``)."""
    overall: bool
    compared: int
    agreed: int
    kappa: float | None

    @property
    def raw(self) -> float:
        return self.agreed / self.compared


@dataclass(frozen=True)
class Agreement:
    suite: str
    rows: tuple[AgreementRow, ...]
    """Per reviewer pair: its row over all categories, then one per category in suite order."""
    planned: int
    """Double reviews planned."""
    answered: int
    open_disagreements: int
    adjudicated: int

    def to_table(self) -> Table:
        return Table(
            f"Agreement of reviewers on suite {self.suite}",
            [Column("reviewers", "text"), Column("category", "text"), Column("outputs", "count"),
             Column("agreed", "count"), Column("agreement", "fraction"), Column("kappa", "number", 2)],
            [[Cell(" · ".join(row.reviewers)),
              Cell("all categories" if row.overall else row.category or NO_CATEGORY),
              Cell(row.compared), Cell(row.agreed), Cell(row.raw), Cell(row.kappa)] for row in self.rows],
            notes=[f"{self.answered:,} of {self.planned:,} planned double reviews answered; "
                   f"{self.open_disagreements:,} disagreements to adjudicate, {self.adjudicated:,} adjudicated.",
                   "kappa: Cohen's kappa (chance-corrected agreement); empty when both reviewers gave one and the "
                   "same label only."])

    def to_json(self) -> str:
        return json.dumps({"suite": self.suite, "planned": self.planned, "answered": self.answered,
                           "open_disagreements": self.open_disagreements, "adjudicated": self.adjudicated,
                           "rows": [{**asdict(row), "reviewers": list(row.reviewers), "raw": row.raw}
                                    for row in self.rows]}, ensure_ascii=False, indent=2)


def reviewer_agreement(db: Database, *, suite_name: str | None = None) -> Agreement:
    with db.session() as session:
        suite = find_suite(session, suite_name)
        rows = session.execute(select(ReviewAssignment.first_reviewer, ReviewAssignment.expected,
                                      ReviewAssignment.reviewer, ReviewAssignment.label, ReviewAssignment.category,
                                      ReviewAssignment.adjudicated_by)
                               .where(ReviewAssignment.suite_id == suite.id,
                                      ReviewAssignment.kind == "double")).all()
        category_order: dict[str | None, int] = {name: i for i, name in enumerate(session.scalars(
            select(Category.name).join(Phenomenon, Phenomenon.category_id == Category.id)
            .join(Item, Item.phenomenon_id == Phenomenon.id).where(Category.suite_id == suite.id)
            .group_by(Category.id, Category.name).order_by(func.min(Item.position))))}
    compared: defaultdict[tuple[str, str], defaultdict[str | None, list[tuple[str, str]]]] = \
        defaultdict(lambda: defaultdict(list))
    answered = open_disagreements = adjudicated = 0
    for first_reviewer, first, second_reviewer, second, category, adjudicated_by in rows:
        if second is None:
            continue
        answered += 1
        if first != second:
            open_disagreements += adjudicated_by is None
            adjudicated += adjudicated_by is not None
        (a, label_a), (b, label_b) = sorted(((str(first_reviewer), str(first)), (str(second_reviewer), str(second))))
        compared[a, b][category].append((label_a, label_b))
    found: list[AgreementRow] = []
    for pair in sorted(compared):
        by_category = compared[pair]
        everything = [labels for category in by_category for labels in by_category[category]]
        found.append(_row(pair, None, everything, overall=True))
        for category in sorted(by_category, key=lambda name: (category_order.get(name, len(category_order)),
                                                              name or "")):
            found.append(_row(pair, category, by_category[category], overall=False))
    return Agreement(suite.name, tuple(found), len(rows), answered, open_disagreements, adjudicated)


def _row(reviewers: tuple[str, str], category: str | None, pairs: list[tuple[str, str]], *,
         overall: bool) -> AgreementRow:
    return AgreementRow(reviewers, category, overall, len(pairs), sum(a == b for a, b in pairs), cohen_kappa(pairs))
