"""Ratings of reference translations per item, for composing a set from the best-rated (Freitag et al.'s HQ()).

A table (TSV, CSV or XLSX) with the columns ``item_id``, ``set`` and ``rating`` (a number; higher is better,
as the paper's adequacy ratings): one row per reference set and item. Every row is checked before the ratings
are used: unknown items, sets that are not among those composed from, ratings that are not numbers, and an
item rated twice for one set.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from sqlalchemy import select

from store import Database
from store.models import Item
from suite.importers.lookups import StrippedIds
from suite.importers.result import Problems
from suite.importers.table_files import iter_table
from suite.references import ComposedSet, compose_reference_set
from suite.suites import find_suite


def read_reference_ratings(path: Path, item_ids: Mapping[str, int], sources: Sequence[str]
                           ) -> dict[int, dict[str, float]]:
    """``{item id: {set: rating}}`` from ``path``; ``item_ids`` maps the suite's external ids to item ids."""
    problems = Problems(str(path))
    ratings: dict[int, dict[str, float]] = {}
    stripped = StrippedIds(problems)
    for row in iter_table(path, problems, ("item_id", "set", "rating")):
        external, source, value = stripped.strip(row["item_id"], row.line), row["set"].strip(), row["rating"].strip()
        item = item_ids.get(external)
        if item is None:
            problems.error(row.line, f"the suite has no item {external!r}")
            continue
        if source not in sources:
            problems.error(row.line, f"set {source!r} is not one of those composed from ({', '.join(sources)})")
            continue
        try:
            rating = float(value)
        except ValueError:
            rating = math.nan
        if not math.isfinite(rating):
            problems.error(row.line, f"rating {value!r} is not a number")
            continue
        if source in ratings.setdefault(item, {}):
            problems.error(row.line, f"item {external!r} is rated twice for set {source!r}")
            continue
        ratings[item][source] = rating
    stripped.report()
    problems.raise_if_any()
    return ratings


def compose_from_ratings(db: Database, path: Path, *, name: str, sources: Sequence[str], kind: str | None = None,
                         suite_name: str | None = None) -> ComposedSet:
    """The set ``name`` made of each item's best-rated reference among ``sources`` (ratings from ``path``)."""
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        item_ids = dict(session.execute(select(Item.external_id, Item.id).where(Item.suite_id == suite_id)).all())
    ratings = read_reference_ratings(path, item_ids, sources)
    with db.transaction() as session:
        return compose_reference_set(session, suite_id, name, sources, ratings, kind=kind, rated_by=str(path))
