"""Neighbour suggestions on the DFKI de-en suite, scored against labels they do not see (issue 20).

The protocol of the rule suggestions' benchmark (``bench/suggest.py`` on the rules-assist branch): for every item
with at least one passing and one failing output, a random half of its labelled outputs (``len // 2`` of them,
seeded) keep their labels and the other half become undecided. Each held-out output gets its neighbour
(``suite.assist.neighbours``) among the shown half. ``neighbour precision:`` is the share of held-out outputs
given a suggestion whose suggested label agrees with the linguists' label, ``neighbour decided:`` the share of
held-out outputs given one, ``items:`` how many items were scored; each the mean over the seeds. What keeps a
label is learned from the other items' labelled outputs, leaving out the scored item and the items with its
source sentence (175 source sentences of de-en are items twice), whose outputs would repeat the hidden ones.
``nearest precision:`` is the plain nearest decided output's agreement over all held-out outputs, for comparison.

Run: ``PYTHONPATH=$PWD python bench/suggest_neighbours.py [--db dfki.sqlite] [--data DIR] [--seeds 1 2 3]``;
without ``--db`` the suite and the WMT21 outputs are imported and labelled into a temporary database first.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from sqlalchemy import select

from store import Database, open_database
from store.models import Item
from suite.assist.neighbours import DecidedOutput, ItemOutputs, LabelKeeping, item_outputs, neighbour
from suite.importers import import_outputs, import_suite
from suite.labelling import relabel
from suite.rules import normalise
from suite.suites import find_suite

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "external"


@dataclass(frozen=True)
class Split:
    """One item as the neighbours see it (``shown``) and its labelled outputs they must not see."""

    item: ItemOutputs
    shown: ItemOutputs
    held_out: list[DecidedOutput]


def splits(items: list[ItemOutputs], seed: int) -> Iterator[Split]:
    """Per item with a passing and a failing output: half of its labelled outputs shown, in suite order."""
    rng = random.Random(seed)
    for item in items:
        labelled = item.decided
        if len({decided.label for decided in labelled}) < 2:
            continue
        order = list(range(len(labelled)))
        rng.shuffle(order)
        shown = tuple(labelled[i] for i in sorted(order[:len(labelled) // 2]))
        hidden = [labelled[i] for i in sorted(order[len(labelled) // 2:])]
        undecided = tuple(sorted((*item.undecided, *((d.output_id, d.text) for d in hidden))))
        yield Split(item, replace(item, decided=shown, undecided=undecided), hidden)


def build(data: Path, path: Path) -> Database:
    db = open_database(path)
    import_suite(db, data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    import_outputs(db, data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    relabel(db)
    return db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a database holding the labelled DFKI de-en suite (default: build one)")
    parser.add_argument("--data", type=Path, default=SHARED, help="the shared data directory")
    parser.add_argument("--suite", default=None, help="the suite's name when the database holds several")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(args.db) if args.db else build(args.data, Path(tmp) / "neighbours.sqlite")
        started = time.perf_counter()
        with db.session() as session:
            suite = find_suite(session, args.suite)
            items = item_outputs(session, suite.id)
            sources = {item_id: normalise(source) for item_id, source in
                       session.execute(select(Item.id, Item.source).where(Item.suite_id == suite.id))}
        keeping = LabelKeeping.of(items)
        twins: dict[str, list[int]] = defaultdict(list)
        for item in items:
            twins[sources[item.item_id]].append(item.item_id)
        print(f"read {len(items)} items and learned label-keeping changes in {time.perf_counter() - started:.1f} s")
        precisions, shares, counts, nearest_precisions = [], [], [], []
        for seed in args.seeds:
            started = time.perf_counter()
            suggested = right = held = scored = nearest_right = 0
            for split in splits(items, seed):
                scored += 1
                context = keeping.without(twins[sources[split.item.item_id]])
                for hidden in split.held_out:
                    held += 1
                    found = neighbour(split.shown, hidden.output_id, hidden.text, context)
                    if found is None:
                        continue
                    nearest_right += found.nearest.label == hidden.label
                    if found.label is not None:
                        suggested += 1
                        right += found.label == hidden.label
            precision = right / suggested if suggested else 0.0
            print(f"seed {seed}: precision {precision:.3f} ({right}/{suggested}), decided {suggested / held:.3f} "
                  f"({suggested}/{held}), nearest alone {nearest_right / held:.3f}, items {scored}, "
                  f"{time.perf_counter() - started:.1f} s")
            precisions.append(precision)
            shares.append(suggested / held)
            counts.append(scored)
            nearest_precisions.append(nearest_right / held)
        print(f"neighbour precision: {statistics.mean(precisions):.3f}")
        print(f"neighbour decided: {statistics.mean(shares):.3f}")
        print(f"nearest precision: {statistics.mean(nearest_precisions):.3f}")
        print(f"items: {statistics.mean(counts):.0f}")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
