"""``pairwise-gb``: a comparative QE model in the spirit of the A17 WMT submissions.

A gradient-boosting classifier sees two outputs of the same source -- the difference of their black-box
features plus the source's own features -- and predicts the probability that the first is the better one.
It is trained on preference pairs (for a suite: every passing output against every failing output of an
item, by effective label), each pair used in both orders (A-B -> 1, B-A -> 0) so that the model learns no
order bias. Its prediction is made antisymmetric as ``p(A>B) = (P(A,B) + 1 - P(B,A)) / 2``.

A per-output score -- what accuracy tables and filters consume -- is the output's mean win probability
against every other distinct output of the same item (a round-robin tournament); an item with a single
output gives it 0.5. Higher is better.

Cross-validation is grouped by item (``GroupKFold``): an item's pairs are never split between training and
test folds, so the reported accuracy is measured on unseen items. When the model is trained on a suite,
that suite's outputs are scored OUT-OF-FOLD -- by the fold model that never saw their item -- because
scoring them with the model trained on all pairs would measure training accuracy. Items that yield no
pair (all outputs pass, all fail, or unlabelled) never enter training and are scored by the final model.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import GroupKFold
from threadpoolctl import threadpool_limits

from qe.estimators import library_versions
from qe.features import FEATURE_NAMES, SOURCE_ONLY_FEATURES, TOKENIZER, extract_features
from suite.errors import TsqeError
from suite.tasks import TaskState, progress_of

_OUTPUT_COLUMNS = np.array([i for i, name in enumerate(FEATURE_NAMES) if name not in SOURCE_ONLY_FEATURES])
_SOURCE_COLUMNS = np.array([i for i, name in enumerate(FEATURE_NAMES) if name in SOURCE_ONLY_FEATURES])
PAIR_FEATURE_NAMES: tuple[str, ...] = (
    *(f"diff_{FEATURE_NAMES[i]}" for i in _OUTPUT_COLUMNS),
    *(FEATURE_NAMES[i] for i in _SOURCE_COLUMNS),
)
CLASSIFIER_PARAMS: dict[str, Any] = {"max_iter": 200, "learning_rate": 0.05, "max_leaf_nodes": 15,
                                     "l2_regularization": 1.0, "early_stopping": False}


@dataclass(frozen=True)
class Preferences:
    """Preference pairs as row indices into a feature matrix: ``better[k]`` is preferred to ``worse[k]``."""

    better: np.ndarray
    worse: np.ndarray
    group: np.ndarray  # the item each pair belongs to; cross-validation never splits a group


@dataclass
class PairwiseResult:
    estimator: Any
    scores: np.ndarray  # one score per feature row; out-of-fold for items that took part in training
    meta: dict[str, Any]


def pair_design(features: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The classifier's input for ordered pairs of rows: output-feature differences, then source features."""
    return np.hstack([features[first][:, _OUTPUT_COLUMNS] - features[second][:, _OUTPUT_COLUMNS],
                      features[first][:, _SOURCE_COLUMNS]])


def _fit(features: np.ndarray, better: np.ndarray, worse: np.ndarray, seed: int) -> HistGradientBoostingClassifier:
    X = np.vstack([pair_design(features, better, worse), pair_design(features, worse, better)])
    y = np.concatenate([np.ones(better.size, dtype=np.int8), np.zeros(better.size, dtype=np.int8)])
    return HistGradientBoostingClassifier(random_state=seed, **CLASSIFIER_PARAMS).fit(X, y)


