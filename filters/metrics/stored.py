"""The pass/fail label and QE systems as metrics: scores the database holds already, read not computed.

They take no references: variance filtering, correlation and the QE proxies treat them like any metric.
"""
from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from filters.metrics.base import OutputScores, SuiteMetric
from filters.metrics.signature import Signature
from filters.metrics.spec_types import LABEL, MetricSpec
from store import Database
from suite.engine.labels import effective_labels_select
from suite.qe_scores import suite_qe_scores
from suite.references import RefChoice
from suite.tasks import TaskState

LABEL_SIGNATURE = Signature(LABEL, (("effective", ""), ("pass", "1"), ("fail", "0")))
"""The effective label (a reviewer's decision over the rules'): pass 1, fail 0, anything else no score."""


class LabelMetric(SuiteMetric):
    def __init__(self, spec: MetricSpec) -> None:
        self.spec = spec

    def output_scores(self, db: Database, suite_id: int, output_ids: Sequence[int], refs: RefChoice,
                      task: TaskState) -> OutputScores:
        self.refuse_references(refs)
        labels = effective_labels_select(suite_id).subquery()
        with db.session() as session:
            rows = session.execute(select(labels.c.output_id, labels.c.effective_label)
                                   .where(labels.c.effective_label.in_(("pass", "fail"))))
            scores = {output_id: 1.0 if label == "pass" else 0.0 for output_id, label in rows}
        wanted = set(output_ids)
        return OutputScores(LABEL_SIGNATURE, True, {o: v for o, v in scores.items() if o in wanted})


class QEMetric(SuiteMetric):
    def __init__(self, spec: MetricSpec, system: str) -> None:
        self.spec = spec
        self.system = system

    def output_scores(self, db: Database, suite_id: int, output_ids: Sequence[int], refs: RefChoice,
                      task: TaskState) -> OutputScores:
        self.refuse_references(refs)
        with db.session() as session:
            (qe,) = suite_qe_scores(session, suite_id, [self.system])
        wanted = set(output_ids)
        return OutputScores(Signature(self.name, (("kind", qe.kind),)), qe.higher_is_better,
                            {o: v for o, v in qe.by_output().items() if o in wanted})
