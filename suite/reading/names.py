"""What a front-end offers to choose from or search in: suites, systems, items' rule patterns.

Each is one query, so a chooser or a search box over a suite of thousands of items fills at once.
"""
from __future__ import annotations

from collections import defaultdict

from sqlalchemy import select

from store import Database
from store.models import Item, Rule, Suite, System
from suite.suites import find_suite


def suite_names(db: Database) -> list[str]:
    with db.session() as session:
        return list(session.scalars(select(Suite.name).order_by(Suite.name)))


def system_names(db: Database, suite_name: str | None = None) -> list[str]:
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        return list(session.scalars(select(System.name).where(System.suite_id == suite_id).order_by(System.name)))


def item_patterns(db: Database, suite_name: str | None = None) -> dict[int, list[str]]:
    """The patterns of each item's rules in rule order; items without rules are left out."""
    patterns: defaultdict[int, list[str]] = defaultdict(list)
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        for item_id, pattern in session.execute(
                select(Rule.item_id, Rule.pattern).join(Item, Item.id == Rule.item_id)
                .where(Item.suite_id == suite_id).order_by(Rule.item_id, Rule.position, Rule.id)):
            patterns[item_id].append(pattern)
    return dict(patterns)
