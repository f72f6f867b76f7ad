"""Searching the suite tree: which items match a query in their id, source sentence or rule patterns.

The window's tree searched by filtering its Qt model on every keystroke, asking each of thousands of nodes for its
text through Python: typing an item id froze the window for 4 s (issue 16). The texts are read once with the tree
(``suite_search``), casefolded once, and a query is a substring test over them, done off the window's thread; the
result is the tree narrowed to the matches (``search_tree``), which the window shows as it is. Casefolding rather
than SQL ``LIKE``: SQLite lowers ASCII letters only, and a German suite is searched for "Straße" and "ÄRGER".
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from store import Database
from suite.names import item_patterns
from suite.tree import SuiteTree


@dataclass(frozen=True)
class SuiteSearch:
    """Each item's searchable text: its id, source and patterns, casefolded, one per line."""

    texts: dict[int, str]

    def matching_items(self, query: str) -> frozenset[int]:
        """The ids of the items whose id, source or one of whose patterns contains ``query`` (any case)."""
        wanted = query.strip().casefold()
        if not wanted:
            return frozenset(self.texts)
        return frozenset(item_id for item_id, text in self.texts.items() if wanted in text)


def suite_search(db: Database, tree: SuiteTree, suite_name: str | None = None) -> SuiteSearch:
    """The search over ``tree``'s items, with their rule patterns read now (one query)."""
    patterns = item_patterns(db, suite_name)
    return SuiteSearch({item.item_id: "\n".join([item.external_id, item.source, *patterns.get(item.item_id, [])])
                        .casefold()
                        for category in tree.categories for phenomenon in category.phenomena
                        for item in phenomenon.items})


def search_tree(tree: SuiteTree, search: SuiteSearch, query: str) -> SuiteTree:
    """``tree`` with only what matches ``query``: a category or phenomenon whose name contains it, whole; else
    the items that match, under their phenomenon and category. Nodes keep their own counts (what a category
    holds in all), so a search does not change the numbers a linguist reads; an empty query is the whole tree."""
    wanted = query.strip().casefold()
    if not wanted:
        return tree
    items = search.matching_items(wanted)
    categories = []
    for category in tree.categories:
        if wanted in category.name.casefold():
            categories.append(category)
            continue
        phenomena = []
        for phenomenon in category.phenomena:
            if wanted in phenomenon.name.casefold():
                phenomena.append(phenomenon)
            elif found := [item for item in phenomenon.items if item.item_id in items]:
                phenomena.append(replace(phenomenon, items=found))
        if phenomena:
            categories.append(replace(category, phenomena=phenomena))
    return replace(tree, categories=categories)
