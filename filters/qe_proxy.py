"""A reference-based metric stored as a QE system, so accuracy and stability can rank it beside real QE.

A metric that sees the reference is not QE, but as an upper-bound proxy it tells how much of a suite's
pass/fail distinction a plain string comparison already catches. Its segment scores come from
:func:`filters.scoring.score_outputs` (cached per distinct output) and go into the QE tables through
:mod:`suite.qe_scores` like any other QE system's, with the metric's signature kept in the system's meta.
"""
from __future__ import annotations

from sqlalchemy.orm import Session

from filters.metrics import MetricOptions, metric_names, metric_spec
from filters.scoring import SegmentScores, score_outputs
from store import Database
from suite.errors import TsqeError
from suite.qe_scores import TIE_EPSILON_KEY, QESystemInfo, add_qe_system, list_qe_systems, replaceable_qe_system
from suite.references import RefChoice
from suite.tasks import TaskState


def proxy_metrics() -> list[str]:
    """The metrics a QE proxy can be made of: every metric that compares outputs with references (chrF first,
    the forms' default), difficulty-aware BERTScore included with its segment-level score (its token
    difficulty over all the suite's systems). The label and QE systems are not proxies of anything."""
    return metric_names(needs_references=True)


def store_metric_as_qe(db: Database, metric: str, *, name: str | None = None, suite_name: str | None = None,
                       refs: RefChoice | None = None, options: MetricOptions | None = None, replace: bool = False,
                       task: TaskState | None = None) -> QESystemInfo:
    """Score every output of the suite with ``metric`` against ``refs`` and store the scores as the QE system
    ``name``.

    Outputs of items without a reference get no score. ``name`` defaults to the metric's; an existing system
    of that name is an error unless ``replace`` is true (then it is replaced). The metric's cache and the
    system are written in one transaction: all of them or, cancelled, failed or killed, none. The system's
    meta keeps the signature and the metric's tie epsilon (the float noise below which two scores tie).
    """
    if metric not in proxy_metrics():
        raise TsqeError(f"metric {metric!r} cannot be stored as a QE system (metrics: {', '.join(proxy_metrics())})")
    system_name = name or metric
    with db.session() as session:  # refused before scoring, and again where the system is written
        replaceable_qe_system(session, system_name, replace=replace)

    def store(session: Session, result: SegmentScores) -> None:
        add_qe_system(session, name=system_name, kind="metric", higher_is_better=result.higher_is_better,
                      scores={row.output_id: row.score for row in result.rows},
                      meta={"metric": metric, "signature": str(result.signature), "refs": result.refs.label,
                            TIE_EPSILON_KEY: metric_spec(metric).tie_epsilon}, replace=replace)

    score_outputs(db, metric, suite_name=suite_name, refs=refs, options=options, task=task, store_with=store)
    return next(info for info in list_qe_systems(db) if info.name == system_name)
