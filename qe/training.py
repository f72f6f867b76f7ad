"""Training, predicting with and evaluating the built-in QE systems, from the database's point of view.

This is the one place that ties datasets, suites and estimators to stored QE systems, so the CLI and the GUI
drive the same code. The estimators' modules (scikit-learn, SciPy, joblib: about a second to import) are imported
by the functions that train or load a model: every ``tsqe`` command imports this module for its choices.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from qe.datasets import load_qe_dataset
from qe.features import check_feature_names, extract_features
from qe.outputs import SuiteOutputs, read_suite_outputs
from qe.pairs import build_pairs
from store import Database
from suite.errors import TsqeError
from suite.qe_scores import list_qe_systems, load_qe_system, save_qe_system, set_scores
from suite.tasks import TaskState, progress_of

if TYPE_CHECKING:
    from qe.pairwise_gb import Preferences

TRAINABLE_KINDS = ("features-svr", "pairwise-gb")


@dataclass
class TrainSummary:
    system_id: int
    meta: dict[str, Any]
    scores: int


def _refuse_clash(db: Database, name: str, replace: bool) -> None:
    """Fail before minutes of training rather than at the save."""
    if not replace and any(s.name == name for s in list_qe_systems(db)):
        raise TsqeError(f"a QE system named {name!r} already exists (choose another name or replace it)")


def suite_preferences(db: Database, outputs: SuiteOutputs) -> Preferences:
    """The suite's pass/fail pairs (``qe.pairs``, effective labels) as preferences between rows of ``outputs``."""
    from qe.pairwise_gb import Preferences

    pairs = build_pairs(db, outputs.suite_name)
    order = np.argsort(outputs.output_ids)

    def rows(output_ids: np.ndarray) -> np.ndarray:
        return order[np.searchsorted(outputs.output_ids, output_ids, sorter=order)]

    better = rows(pairs.pass_output_ids)
    return Preferences(better, rows(pairs.fail_output_ids), outputs.item_ids[better])


def train_qe_system(db: Database, *, name: str, kind: str, data: Sequence[str] = (), target: str = "hter",
                    folds: int = 5, seed: int = 0, suite_name: str | None = None, replace: bool = False,
                    task: TaskState | None = None) -> TrainSummary:
    """Train a QE model and store it; ``pairwise-gb`` also stores its out-of-fold scores of the suite."""
    from qe.estimators import dump_estimator
    from qe.features_svr import train_features_svr
    from qe.pairwise_gb import train_pairwise_gb

    # Importing scikit-learn takes 1.4 s of CPU, 13 s of a loaded machine's time: a cancel asked meanwhile stops
    # here, before the suite is read.
    progress_of(task).raise_if_cancelled()
    if kind not in TRAINABLE_KINDS:
        raise TsqeError(f"cannot train a QE system of kind {kind!r} (trainable: {', '.join(TRAINABLE_KINDS)})")
    _refuse_clash(db, name, replace)
    if kind == "features-svr":
        if not data:
            raise TsqeError("features-svr trains on a QE dataset: name one (e.g. an MLQE-PE train prefix)")
        dataset = load_qe_dataset(data, target)
        trained = train_features_svr(dataset, folds=folds, seed=seed, task=task)
        system_id = save_qe_system(db, name=name, kind=kind, higher_is_better=dataset.higher_is_better, scores={},
                                   meta=trained.meta, model=dump_estimator(trained.estimator), replace=replace)
        return TrainSummary(system_id, trained.meta, 0)
    if data:
        raise TsqeError("pairwise-gb trains on the suite's own pass/fail pairs, not on a QE dataset")
    outputs = read_suite_outputs(db, suite_name)
    prefs = suite_preferences(db, outputs)
    result = train_pairwise_gb(outputs.sources, outputs.texts, outputs.item_ids, prefs, folds=folds, seed=seed,
                               task=task)
    result.meta["training"]["suite"] = outputs.suite_name
    result.meta["scores_out_of_fold"] = (
        f"the scores of suite {outputs.suite_name!r} are out-of-fold: each item's outputs were scored by the "
        f"model trained without that item; the stored estimator (trained on all pairs) scores other suites")
    scores = dict(zip(outputs.output_ids.tolist(), result.scores.tolist()))
    system_id = save_qe_system(db, name=name, kind=kind, higher_is_better=True, scores=scores, meta=result.meta,
                               model=dump_estimator(result.estimator), replace=replace)
    return TrainSummary(system_id, result.meta, len(scores))


def _load_model(db: Database, name: str) -> tuple[Any, Any]:
    from qe.estimators import load_estimator

    stored = load_qe_system(db, name)
    if stored.kind not in TRAINABLE_KINDS or stored.model is None:
        raise TsqeError(f"QE system {name!r} ({stored.kind}) holds no trained model to predict with")
    check_feature_names(stored.meta.get("features", ()), name)
    return stored, load_estimator(stored.model, stored.meta, name)


def predict_qe_system(db: Database, name: str, suite_name: str | None = None, task: TaskState | None = None) -> int:
    """Score every distinct output of a suite with a trained model and store the scores; returns the count.

    A model saved under other library versions loads with a ``VersionMismatchWarning``. The scores are
    stored after the last progress report, so a cancel stores none.
    """
    from qe.features_svr import predict_features_svr
    from qe.pairwise_gb import tournament_scores

    task = progress_of(task)
    task.progress(0, 2, f"loading QE model {name!r}")
    stored, estimator = _load_model(db, name)
    outputs = read_suite_outputs(db, suite_name)
    if len(outputs) == 0:
        raise TsqeError(f"suite {outputs.suite_name!r} has no MT outputs to score")
    if stored.kind == "pairwise-gb":
        if stored.meta.get("training", {}).get("suite") == outputs.suite_name:
            raise TsqeError(f"QE system {name!r} was trained on suite {outputs.suite_name!r}; its out-of-fold scores "
                            f"of that suite were stored at training time (scoring it with the final model would "
                            f"measure training accuracy) -- train it again to refresh them")
        predicted = tournament_scores(estimator, extract_features(outputs.sources, outputs.texts), outputs.item_ids)
    else:
        task.progress(1, 2, f"scoring {len(outputs):,} outputs with {name!r}")
        predicted = predict_features_svr(estimator, outputs.sources, outputs.texts)
    task.progress(2, 2, f"storing the scores of {name!r}")
    return set_scores(db, name, dict(zip(outputs.output_ids.tolist(), predicted.tolist())))


def evaluate_qe_system(db: Database, name: str, data: Sequence[str], target: str | None = None) -> dict[str, float]:
    """Pearson/Spearman/MAE/RMSE of a features-svr model on held-out QE data (e.g. MLQE-PE dev)."""
    from qe.features_svr import evaluate_regression, predict_features_svr

    stored, estimator = _load_model(db, name)
    if stored.kind != "features-svr":
        raise TsqeError(f"only features-svr models can be evaluated on QE data; {name!r} is {stored.kind}")
    dataset = load_qe_dataset(data, target or stored.meta["target"])
    predicted = predict_features_svr(estimator, dataset.sources, dataset.outputs)
    return evaluate_regression(predicted, np.asarray(dataset.targets))
