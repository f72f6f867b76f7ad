"""Segment scores of a suite's system outputs under one metric and one reference choice.

Every metric of the registry answers through the same interface (``filters.metrics.base.Metric``): text
metrics score each distinct output once (systems that produced the same text share it) against its item's
references and cache the scores under their signature; the pass/fail label (pass = 1, fail = 0, anything
else missing) and QE systems (``qe:NAME``) read the scores the database holds. Variance filtering,
correlation and the QE proxies therefore treat all of them alike.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from filters.metrics import MetricOptions, Signature, suite_metric
from filters.metrics.cache import store_scores
from store import Database
from store.models import Item, System, SystemOutput
from suite.errors import TsqeError
from suite.references import RefChoice
from suite.suites import find_suite
from suite.tasks import Cancelled, TaskState, progress_of


@dataclass(frozen=True)
class ScoreRow:
    item_id: str
    position: int
    system: str
    output_id: int
    score: float


@dataclass
class SegmentScores:
    metric: str
    signature: Signature
    higher_is_better: bool
    rows: list[ScoreRow]
    refs: RefChoice = field(default_factory=RefChoice.default)
    unreferenced: int = 0
    """Distinct outputs without a score because their item has no reference under ``refs``."""

    def of_item(self, item_id: str) -> list[ScoreRow]:
        """One item's scores, the best system first (the metric's direction decides), ties by system name."""
        rows = sorted((r for r in self.rows if r.item_id == item_id), key=lambda r: r.system)
        return sorted(rows, key=lambda r: -r.score if self.higher_is_better else r.score)

    def matrix(self) -> tuple[list[str], list[str], np.ndarray]:
        """Items (in suite order) x systems (by name), NaN where a system has no scored output."""
        items = sorted({(r.position, r.item_id) for r in self.rows})
        item_ids = [item_id for _, item_id in items]
        systems = sorted({r.system for r in self.rows})
        row_of = {item_id: i for i, item_id in enumerate(item_ids)}
        col_of = {name: j for j, name in enumerate(systems)}
        values = np.full((len(item_ids), len(systems)), np.nan)
        for r in self.rows:
            values[row_of[r.item_id], col_of[r.system]] = r.score
        return item_ids, systems, values


@dataclass(frozen=True)
class _Link:
    item_id: str
    position: int
    system: str
    output_id: int


def suite_systems(session: Session, suite_id: int, systems: Sequence[str] | None) -> list[str]:
    """The requested systems (all of the suite's by default), rejecting names the suite does not have."""
    known = list(session.scalars(select(System.name).where(System.suite_id == suite_id).order_by(System.name)))
    if systems is None:
        return known
    unknown = [s for s in systems if s not in known]
    if unknown:
        raise TsqeError(f"unknown system(s) {', '.join(unknown)} (systems of this suite: {', '.join(known)})")
    return list(dict.fromkeys(systems))


def _links(session: Session, suite_id: int, systems: list[str]) -> list[_Link]:
    rows = session.execute(
        select(Item.external_id, Item.position, System.name, SystemOutput.output_id)
        .join(SystemOutput, SystemOutput.item_id == Item.id)
        .join(System, System.id == SystemOutput.system_id)
        .where(Item.suite_id == suite_id, System.name.in_(systems))
        .order_by(Item.position, System.name))
    return [_Link(*row) for row in rows]


StoreWith = Callable[[Session, SegmentScores], None]
"""Writes what a caller derives from the scores, inside the transaction that caches them."""


def score_outputs(db: Database, metric_name: str, *, suite_name: str | None = None,
                  systems: Sequence[str] | None = None, refs: RefChoice | None = None,
                  options: MetricOptions | None = None, task: TaskState | None = None,
                  store_with: StoreWith | None = None) -> SegmentScores:
    """The outputs' scores under ``metric_name`` against ``refs`` (the default references when None); scores
    computed afresh are cached in one transaction.

    ``store_with`` writes in that same transaction (opened for it when nothing new was computed), so what a
    caller stores from the scores (a QE system, ``filters.qe_proxy``) and the cache it came with are
    committed together or not at all, even when the process is killed in between.
    """
    task = progress_of(task)
    refs = refs or RefChoice.default()
    metric = suite_metric(metric_name, options, db)
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        links = _links(session, suite_id, suite_systems(session, suite_id, systems))
    try:
        computed = metric.output_scores(db, suite_id, sorted({link.output_id for link in links}), refs, task)
        result = SegmentScores(
            metric=metric_name, signature=computed.signature, higher_is_better=computed.higher_is_better,
            rows=[ScoreRow(link.item_id, link.position, link.system, link.output_id, computed.scores[link.output_id])
                  for link in links if link.output_id in computed.scores],
            refs=refs, unreferenced=computed.unreferenced)
        if computed.fresh or store_with is not None:
            # The last report comes before the commit: a run cancelled at it stores nothing.
            with db.transaction() as session:
                store_scores(session, computed.fresh)
                if store_with is not None:
                    store_with(session, result)
                if computed.fresh:
                    count = len({o for rows in computed.fresh.values() for o, _ in rows})
                    task.progress(count, count, f"scored {count:,} outputs with {metric.name}")
    except Cancelled:
        metric.forget_stored()
        raise
    return result
