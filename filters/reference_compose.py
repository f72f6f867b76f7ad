"""Composing a reference set per item by a metric: an automatic stand-in for Freitag et al.'s human HQ().

The paper's HQ(R) keeps, per sentence, the reference that human raters judged better. Without ratings, tsqe
rates each candidate reference by how well it agrees with the other candidates: the metric scores it as a
hypothesis against the item's other candidates' references (the metric's multi-reference form), and the
best-scoring one wins, ties to the first named. With BLEU or chrF this is a consensus (medoid) choice: it
prefers the reference that covers what the others say, not the one humans would call most adequate, and it
leans towards the candidates that resemble each other, so it is a documented stand-in, not the paper's
procedure.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from filters.metrics import MetricOptions, get_metric
from store import Database
from suite.references import ComposedSet, RefChoice, compose_reference_set, read_references
from suite.suites import find_suite


def compose_by_metric(db: Database, metric: str, *, name: str, sources: Sequence[str], kind: str | None = None,
                      suite_name: str | None = None, options: MetricOptions | None = None) -> ComposedSet:
    scorer = get_metric(metric, options, db)
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        texts = {source: read_references(session, suite_id, RefChoice((source,))) for source in sources}
    jobs: list[tuple[int, str]] = []
    hypotheses: list[str] = []
    references: list[list[str]] = []
    for item in sorted({item for by_item in texts.values() for item in by_item}):
        candidates = [source for source in sources if item in texts[source]]
        if len(candidates) < 2:
            continue
        for source in candidates:
            jobs.append((item, source))
            hypotheses.append(texts[source][item][0])
            references.append([ref for other in candidates if other != source for ref in texts[other][item]])
    scores = scorer.score(hypotheses, references) if jobs else np.zeros(0)
    ratings: dict[int, dict[str, float]] = {}
    for (item, source), score in zip(jobs, scores):
        ratings.setdefault(item, {})[source] = float(score)
    with db.transaction() as session:
        return compose_reference_set(session, suite_id, name, sources, ratings, kind=kind,
                                     higher_is_better=scorer.higher_is_better, rated_by=f"metric {metric}")
