"""QE systems: importing scores, training, predicting, a metric stored as QE, removing (the QE tab's writes).

Each changes the database's QE systems (``suite.changes.QE_SYSTEMS``); a cancelled training stores nothing (the
model is saved last).
"""
from __future__ import annotations

from gui.operations.runner import Write
from gui.operations.suite import said_of_import
from qe.training import TrainSummary, predict_qe_system, train_qe_system
from store import Database
from suite.changes import METRIC_SCORES, QE_SYSTEMS
from suite.importers import ImportResult, import_qe_scores
from suite.qe_scores import QESystemInfo, remove_qe_system
from suite.tasks import TaskState


def import_scores(db: Database, suite: str | None, path: str, name: str, lower_is_better: bool) -> Write[ImportResult]:
    return Write(f"importing QE scores {name!r}", lambda task: import_qe_scores(
        db, path, name=name, lower_is_better=lower_is_better, suite_name=suite, task=task), said=said_of_import)


def train(db: Database, suite: str | None, name: str, kind: str, data: list[str], target: str, folds: int,
          seed: int) -> Write[TrainSummary]:
    return Write(f"training {name!r} ({kind})", lambda task: train_qe_system(
        db, name=name, kind=kind, data=data, target=target, folds=folds, seed=seed, suite_name=suite, task=task),
        said=lambda summary: f"trained, {summary.scores:,} outputs of the suite scored", changes=lambda _: QE_SYSTEMS)


def predict(db: Database, suite: str | None, name: str) -> Write[int]:
    return Write(f"scoring the suite with {name!r}", lambda task: predict_qe_system(db, name, suite, task=task),
                 said=lambda count: f"{count:,} outputs scored", changes=lambda _: QE_SYSTEMS)


def metric_as_qe(db: Database, suite: str | None, metric: str, name: str | None,
                 refs: str = "") -> Write[QESystemInfo]:
    """``refs``: a reference entry as typed (blank: the default references)."""
    def work(task: TaskState) -> QESystemInfo:
        from filters.qe_proxy import store_metric_as_qe  # the metric libraries load only when asked for
        from suite.references import RefChoice

        return store_metric_as_qe(db, metric, name=name, suite_name=suite, refs=RefChoice.parse(refs), task=task)

    return Write(f"scoring with {metric} as QE", work,
                 said=lambda info: f"QE system {info.name!r} stored with {info.scores:,} scores",
                 changes=lambda _: QE_SYSTEMS | METRIC_SCORES)


def remove(db: Database, name: str) -> Write[int]:
    return Write(f"removing {name!r}", lambda task: remove_qe_system(db, name),
                 said=lambda scores: f"removed with its {scores:,} scores", changes=lambda _: QE_SYSTEMS)