def win_probability(estimator: Any, features: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Antisymmetric probability that row ``first[k]`` is better than row ``second[k]``."""
    if first.size == 0:
        return np.zeros(0)
    forward = estimator.predict_proba(pair_design(features, first, second))[:, 1]
    backward = estimator.predict_proba(pair_design(features, second, first))[:, 1]
    return np.asarray((forward + 1.0 - backward) / 2.0)


def tournament_scores(estimator: Any, features: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Per row: mean win probability against every other row of its group; 0.5 when it is alone."""
    with threadpool_limits(limits=1, user_api="openmp"):
        return _tournament_scores(estimator, features, groups)


def _tournament_scores(estimator: Any, features: np.ndarray, groups: np.ndarray) -> np.ndarray:
    groups = np.asarray(groups)
    order = np.argsort(groups, kind="stable")
    _, starts, sizes = np.unique(groups[order], return_index=True, return_counts=True)
    firsts, seconds = [], []
    for start, size in zip(starts, sizes):
        if size < 2:
            continue
        members = order[start:start + size]
        i, j = np.meshgrid(members, members, indexing="ij")
        off_diagonal = i != j
        firsts.append(i[off_diagonal])
        seconds.append(j[off_diagonal])
    scores = np.full(groups.size, 0.5)
    if not firsts:
        return scores
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    # One direction per unordered pair suffices: p(B>A) = 1 - p(A>B) by construction.
    half = first < second
    p = win_probability(estimator, features, first[half], second[half])
    wins = np.zeros(groups.size)
    np.add.at(wins, first[half], p)
    np.add.at(wins, second[half], 1.0 - p)
    opponents = np.zeros(groups.size)
    np.add.at(opponents, first, 1.0)
    alone = opponents == 0
    scores[~alone] = wins[~alone] / opponents[~alone]
    return scores


def pair_accuracy(p_better: np.ndarray) -> float:
    """Share of pairs whose preferred side wins; an exact 0.5 counts half."""
    return float(np.mean((p_better > 0.5) + 0.5 * (p_better == 0.5))) if p_better.size else float("nan")


def item_folds(groups: np.ndarray, folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train, test) index arrays over pairs such that no item has pairs on both sides of a split."""
    splitter = GroupKFold(n_splits=folds, shuffle=True, random_state=seed)
    return list(splitter.split(np.zeros((groups.size, 1)), groups=groups))


def train_pairwise_gb(sources: Sequence[str], outputs: Sequence[str], groups: np.ndarray, prefs: Preferences, *,
                      folds: int = 5, seed: int = 0, task: TaskState | None = None) -> PairwiseResult:
    """Cross-validate grouped by item, score every row out-of-fold, then fit the final model on all pairs.

    ``groups`` gives each (source, output) row its item; ``prefs`` indexes into the same rows.
    """
    # HistGradientBoosting's OpenMP threads spin while waiting; on a busy two-core machine that made one
    # fit 30 times slower than a single thread, which fits a suite's pairs in seconds.
    with threadpool_limits(limits=1, user_api="openmp"):
        return _train_pairwise_gb(sources, outputs, groups, prefs, folds, seed, progress_of(task))


def _train_pairwise_gb(sources: Sequence[str], outputs: Sequence[str], groups: np.ndarray, prefs: Preferences,
                       folds: int, seed: int, task: TaskState) -> PairwiseResult:
    if folds < 2:
        raise TsqeError("cross-validation needs at least 2 folds")
    pair_items = np.unique(prefs.group)
    if pair_items.size < folds:
        raise TsqeError(f"only {pair_items.size} item(s) have a pass/fail pair; {folds}-fold cross-validation "
                        f"needs at least {folds} (label more outputs or use fewer folds)")
    features = extract_features(sources, outputs)
    groups = np.asarray(groups)
    scores = np.full(groups.size, np.nan)
    fold_accuracy, fold_sizes = [], []
    held_out_p = np.full(prefs.better.size, np.nan)
    for k, (train, test) in enumerate(item_folds(prefs.group, folds, seed)):
        task.progress(k, folds + 1, f"fold {k + 1} of {folds}")
        model = _fit(features, prefs.better[train], prefs.worse[train], seed)
        held_out_p[test] = win_probability(model, features, prefs.better[test], prefs.worse[test])
        fold_accuracy.append(pair_accuracy(held_out_p[test]))
        fold_sizes.append(int(test.size))
        rows = np.flatnonzero(np.isin(groups, np.unique(prefs.group[test])))
        scores[rows] = tournament_scores(model, features[rows], groups[rows])
    task.progress(folds, folds + 1, "final model")
    final = _fit(features, prefs.better, prefs.worse, seed)
    unscored = np.flatnonzero(np.isnan(scores))
    scores[unscored] = tournament_scores(final, features[unscored], groups[unscored])
    task.progress(folds + 1, folds + 1, "done")
    by_scores = scores[prefs.better] - scores[prefs.worse]
    meta = {
        "model": "HistGradientBoostingClassifier over output-feature differences and source features",
        "classifier_params": dict(CLASSIFIER_PARAMS, random_state=seed),
        "features": list(FEATURE_NAMES),
        "pair_features": list(PAIR_FEATURE_NAMES),
        "tokenizer": TOKENIZER,
        "higher_is_better": True,
        "score": "mean antisymmetrised win probability against the other distinct outputs of the same item "
                 "(0.5 for an item with a single output)",
        "training": {"pairs": int(prefs.better.size), "items": int(pair_items.size),
                     "augmentation": "each pair in both orders (A-B -> 1, B-A -> 0)"},
        "cv": {"folds": folds, "seed": seed, "splitter": "GroupKFold(shuffle=True) grouped by item",
               "pair_accuracy": pair_accuracy(held_out_p),
               "pair_accuracy_per_fold": fold_accuracy, "pairs_per_fold": fold_sizes,
               "score_accuracy": pair_accuracy(0.5 + np.sign(by_scores) / 2),
               "note": "pair_accuracy: held-out pairs judged by the fold model's win probability; "
                       "score_accuracy: the same pairs judged by the stored out-of-fold output scores "
                       "(ties count half)"},
        "versions": library_versions(),
    }
    return PairwiseResult(final, scores, meta)
