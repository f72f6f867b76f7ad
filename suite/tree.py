"""The suite as a tree (category → phenomenon → item) with effective label counts at every node.

The counts come from one grouped aggregate over the suite's outputs joined to their labels (per item and
label), and the items and their rule counts from one query each; the tree is assembled in Python, so its
cost does not grow with a query per item. Categories and phenomena appear in suite order: the position of
their first item.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, fields

from sqlalchemy import func, select

from store import Database
from store.models import Category, Item, ManualLabel, Output, Phenomenon, Rule
from suite.labels import effective_label, join_labels
from suite.suites import find_suite
from suite.tables import NO_CATEGORY, NO_PHENOMENON


@dataclass(frozen=True)
class LabelCounts:
    """Effective labels over distinct outputs; ``unlabelled`` outputs have been neither labelled nor reviewed."""

    passed: int = 0
    failed: int = 0
    conflict: int = 0
    unknown: int = 0
    error: int = 0
    unlabelled: int = 0
    reviewed: int = 0
    outputs: int = 0

    @property
    def pass_rate(self) -> float | None:
        """passed / (passed + failed); None when nothing was judged, since 0 would claim failures."""
        judged = self.passed + self.failed
        return self.passed / judged if judged else None

    def __add__(self, other: LabelCounts) -> LabelCounts:
        return LabelCounts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


_FIELD_OF_LABEL = {"pass": "passed", "fail": "failed", "conflict": "conflict", "unknown": "unknown",
                   "error": "error", None: "unlabelled"}


@dataclass(frozen=True)
class ItemNode:
    item_id: int
    external_id: str
    source: str
    counts: LabelCounts
    rules: int


@dataclass(frozen=True)
class PhenomenonNode:
    phenomenon_id: int | None
    name: str
    counts: LabelCounts
    items: list[ItemNode]


@dataclass(frozen=True)
class CategoryNode:
    category_id: int | None
    name: str
    counts: LabelCounts
    phenomena: list[PhenomenonNode]


@dataclass(frozen=True)
class SuiteTree:
    suite: str
    counts: LabelCounts
    categories: list[CategoryNode]


def _total(counts: list[LabelCounts]) -> LabelCounts:
    return sum(counts, LabelCounts())


def suite_tree(db: Database, suite_name: str | None = None) -> SuiteTree:
    """Every item of the suite under its category and phenomenon, with label counts per node."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        items = session.execute(
            select(Item.id, Item.external_id, Item.source, Phenomenon.id, Phenomenon.name, Category.id, Category.name)
            .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
            .outerjoin(Category, Category.id == Phenomenon.category_id)
            .where(Item.suite_id == suite.id).order_by(Item.position, Item.id)).all()
        rules = {item_id: n for item_id, n in session.execute(
            select(Rule.item_id, func.count()).join(Item, Item.id == Rule.item_id)
            .where(Item.suite_id == suite.id).group_by(Rule.item_id))}
        label = effective_label(Output.id)
        grouped = join_labels(select(Output.item_id, label, func.count(), func.count(ManualLabel.output_id))
                              .select_from(Output).join(Item, Item.id == Output.item_id), Output.id, Output.item_id)
        by_item: defaultdict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for item_id, effective, n, reviewed in session.execute(
                grouped.where(Item.suite_id == suite.id).group_by(Output.item_id, label)):
            counts = by_item[item_id]
            counts[_FIELD_OF_LABEL[effective]] += n
            counts["reviewed"] += reviewed
            counts["outputs"] += n
        name = suite.name

    tree: dict[tuple[int | None, str], dict[tuple[int | None, str], list[ItemNode]]] = {}
    for item_id, external_id, source, phenomenon_id, phenomenon, category_id, category in items:
        node = ItemNode(item_id, external_id, source, LabelCounts(**by_item.get(item_id, {})), rules.get(item_id, 0))
        tree.setdefault((category_id, category or NO_CATEGORY), {}).setdefault(
            (phenomenon_id, phenomenon or NO_PHENOMENON), []).append(node)
    categories = []
    for (category_key, category_name), phenomena in tree.items():
        nodes = [PhenomenonNode(phenomenon_id, phenomenon, _total([i.counts for i in item_nodes]), item_nodes)
                 for (phenomenon_id, phenomenon), item_nodes in phenomena.items()]
        categories.append(CategoryNode(category_key, category_name, _total([p.counts for p in nodes]), nodes))
    return SuiteTree(name, _total([c.counts for c in categories]), categories)
