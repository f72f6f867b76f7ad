"""The suite as a tree (category → phenomenon → item) with effective label counts at every node.

The counts come from the per-item summary and the reviews (``suite.label_counts``), never from the outputs, so
the tree of a million outputs costs what its few thousand items cost; the items and their rule counts take one
query each, and the tree is assembled in Python. Categories and phenomena appear in suite order: the position
of their first item.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, TypeVar

from sqlalchemy import func, select

from store import Database
from store.models import Category, Item, Phenomenon, Rule
from suite.label_counts import LabelCounts, effective_counts
from suite.suites import find_suite
from suite.tables import NO_CATEGORY, NO_PHENOMENON


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


TreeOrder = Literal["suite", "undecided"]
TREE_ORDERS: tuple[TreeOrder, ...] = ("suite", "undecided")
"""``suite``: categories, phenomena and items in suite order; ``undecided``: each level with the most undecided
outputs first (ties in suite order), so the next item to write rules for or to review is at the top."""


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
        counts = effective_counts(session.connection(), suite.id)
        name = suite.name

    tree: dict[tuple[int | None, str], dict[tuple[int | None, str], list[ItemNode]]] = {}
    for item_id, external_id, source, phenomenon_id, phenomenon, category_id, category in items:
        node = ItemNode(item_id, external_id, source, counts.get(item_id, LabelCounts()), rules.get(item_id, 0))
        tree.setdefault((category_id, category or NO_CATEGORY), {}).setdefault(
            (phenomenon_id, phenomenon or NO_PHENOMENON), []).append(node)
    categories = []
    for (category_key, category_name), phenomena in tree.items():
        nodes = [PhenomenonNode(phenomenon_id, phenomenon, _total([i.counts for i in item_nodes]), item_nodes)
                 for (phenomenon_id, phenomenon), item_nodes in phenomena.items()]
        categories.append(CategoryNode(category_key, category_name, _total([p.counts for p in nodes]), nodes))
    return SuiteTree(name, _total([c.counts for c in categories]), categories)


_Node = TypeVar("_Node", CategoryNode, PhenomenonNode, ItemNode)


def arranged_tree(tree: SuiteTree, order: TreeOrder = "suite", undecided_only: bool = False) -> SuiteTree:
    """``tree`` in ``order``, and when ``undecided_only`` without the nodes that have no undecided output (unknown,
    conflict or error): what is left is what still needs a rule or a reviewer. Nodes keep their counts."""
    if order not in TREE_ORDERS:
        raise ValueError(f"the tree is ordered by {' or '.join(TREE_ORDERS)}, not {order!r}")

    def kept(nodes: list[_Node]) -> list[_Node]:
        if undecided_only:
            nodes = [node for node in nodes if node.counts.undecided]
        if order == "undecided":
            nodes = sorted(nodes, key=lambda node: -node.counts.undecided)  # stable: ties stay in suite order
        return nodes

    categories = []
    for category in kept(tree.categories):
        phenomena = [replace(phenomenon, items=kept(phenomenon.items)) for phenomenon in kept(category.phenomena)]
        categories.append(replace(category, phenomena=phenomena))
    return replace(tree, categories=categories)
