"""Rule and neighbour suggestions on the DFKI de-en suite, scored against labels they do not see (issue 20).

For every item with at least one passing and one failing output, the suggester sees the item without its rules
and known translations, and the labels of a random half of its labelled outputs (``len // 2`` of them, seeded);
the other half are undecided outputs to it, as are the outputs nobody decided. Its best suggestion (the first
it offers) labels the held-out half through the labelling engine. ``precision:`` is the share of held-out
outputs it decides whose label agrees with the linguists' label, ``decided:`` the share of held-out labelled
outputs it decides (both pooled over the items), ``items:`` how many items were scored, ``violations:`` the share
of best suggestions that contradict one of the item's known translations (a positive matching a known bad one,
a negative a known good one), which the suggester never reads; each is the mean over the seeds. With ``--split
systems`` the shown half is every output of a random half of the systems (seeded) and the held-out half the
outputs only the other systems produced: a suggestion must then carry over to systems it never saw.

What the rest of the suite teaches (``suite.assist.context``) comes from the other items' labelled outputs,
leaving out items with the same source sentence as the scored one (175 source sentences of de-en are items
twice), whose outputs would repeat the hidden ones; their rules and known translations are never read.

The neighbour suggestions (``suite.assist.neighbours``, what Review shows beside an undecided output) are scored
on the same halves: each held-out output gets its neighbour among the shown half, the same items left out of
what keeps a label. ``neighbour precision:`` is the share of held-out outputs given a suggestion whose label
agrees with the linguists' label, ``neighbour decided:`` the share of held-out outputs given one, and ``nearest
precision:`` the plain nearest decided output's agreement over all held-out outputs, for comparison.

Run: ``PYTHONPATH=$PWD python bench/suggest.py [--db dfki.sqlite] [--data DIR] [--seeds 1 2 3] [--split systems]``;
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
from store.models import System, SystemOutput
from suite.assist.context import SuggestionContext
from suite.assist.evidence import DecidedText, ItemEvidence, UndecidedOutput, suite_evidence
from suite.assist.neighbours import neighbour
from suite.assist.rule_suggestions import matcher, suggest_rules
from suite.engine.labelling import relabel
from suite.engine.rules import normalise
from suite.importers import import_outputs, import_suite
from suite.suites import find_suite

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "external"


@dataclass(frozen=True)
class Split:
    """One item as the suggester sees it (``shown``) and the labelled outputs it must not see (``held_out``)."""

    item: ItemEvidence
    shown: ItemEvidence
    held_out: list[DecidedText]


def splits(items: list[ItemEvidence], seed: int, systems: dict[int, frozenset[str]] | None = None
           ) -> Iterator[Split]:
    """Per item with a passing and a failing output: half of its labelled outputs shown, in suite order; with
    ``systems`` (output id -> the systems behind it), the outputs of a random half of the systems (an output
    any of them produced is shown)."""
    rng = random.Random(seed)
    shown_systems: frozenset[str] = frozenset()
    if systems is not None:
        names = sorted(set().union(*systems.values()))
        rng.shuffle(names)
        shown_systems = frozenset(names[:len(names) // 2])
    for item in items:
        labelled = item.decided_outputs()
        if len({decided.label for decided in labelled}) < 2:
            continue
        if systems is not None:
            shown_half = [d for d in labelled if systems.get(d.output_id or 0, frozenset()) & shown_systems]
            hidden = [d for d in labelled if not systems.get(d.output_id or 0, frozenset()) & shown_systems]
        else:
            order = list(range(len(labelled)))
            rng.shuffle(order)
            shown_half = [labelled[i] for i in sorted(order[:len(labelled) // 2])]
            hidden = [labelled[i] for i in sorted(order[len(labelled) // 2:])]
        undecided = tuple(sorted((*item.undecided, *(UndecidedOutput(d.output_id or 0, d.text) for d in hidden)),
                                 key=lambda output: output.output_id))
        yield Split(item, replace(item, decided=tuple(shown_half), undecided=undecided),
                    hidden)


def system_outputs(db: Database, suite: str | None) -> dict[int, frozenset[str]]:
    """Output id -> the systems that produced it."""
    found: defaultdict[int, set[str]] = defaultdict(set)
    with db.session() as session:
        suite_id = find_suite(session, suite).id
        for output_id, name in session.execute(select(SystemOutput.output_id, System.name)
                                               .join(System, System.id == SystemOutput.system_id)
                                               .where(System.suite_id == suite_id)):
            found[output_id].add(name)
    return {output_id: frozenset(names) for output_id, names in found.items()}


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
    parser.add_argument("--split", choices=("outputs", "systems"), default="outputs",
                        help="what the shown half is: half of each item's labelled outputs, or the outputs of half "
                             "of the systems (the others' outputs are never seen)")
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(args.db) if args.db else build(args.data, Path(tmp) / "suggest.sqlite")
        started = time.perf_counter()
        with db.session() as session:
            items = suite_evidence(session, find_suite(session, args.suite).id)
        systems = system_outputs(db, args.suite) if args.split == "systems" else None
        context = SuggestionContext.of(items)
        twins: dict[str, list[int]] = defaultdict(list)
        for item in items:
            twins[normalise(item.source)].append(item.item_id)
        print(f"read {len(items)} items and built the context in {time.perf_counter() - started:.1f} s")
        precisions, shares, counts, violation_shares = [], [], [], []
        neighbour_precisions, neighbour_shares, nearest_shares = [], [], []
        for seed in args.seeds:
            started = time.perf_counter()
            decided = right = held = scored = offered = suggested = suggested_right = nearest_right = 0
            violations = 0
            for split in splits(items, seed, systems):
                scored += 1
                held += len(split.held_out)
                left_out = context.without(twins[normalise(split.item.source)])
                for hidden in split.held_out:
                    near = neighbour(split.shown, hidden.output_id or 0, hidden.text, left_out.variants,
                                     left_out.excluded)
                    if near is not None:
                        nearest_right += near.nearest.label == hidden.label
                        if near.label is not None:
                            suggested += 1
                            suggested_right += near.label == hidden.label
                suggestions = suggest_rules(split.shown, left_out)
                if not suggestions:
                    continue
                offered += 1
                best = suggestions[0]
                decides = matcher(best.polarity, best.pattern, best.ignore_case)
                for hidden in split.held_out:
                    if decides(hidden.text):
                        decided += 1
                        right += hidden.label == best.label
                known = [d for d in split.item.decided if d.output_id is None]  # never shown to the suggester
                violations += any(d.label != best.label and decides(d.text) for d in known)
            precision = right / decided if decided else 0.0
            print(f"seed {seed}: precision {precision:.3f} ({right}/{decided}), decided {decided / held:.3f} "
                  f"({decided}/{held}), items {scored}, with a suggestion {offered}, violations "
                  f"{violations / offered if offered else 0.0:.3f} ({violations}/{offered}), "
                  f"{time.perf_counter() - started:.1f} s")
            violation_shares.append(violations / offered if offered else 0.0)
            neighbour_precision = suggested_right / suggested if suggested else 0.0
            print(f"seed {seed}: neighbour precision {neighbour_precision:.3f} ({suggested_right}/{suggested}), "
                  f"decided {suggested / held:.3f} ({suggested}/{held}), nearest alone {nearest_right / held:.3f}")
            precisions.append(precision)
            shares.append(decided / held)
            counts.append(scored)
            neighbour_precisions.append(neighbour_precision)
            neighbour_shares.append(suggested / held)
            nearest_shares.append(nearest_right / held)
        print(f"precision: {statistics.mean(precisions):.3f}")
        print(f"decided: {statistics.mean(shares):.3f}")
        print(f"items: {statistics.mean(counts):.0f}")
        print(f"violations: {statistics.mean(violation_shares):.3f}")
        print(f"neighbour precision: {statistics.mean(neighbour_precisions):.3f}")
        print(f"neighbour decided: {statistics.mean(neighbour_shares):.3f}")
        print(f"nearest precision: {statistics.mean(nearest_shares):.3f}")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
