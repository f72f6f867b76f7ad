"""Segment scores of a suite's system outputs under one metric, cached per distinct output.

Text metrics score each distinct output once (systems that produced the same text share it) against its
item's references, and the scores are kept in ``metric_scores`` under the metric's signature, so a later
call, another system or another command only computes what is new. The same interface also serves the
pass/fail label (effective label: pass = 1, fail = 0, anything else missing) and any QE system's scores
(``qe:NAME``), so variance filtering and correlation treat all of them alike.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from filters.metrics import Metric, get_metric
from store import Database
from store.models import Item, MetricScore, Output, Reference, System, SystemOutput
from suite.errors import TsqeError
from suite.labels import effective_labels_select
from suite.qe_scores import suite_qe_scores
from suite.suites import find_suite
from suite.tasks import Cancelled, TaskState, progress_of

LABEL_METRIC = "label"
QE_PREFIX = "qe:"
LABEL_SIGNATURE = "label|effective|pass:1|fail:0"
SCORE_CHUNK = 2000


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
    signature: str
    higher_is_better: bool
    rows: list[ScoreRow]

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
                  systems: Sequence[str] | None = None, model: str | None = None, layers: int | None = None,
                  device: str | None = None, task: TaskState | None = None,
                  store_with: StoreWith | None = None) -> SegmentScores:
    """The outputs' scores under ``metric_name``; scores computed afresh are cached in one transaction.

    ``store_with`` writes in that same transaction (opened for it when nothing new was computed), so what a
    caller stores from the scores (a QE system, ``filters.qe_proxy``) and the cache it came with are
    committed together or not at all, even when the process is killed in between.
    """
    task = progress_of(task)
    scores: dict[int, float] | None = None
    metric: Metric | None = None
    fresh: dict[str, list[tuple[int, float]]] = {}
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        links = _links(session, suite_id, suite_systems(session, suite_id, systems))
        if metric_name == LABEL_METRIC:
            signature, higher, scores = LABEL_SIGNATURE, True, _label_scores(session, suite_id)
        elif metric_name.startswith(QE_PREFIX):
            signature, higher, scores = _qe_scores(session, suite_id, metric_name[len(QE_PREFIX):])
    try:
        if scores is None:
            metric = get_metric(metric_name, model=model, layers=layers, device=device, db=db)
            signature, higher = metric.signature, metric.higher_is_better
            scores, fresh = _text_metric_scores(db, suite_id, metric, sorted({link.output_id for link in links}),
                                                task)
        result = SegmentScores(metric=metric_name, signature=signature, higher_is_better=higher, rows=[
            ScoreRow(link.item_id, link.position, link.system, link.output_id, scores[link.output_id])
            for link in links if link.output_id in scores])
        if fresh or store_with is not None:
            # The last report comes before the commit: a run cancelled at it stores nothing.
            with db.transaction() as session:
                _cache(session, suite_id, fresh, None if metric is None else metric.signature)
                if store_with is not None:
                    store_with(session, result)
                if metric is not None and fresh:
                    computed = len(fresh[metric.signature])
                    task.progress(computed, computed, f"scored {computed:,} outputs with {metric.name}")
    except Cancelled:
        if metric is not None:
            metric.forget_stored()
        raise
    return result


def _label_scores(session: Session, suite_id: int) -> dict[int, float]:
    labels = effective_labels_select(suite_id).subquery()
    rows = session.execute(select(labels.c.output_id, labels.c.effective_label)
                           .where(labels.c.effective_label.in_(("pass", "fail"))))
    return {output_id: 1.0 if label == "pass" else 0.0 for output_id, label in rows}


def _qe_scores(session: Session, suite_id: int, name: str) -> tuple[str, bool, dict[int, float]]:
    (qe,) = suite_qe_scores(session, suite_id, [name])
    return f"{QE_PREFIX}{name}|kind:{qe.kind}", qe.higher_is_better, qe.by_output()


def _cached(session: Session, suite_id: int, signature: str) -> dict[int, float]:
    rows = session.execute(select(MetricScore.output_id, MetricScore.score)
                           .join(Output, Output.id == MetricScore.output_id)
                           .join(Item, Item.id == Output.item_id)
                           .where(Item.suite_id == suite_id, MetricScore.signature == signature))
    return dict(rows.all())


def _text_metric_scores(db: Database, suite_id: int, metric: Metric, output_ids: list[int],
                        task: TaskState) -> tuple[dict[int, float], dict[str, list[tuple[int, float]]]]:
    """Cached scores plus fresh ones for outputs not yet scored under this signature, and the fresh ones by
    signature (siblings included) for the caller to cache."""
    with db.session() as session:
        scores = _cached(session, suite_id, metric.signature)
        todo = [o for o in output_ids if o not in scores]
        if not todo:
            return scores, {}
        references: dict[int, list[str]] = {}
        for item_id, text in session.execute(select(Reference.item_id, Reference.text).join(Item)
                                             .where(Item.suite_id == suite_id).order_by(Reference.id)):
            references.setdefault(item_id, []).append(text)
        if not references:
            raise TsqeError(f"{metric.name} compares outputs with references, and this suite has none")
        texts = {o: (text, item_id) for o, text, item_id in session.execute(
            select(Output.id, Output.text, Output.item_id).join(Item).where(Item.suite_id == suite_id))}
        todo = [o for o in todo if texts[o][1] in references]
    fresh: dict[str, list[tuple[int, float]]] = {metric.signature: []}
    for start in range(0, len(todo), SCORE_CHUNK):
        task.progress(start, len(todo), f"scoring output {start:,} of {len(todo):,} with {metric.name}")
        chunk = todo[start:start + SCORE_CHUNK]
        results = metric.score_many([texts[o][0] for o in chunk], [references[texts[o][1]] for o in chunk])
        for signature, values in results.items():
            fresh.setdefault(signature, []).extend(zip(chunk, map(float, values)))
    scores.update(fresh[metric.signature])
    return scores, fresh


def _cache(session: Session, suite_id: int, fresh: dict[str, list[tuple[int, float]]], signature: str | None) -> None:
    """Store fresh scores in the caller's transaction; of a sibling signature's, only those not cached yet."""
    for sibling, computed in fresh.items():
        done = set() if sibling == signature else set(_cached(session, suite_id, sibling))
        rows = [{"signature": sibling, "output_id": o, "score": v} for o, v in computed if o not in done]
        if rows:
            session.execute(insert(MetricScore), rows)
