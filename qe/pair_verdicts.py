"""The pairs behind one cell of the accuracy table, each with a QE system's two scores and its verdict.

Accuracy is a rate over pairs; a researcher who doubts a cell wants to read those pairs: the source, the
passing and the failing output, what the QE system gave each and whether it preferred the right one. The
verdict does not depend on the ties policy (a tie is a tie); the policy only decides what a tie earns. What is a
tie does depend on the table's tie margin (scores at most that far apart), as the table counted it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select

from qe.accuracy import AccuracyResult, Verdict, aligned_scores, pair_outcome
from qe.pairs import PairTable
from store import Database
from store.models import Item
from suite.qe_scores import QEScores
from suite.suites import find_suite


@dataclass(frozen=True)
class PairVerdict:
    item_id: str  # the item's external id
    category: str | None
    phenomenon: str | None
    source: str
    pass_output: str
    fail_output: str
    pass_systems: str  # comma-joined MT systems behind each side
    fail_systems: str
    pass_score: float | None
    fail_score: float | None
    verdict: Verdict


def pair_verdicts(db: Database, pairs: PairTable, qe: QEScores, result: AccuracyResult, row: int, *,
                  suite_name: str | None = None) -> list[PairVerdict]:
    """The pairs behind row ``row`` of ``result``'s table (:attr:`AccuracyResult.table_rows`), in suite order.

    A body row holds the pairs of its category, or of its category's phenomenon; Total and weighed hold every
    pair of the table: the suite's, or in a table of one category's phenomena, that category's. A row's None
    is a value here, not a wildcard: it is the row of items without a category or phenomenon.
    """
    out = pairs.outputs
    categories = out.item_categories[pairs.pair_item]
    if row < len(result.rows):
        line = result.rows[row]
        mask = _equal(categories, line.category)
        if result.by == "phenomenon":
            mask &= _equal(out.item_phenomena[pairs.pair_item], line.phenomenon)
    elif row < len(result.table_rows):
        mask = np.ones(len(pairs), dtype=bool) if result.category is None else _equal(categories, result.category)
    else:
        raise IndexError(f"the table has {len(result.table_rows)} rows, not {row + 1}")
    positions = np.flatnonzero(mask)
    scores = aligned_scores(pairs, qe)
    outcome = pair_outcome(pairs, qe, result.tie_epsilon.get(qe.name, qe.tie_epsilon))
    with db.session() as session:
        suite = find_suite(session, suite_name)
        sources = dict(session.execute(select(Item.external_id, Item.source).where(Item.suite_id == suite.id)).all())
    verdicts = []
    for position in positions:
        item, p, f = pairs.pair_item[position], pairs.pass_index[position], pairs.fail_index[position]
        pass_score, fail_score = float(scores[p]), float(scores[f])
        verdicts.append(PairVerdict(
            item_id=str(out.item_ids[item]), category=out.item_categories[item], phenomenon=out.item_phenomena[item],
            source=sources.get(out.item_ids[item], ""), pass_output=str(out.output_texts[p]),
            fail_output=str(out.output_texts[f]), pass_systems=str(out.output_systems[p]),
            fail_systems=str(out.output_systems[f]), pass_score=_score(pass_score), fail_score=_score(fail_score),
            verdict=outcome.verdict(int(position))))
    return verdicts


def _equal(values: np.ndarray, wanted: str | None) -> np.ndarray:
    """Element-wise equality on an object array that also finds None."""
    return np.array([value == wanted for value in values], dtype=bool)


def _score(value: float) -> float | None:
    return None if math.isnan(value) else value
