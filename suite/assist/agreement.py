"""How far reviewers agree: Cohen's kappa, raw agreement and counts per reviewer pair and category, over the
answered double reviews (``suite.assist.double_review``).

Each answered double review compares the first decision (as it was when the output was planned for a second
review) with the second reviewer's answer. Kappa corrects raw agreement for the agreement two reviewers with
their own label frequencies would reach by chance (Cohen 1960): kappa = (p_o - p_e) / (1 - p_e). A pair is
unordered: who decided first does not change it. Kappa is undefined (shown empty) when both reviewers gave one
and the same label throughout, where chance already explains every agreement.

Kappa also reads 0 whatever the raw agreement when one reviewer gave one label only (a reviewer who passes every
output agrees with a colleague exactly as often as chance predicts): on a suite where most outputs pass, 78.6 %
agreement beside κ 0.00 read as a bug (issue 28). Each row therefore says which reviewers gave one label only,
and carries Gwet's AC1 beside kappa (Gwet 2008, "Computing inter-rater reliability and its variance in the
presence of high agreement"): its chance agreement is p_e = Σ_k π_k (1 − π_k) / (q − 1), with π_k the share of
both reviewers' decisions that are label k and q the labels of the scale, which stays small when one label
dominates instead of approaching 1. q is the labels the two used, at least two (a decision is at least pass or
fail): counting labels nobody used would change the figure with nothing in the data changing.
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


def gwet_ac1(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Gwet's AC1 of two raters' labels on the same things; None for no pairs."""
    n = len(pairs)
    if not n:
        return None
    observed = sum(first == second for first, second in pairs) / n
    used = Counter(label for pair in pairs for label in pair)
    scale = max(2, len(used))
    chance = sum((count / (2 * n)) * (1 - count / (2 * n)) for count in used.values()) / (scale - 1)
    return (observed - chance) / (1 - chance)


def single_labelled(reviewers: tuple[str, str], pairs: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The reviewers (of an ordered pair, labels in the same order) who gave one label only."""
    return tuple(name for name, side in zip(reviewers, (0, 1), strict=True)
                 if len({pair[side] for pair in pairs}) == 1)


@dataclass(frozen=True)
class AgreementRow:
    reviewers: tuple[str, str]
    category: str | None
    """None on a pair's row over all categories (``overall``)."""
    overall: bool
    compared: int
    agreed: int
    kappa: float | None
    ac1: float | None
    """Gwet's AC1: chance-corrected agreement that stays meaningful when one label dominates."""
    single_labelled: tuple[str, ...]
    """The reviewers of the pair who gave one label only here: then kappa is 0 (or undefined) whatever the raw
    agreement."""

    @property
    def raw(self) -> float:
        return self.agreed / self.compared

    def kappa_note(self) -> str | None:
        """Why kappa says little here, in words; None when it needs no word."""
        if not self.single_labelled or self.compared == 0:
            return None
        if len(self.single_labelled) == 2:
            return "both reviewers gave one label only: κ is undefined (chance explains every agreement)"
        return (f"{self.single_labelled[0]} gave one label only: κ is 0 whatever the agreement, as chance "
                "predicts every agreement; AC1 is not misled by this")


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
             Column("agreed", "count"), Column("agreement", "fraction"), Column("kappa", "number", 2),
             Column("AC1", "number", 2)],
            [[Cell(" · ".join(row.reviewers)),
              Cell("all categories" if row.overall else row.category or NO_CATEGORY),
              Cell(row.compared), Cell(row.agreed), Cell(row.raw), Cell(row.kappa), Cell(row.ac1)]
             for row in self.rows],
            notes=[f"{self.answered:,} of {self.planned:,} planned double reviews answered; "
                   f"{self.open_disagreements:,} disagreements to adjudicate, {self.adjudicated:,} adjudicated.",
                   "kappa: Cohen's kappa (chance-corrected agreement); empty when both reviewers gave one and the "
                   "same label only, and 0 whatever the agreement when one of them did.",
                   "AC1: Gwet's AC1, chance-corrected agreement that stays meaningful when one label dominates.",
                   *sorted({f"{' · '.join(row.reviewers)}: {note}" for row in self.rows
                            if row.overall and (note := row.kappa_note()) is not None})])

    def to_json(self) -> str:
        return json.dumps({"suite": self.suite, "planned": self.planned, "answered": self.answered,
                           "open_disagreements": self.open_disagreements, "adjudicated": self.adjudicated,
                           "rows": [{**asdict(row), "reviewers": list(row.reviewers),
                                     "single_labelled": list(row.single_labelled), "raw": row.raw}
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
    return AgreementRow(reviewers, category, overall, len(pairs), sum(a == b for a, b in pairs), cohen_kappa(pairs),
                        gwet_ac1(pairs), single_labelled(reviewers, pairs))
