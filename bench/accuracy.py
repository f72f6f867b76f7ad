"""Benchmark: pair building and pairwise accuracy with 1,000 bootstrap resamples on >= 1,000,000 pairs.

Run: ``PYTHONPATH=$PWD python bench/accuracy.py [--items N] [--resamples B] [--seed S]``

Synthetic data shaped like the DFKI suite with 20 MT systems: items in 14 categories and ~100 phenomena,
3-12 distinct outputs per item, a per-item pass rate drawn from a Beta distribution (some items are easy,
some hard), ~8 % of outputs unknown/conflict/error; five QE systems of different quality, both directions,
one with coarse (tie-prone) scores and one that misses 2 % of the outputs.

Timed, with the library functions the CLI uses:
- ``pairs_from_outputs`` (building every pass/fail pair from the labelled outputs),
- ``pairwise_accuracy`` per category with the bootstrap and the paired significance (per-item sums,
  1,000 item resamples for all five systems, intervals, best marks, Total and weighed).
Not timed: generating the synthetic data, and the database reads that precede these on the CLI path
(``read_labelled_outputs``, ``read_qe_scores``), which depend on the database rather than on this code.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from qe.accuracy import pairwise_accuracy
from qe.pairs import LabelledOutputs, pairs_from_outputs
from suite.domain import Ties
from suite.qe_scores import QEScores


def synthetic_suite(n_items: int, rng: np.random.Generator) -> LabelledOutputs:
    categories = np.array([f"category {c:02d}" for c in range(14)], dtype=object)
    item_category = rng.integers(0, categories.size, n_items)
    item_phenomenon_number = rng.integers(0, 7, n_items)
    phenomena = np.empty(n_items, dtype=object)
    phenomena[:] = [f"{categories[c]} / phenomenon {p}" for c, p in zip(item_category, item_phenomenon_number)]
    outputs_per_item = rng.integers(3, 13, n_items)
    output_item = np.repeat(np.arange(n_items), outputs_per_item)
    n = output_item.size
    pass_rate = rng.beta(2.0, 2.0, n_items)[output_item]
    labels = np.where(rng.random(n) < pass_rate, "pass", "fail").astype(object)
    other = rng.random(n)
    labels[other < 0.05] = "unknown"
    labels[(other >= 0.05) & (other < 0.07)] = "conflict"
    labels[(other >= 0.07) & (other < 0.08)] = "error"
    item_ids = np.empty(n_items, dtype=object)
    item_ids[:] = [str(i) for i in range(n_items)]
    blank = np.empty(n, dtype=object)
    blank[:] = ""
    return LabelledOutputs(item_ids=item_ids, item_categories=categories[item_category],
                           item_phenomena=phenomena, output_ids=np.arange(1, n + 1, dtype=np.int64),
                           output_item=output_item, labels=labels, output_texts=blank, output_systems=blank.copy())


def qe_systems(outputs: LabelledOutputs, rng: np.random.Generator) -> list[QEScores]:
    good = (outputs.labels == "pass").astype(float)
    n = good.size
    ids = outputs.output_ids
    coarse = np.round(good + rng.normal(0, 0.8, n))  # few distinct values: many ties
    covered = rng.random(n) > 0.02
    return [
        QEScores("strong", True, ids, good + rng.normal(0, 0.5, n)),
        QEScores("medium-lower-better", False, ids, -(good + rng.normal(0, 1.0, n))),
        QEScores("coarse", True, ids, coarse),
        QEScores("partial", True, ids[covered], (good + rng.normal(0, 1.5, n))[covered]),
        QEScores("random", True, ids, rng.normal(0, 1, n)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=160_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    outputs = synthetic_suite(args.items, rng)
    systems = qe_systems(outputs, rng)
    print(f"cores: {os.cpu_count()}; items: {outputs.item_ids.size:,}; distinct outputs: "
          f"{outputs.output_ids.size:,}; QE systems: {len(systems)}; resamples: {args.resamples}")

    start = time.perf_counter()
    pairs = pairs_from_outputs(outputs)
    built = time.perf_counter() - start
    print(f"pairs: {len(pairs):,} built in {built:.2f} s")
    if len(pairs) < 1_000_000:
        raise SystemExit("fewer than 1,000,000 pairs: raise --items")

    start = time.perf_counter()
    result = pairwise_accuracy(pairs, systems, by="category", ties=Ties.HALF, bootstrap=args.resamples,
                               seed=args.seed)
    scored = time.perf_counter() - start
    print(f"accuracy per category + {args.resamples} item-bootstrap resamples + paired significance: "
          f"{scored:.2f} s")
    print(f"total (pair building + accuracy with statistics): {built + scored:.2f} s (target < 10 s)")

    start = time.perf_counter()
    by_phenomenon = pairwise_accuracy(pairs, systems, by="phenomenon", bootstrap=args.resamples, seed=args.seed)
    print(f"for comparison, per phenomenon ({len(by_phenomenon.rows)} rows): "
          f"{time.perf_counter() - start:.2f} s")

    for name in result.qe_systems:
        low, high = result.total.ci[name]
        print(f"  {name:<20} Total {result.total.accuracy[name]:.4f} [{low:.4f}, {high:.4f}]  "
              f"weighed {result.weighed.accuracy[name]:.4f}  counted {result.total.counted[name]:,}")
    print(f"  best (Total): {', '.join(result.total.best)}")


if __name__ == "__main__":
    main()
