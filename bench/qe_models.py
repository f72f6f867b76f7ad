"""Train and evaluate the features-svr QE baseline on MLQE-PE en-de (train HTER -> dev HTER).

Usage: PYTHONPATH=. python bench/qe_models.py [SHARED_DATA_DIR] [--target hter|da|da-z]
Prints the feature extraction speed, the training time, the cross-validated Pearson r of the grid search
and the Pearson r / Spearman rho / MAE / RMSE on the dev set.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from qe.datasets import load_qe_dataset
from qe.features import extract_features
from qe.features_svr import evaluate_regression, predict_features_svr, train_features_svr

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "external"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--target", choices=("hter", "da", "da-z"), default="hter")
    args = parser.parse_args()
    target = args.target
    root = args.data / "mlqe-pe" / "en-de"
    train = load_qe_dataset([root / "train"], target)
    dev = load_qe_dataset([root / "dev"], target)
    start = time.perf_counter()
    extract_features(train.sources, train.outputs)
    elapsed = time.perf_counter() - start
    print(f"features: {len(train)} pairs in {elapsed:.2f} s ({len(train) / elapsed:.0f} pairs/s)")
    start = time.perf_counter()
    trained = train_features_svr(train, folds=5, seed=0)
    print(f"train ({target}, grid search with 5-fold CV): {time.perf_counter() - start:.1f} s; "
          f"CV Pearson r = {trained.meta['cv']['pearson_mean']:.4f}; best {trained.meta['params']}")
    figures = evaluate_regression(predict_features_svr(trained.estimator, dev.sources, dev.outputs),
                                  np.asarray(dev.targets))
    print(f"dev ({figures['n']} sentences): Pearson r = {figures['pearson']:.4f}, Spearman rho = "
          f"{figures['spearman']:.4f}, MAE = {figures['mae']:.4f}, RMSE = {figures['rmse']:.4f}")


if __name__ == "__main__":
    main()
