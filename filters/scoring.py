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
from filters.metrics.base import Metric, OutputScores, SuiteMetric, TextMetric
from filters.metrics.cache import cached_scores, store_scores
from filters.metrics.statistics import combine
from store import Database
from store.models import Item, Output, System, SystemOutput
from suite.domain import Combine
from suite.errors import TsqeError
from suite.references import RefChoice, references_of
from suite.suites import find_suite, suite_systems
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

    def columns(self, systems: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Items (in suite order) x ``systems`` in that order, NaN where a system has no scored output; a
        system without any score is refused."""
        item_ids, names, values = self.matrix()
        column = {name: j for j, name in enumerate(names)}
        missing = [system for system in systems if system not in column]
        if missing:
            raise TsqeError(f"metric {self.metric!r} has no scores for system(s) {', '.join(missing)}")
        return item_ids, values[:, [column[system] for system in systems]]


@dataclass(frozen=True)
class _Link:
    item_id: str
    position: int
    system: str
    output_id: int


def _links(session: Session, suite_id: int, systems: list[str]) -> list[_Link]:
    """Every system output of the suite in item order. Executed on the session's connection: the ORM's row
    processing took half of the time for the 52,212 links of DFKI de-en (0.33 s of CPU against 0.17 s), which the
    Discriminative tab reads on each first look."""
    rows = session.connection().execute(
        select(Item.external_id, Item.position, System.name, SystemOutput.output_id)
        .join(SystemOutput, SystemOutput.item_id == Item.id)
        .join(System, System.id == SystemOutput.system_id)
        .where(Item.suite_id == suite_id, System.name.in_(systems))
        .order_by(Item.position, System.name))
    return [_Link(*row) for row in rows]


StoreWith = Callable[[Session, SegmentScores], None]
"""Writes what a caller derives from the scores, inside the transaction that caches them."""


READ_CHUNK = 5000
"""Output ids one ``SELECT … IN`` names: within the bound-value limits of SQLite (32,766 since 3.32) and
PostgreSQL, and few round trips for a suite."""
SCORE_CHUNK = 2000
"""Outputs scored between two progress reports and cancel checks (BERTScore: a few seconds of a CPU)."""


def output_scores(metric: Metric, db: Database, suite_id: int, output_ids: Sequence[int], refs: RefChoice,
                  task: TaskState) -> OutputScores:
    """The scores of ``output_ids`` under ``metric`` against ``refs``: a text metric's from the cache, the rest
    computed now (for the caller to cache: ``OutputScores.fresh``); a suite metric's as it gives them."""
    if isinstance(metric, SuiteMetric):
        return metric.output_scores(db, suite_id, output_ids, refs, task)
    if not isinstance(metric, TextMetric):
        raise TsqeError(f"{metric.name} {metric.spec.compares}: it has no score per output")
    if refs.combine != Combine.MULTI:
        return _joined_scores(metric, db, suite_id, output_ids, refs, task)
    signature = metric.signature_for(refs)
    with db.session() as session:
        try:
            references = references_of(session, suite_id, refs)
        except TsqeError as error:
            raise TsqeError(f"{metric.name} {metric.spec.compares}, and {error}") from error
        scores = cached_scores(session, suite_id, str(signature))
        todo = sorted(o for o in output_ids if o not in scores)
        texts: dict[int, tuple[str, int]] = {}
        for start in range(0, len(todo), READ_CHUNK):
            texts.update((o, (text, item_id)) for o, text, item_id in session.execute(
                select(Output.id, Output.text, Output.item_id).where(Output.id.in_(todo[start:start + READ_CHUNK]))))
    todo = [o for o in todo if texts[o][1] in references]
    fresh: dict[str, list[tuple[int, float]]] = {str(signature): []}
    for start in range(0, len(todo), SCORE_CHUNK):
        task.progress(start, len(todo), f"scoring output {start:,} of {len(todo):,} with {metric.name}")
        chunk = todo[start:start + SCORE_CHUNK]
        results = metric.score_many([texts[o][0] for o in chunk], [references[texts[o][1]] for o in chunk])
        for sibling, values in results.items():
            key = str(sibling.with_fields(*refs.signature_fields()))
            fresh.setdefault(key, []).extend(zip(chunk, map(float, values)))
    scores.update(fresh[str(signature)])
    wanted = {o: scores[o] for o in output_ids if o in scores}
    return OutputScores(signature, metric.higher_is_better, wanted,
                        fresh if todo else {}, unreferenced=len(output_ids) - len(wanted))


def _joined_scores(metric: TextMetric, db: Database, suite_id: int, output_ids: Sequence[int], refs: RefChoice,
                   task: TaskState) -> OutputScores:
    """The best (``max``) or the mean of the single-set scores, over the sets that have a reference for the
    output's item; each set's scores are cached under its own signature."""
    parts = [output_scores(metric, db, suite_id, output_ids, single, task) for single in refs.singles()]
    joined: dict[int, float] = {}
    for output_id in output_ids:
        values = [part.scores[output_id] for part in parts if output_id in part.scores]
        if values:
            joined[output_id] = float(combine(np.array(values), refs.combine, metric.higher_is_better))
    fresh = {key: rows for part in parts for key, rows in part.fresh.items()}
    return OutputScores(metric.signature_for(refs), metric.higher_is_better, joined, fresh,
                        unreferenced=len(output_ids) - len(joined))


def score_outputs(db: Database, metric_name: str | Metric, *, suite_name: str | None = None,
                  systems: Sequence[str] | None = None, refs: RefChoice | None = None,
                  options: MetricOptions | None = None, task: TaskState | None = None,
                  store_with: StoreWith | None = None) -> SegmentScores:
    """The outputs' scores under ``metric_name`` against ``refs`` (the default references when None); scores
    computed afresh are cached in one transaction. A caller that holds the metric already passes it, so that it
    is made once (a BERTScore model is loaded once), not resolved again by name.

    ``store_with`` writes in that same transaction (opened for it when nothing new was computed), so what a
    caller stores from the scores (a QE system, ``filters.qe_proxy``) and the cache it came with are
    committed together or not at all, even when the process is killed in between.
    """
    task = progress_of(task)
    refs = refs or RefChoice.default()
    metric = suite_metric(metric_name, options, db) if isinstance(metric_name, str) else metric_name
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        links = _links(session, suite_id, suite_systems(session, suite_id, systems))
    try:
        computed = output_scores(metric, db, suite_id, sorted({link.output_id for link in links}), refs, task)
        result = SegmentScores(
            metric=metric_name if isinstance(metric_name, str) else metric.name, signature=computed.signature,
            higher_is_better=computed.higher_is_better,
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
