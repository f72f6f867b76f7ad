"""``features-svr``: the WMT17 baseline recipe (B17) -- black-box features regressed on HTER or DA by an SVR.

The estimator is ``Pipeline(StandardScaler, SVR(kernel="rbf"))`` inside a ``TransformedTargetRegressor``
that standardises the target too, so that one grid of epsilon values (in standard deviations of the
target) suits HTER in [0, 1] and DA in [0, 100] alike. C, epsilon and gamma are chosen by a small grid
search scored by Pearson's r under K-fold cross-validation on the training data, and the model refitted on
all of it. The cross-validated r of the chosen parameters is kept in the model's meta.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import pearsonr, spearmanr
from sklearn.compose import TransformedTargetRegressor
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

from qe.datasets import QEDataset
from qe.estimators import library_versions
from qe.features import FEATURE_NAMES, TOKENIZER, extract_features
from suite.errors import TsqeError
from suite.tasks import TaskState, progress_of

PARAM_GRID: dict[str, list[Any]] = {
    "C": [0.3, 1.0, 3.0],
    "epsilon": [0.1, 0.5],
    "gamma": ["scale", 0.01],
}


@dataclass
class TrainedModel:
    estimator: Any
    meta: dict[str, Any]


def _pearson(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    if np.std(y_pred) == 0 or np.std(y_true) == 0:
        return 0.0
    return float(pearsonr(y_true, y_pred).statistic)


def train_features_svr(dataset: QEDataset, *, folds: int = 5, seed: int = 0,
                       task: TaskState | None = None) -> TrainedModel:
    task = progress_of(task)
    if folds < 2:
        raise TsqeError("cross-validation needs at least 2 folds")
    if len(dataset) < 2 * folds:
        raise TsqeError(f"{len(dataset)} training sentences are too few for {folds}-fold cross-validation")
    task.progress(0, 3, "features")
    X = extract_features(dataset.sources, dataset.outputs)
    y = np.asarray(dataset.targets, dtype=np.float64)
    task.progress(1, 3, "grid search")
    model = TransformedTargetRegressor(
        regressor=Pipeline([("scale", StandardScaler()), ("svr", SVR(kernel="rbf"))]), transformer=StandardScaler())
    grid = {f"regressor__svr__{key}": values for key, values in PARAM_GRID.items()}
    search = GridSearchCV(model, grid, scoring=make_scorer(_pearson),
                          cv=KFold(n_splits=folds, shuffle=True, random_state=seed), refit=True)
    search.fit(X, y)
    task.progress(3, 3, "done")
    best = search.best_index_
    fold_scores = [float(search.cv_results_[f"split{k}_test_score"][best]) for k in range(folds)]
    meta = {
        "model": "TransformedTargetRegressor(Pipeline(StandardScaler, SVR(kernel='rbf')), StandardScaler)",
        "features": list(FEATURE_NAMES),
        "tokenizer": TOKENIZER,
        "target": dataset.target,
        "higher_is_better": dataset.higher_is_better,
        "data": {"files": dataset.files, "sentences": len(dataset),
                 "target_mean": float(y.mean()), "target_std": float(y.std())},
        "params": {k.removeprefix("regressor__svr__"): (v if isinstance(v, str) else float(v))
                   for k, v in search.best_params_.items()},
        "cv": {"folds": folds, "seed": seed, "scoring": "pearson r", "pearson_mean": float(np.mean(fold_scores)),
               "pearson_per_fold": fold_scores, "grid": PARAM_GRID,
               "epsilon_unit": "standard deviations of the target"},
        "versions": library_versions(),
    }
    return TrainedModel(search.best_estimator_, meta)


def predict_features_svr(estimator: Any, sources: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    return np.asarray(estimator.predict(extract_features(sources, outputs)), dtype=np.float64)


def evaluate_regression(predicted: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    """The WMT sentence-level QE figures: Pearson's r (the primary one), Spearman's rho, MAE and RMSE."""
    return {"n": int(gold.size), "pearson": _pearson(gold, predicted),
            "spearman": float(spearmanr(gold, predicted).statistic),
            "mae": float(np.mean(np.abs(predicted - gold))),
            "rmse": float(np.sqrt(np.mean((predicted - gold) ** 2)))}
