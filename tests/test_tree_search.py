"""The suite tree narrowed by a search (ids, sources, patterns, any case) and arranged by what is undecided."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from store import Database, open_database
from store.domain import Polarity
from suite.demo import DEMO_SUITE, create_demo
from suite.editing.api import add_item, add_rule
from suite.reading.search import search_tree, suite_search
from suite.reading.tree import SuiteTree, arranged_tree, suite_tree


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    db = open_database(tmp_path_factory.mktemp("demo") / "demo.sqlite")
    create_demo(db)
    item = add_item(db, external_id="str-01", source="Die Straße war nass.", category="Ambiguity",
                    phenomenon="Lexical ambiguity", author="tester", suite_name=DEMO_SUITE)
    assert item.entity_id is not None
    add_rule(db, item.entity_id, Polarity.POSITIVE, r"\bstreet\b", author="tester")
    yield db
    db.close()


def _items(tree: SuiteTree) -> list[str]:
    return [i.external_id for c in tree.categories for p in c.phenomena for i in p.items]


def _search(db: Database, query: str) -> SuiteTree:
    tree = suite_tree(db, DEMO_SUITE)
    return search_tree(tree, suite_search(db, tree, DEMO_SUITE), query)


def test_search_finds_ids_sources_and_patterns_in_any_case(demo: Database) -> None:
    assert _items(_search(demo, "AMB-01")) == ["amb-01"]
    assert _items(_search(demo, "flussufer")) == ["amb-01"]
    assert _items(_search(demo, "STRASSE")) == ["str-01"]  # casefolded: ß is ss, as a German reader types it
    assert _items(_search(demo, "straße")) == ["str-01"]
    assert _items(_search(demo, r"\bstreet\b")) == ["str-01"]  # a rule's pattern, as typed
    assert _items(_search(demo, "no such thing anywhere")) == []


def test_a_matching_category_or_phenomenon_is_shown_whole_with_its_own_counts(demo: Database) -> None:
    whole = suite_tree(demo, DEMO_SUITE)
    found = _search(demo, "negation")
    assert [c.name for c in found.categories] == ["Negation"]
    assert found.categories[0] == next(c for c in whole.categories if c.name == "Negation")
    narrowed = _search(demo, "amb-01").categories[0]
    assert narrowed.counts == whole.categories[0].counts  # a search does not change what a category holds
    assert _search(demo, "  ") == whole


def test_most_undecided_first_and_undecided_only(demo: Database) -> None:
    tree = suite_tree(demo, DEMO_SUITE)
    arranged = arranged_tree(tree, "undecided")
    undecided = [c.counts.undecided for c in arranged.categories]
    assert undecided == sorted(undecided, reverse=True) and undecided[0] > 0
    for category in arranged.categories:
        for phenomenon in category.phenomena:
            counts = [i.counts.undecided for i in phenomenon.items]
            assert counts == sorted(counts, reverse=True)
    ties = [c.name for c in arranged.categories if c.counts.undecided == 0]
    assert ties == [c.name for c in tree.categories if c.counts.undecided == 0]  # ties keep suite order
    only = arranged_tree(tree, "suite", undecided_only=True)
    assert only.categories and all(c.counts.undecided for c in only.categories)
    assert all(i.counts.undecided for c in only.categories for p in c.phenomena for i in p.items)
    assert sum(i.counts.undecided for c in only.categories for p in c.phenomena for i in p.items) \
        == tree.counts.undecided  # nothing undecided is hidden
    with pytest.raises(ValueError):
        arranged_tree(tree, "alphabet")  # type: ignore[arg-type]
