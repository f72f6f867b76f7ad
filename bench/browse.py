"""Browsing speed on a million distinct outputs: the suite tree, a filtered first page, rows by id, an id list.

Setup (not timed): ``bench/label.py``'s builder fills a fresh SQLite database with the DFKI rules of one language
pair and the WMT21 outputs repeated until there are at least ``--outputs`` distinct outputs; the original
outputs are linked to the WMT21 systems that produced them (a system has one output per item, so the copies
belong to no system), the suite is labelled with ``relabel``, and every 100th output gets a manual label.

Timed, each ``--rounds`` times (the median is printed):

- ``tree``: ``suite_tree`` of the whole suite;
- ``filter``: ``browse_outputs`` first page of 100 rows plus the total, for the effective labels ``fail`` (rare)
  and ``pass`` (common) and for one system, the slowest of the three;
- ``rows``: ``output_rows`` of 100 ids spread over the suite;
- ``ids``: ``output_ids`` of every output whose effective label is ``fail`` (the id list a lazy table holds);
- ``preview``: a keystroke in the live preview (``PreviewSession``) of the item whose output count is closest to
  100, its stored rules plus three unsaved ones, the last of them being typed; the median keystroke after the
  first (the first reads the item).

Run: ``PYTHONPATH=$PWD python bench/browse.py [--outputs N] [--lp de-en|en-de] [--rounds N] [--data DIR]
[--db PATH]``; ``--db`` keeps the built database there, and reuses it (migrated to the current schema) when it
exists, so that a change can be timed again without the minute of setup.
"""
from __future__ import annotations

import argparse
import csv
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import func, insert, literal_column, select

from bench import label as label_bench
from store import Database, open_database
from store.bulk import insert_tuples
from store.domain import Label, Polarity
from store.models import Item, ItemLabelCounts, ManualLabel, Output, Suite, System, SystemOutput
from suite.engine.label_counts import ReviewMove, count_reviews
from suite.engine.labelling import relabel
from suite.engine.preview import Draft, DraftRule, PreviewSession, draft_of
from suite.engine.rules import RuleSpec
from suite.reading.browse import OutputFilter, browse_outputs, output_ids, output_rows
from suite.reading.tree import suite_tree


def link_systems(db: Database, outputs_file: Path) -> str:
    """Link each original output to the systems that produced it; return the system with most outputs."""
    with open(outputs_file, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader)
        produced = [(row[0], row[1], row[2].strip()) for row in reader if row[2].strip()]
    with db.transaction() as session:
        suite_id = session.scalar(select(Suite.id))
        systems = {name: session.scalar(insert(System).values(suite_id=suite_id, name=name).returning(System.id))
                   for name in sorted({system for _, system, _ in produced})}
        outputs = {(external, text): (item_id, output_id) for external, text, item_id, output_id in session.execute(
            select(Item.external_id, Output.text, Item.id, Output.id).join(Item, Item.id == Output.item_id))}
        rows = {(systems[system], *outputs[(external, text)]) for external, system, text in produced}
        insert_tuples(session.connection(), SystemOutput, ("system_id", "item_id", "output_id"),
                      sorted(rows))
    return max(systems, key=lambda name: sum(1 for _, system, _ in produced if system == name))


def review_every(db: Database, step: int) -> int:
    """A manual label on every ``step``-th output, alternating pass and fail, counted as every writer of reviews
    counts them; return how many."""
    with db.transaction() as session:
        ids = list(session.scalars(select(Output.id).order_by(Output.id)))[::step]
        rows = [(output_id, ("pass", "fail")[n % 2], "bench") for n, output_id in enumerate(ids)]
        insert_tuples(session.connection(), ManualLabel, ("output_id", "label", "reviewer"), rows,
                      {"reviewed_at": func.now(), "version": literal_column("1")})
        count_reviews(session.connection(), [ReviewMove(output_id, None, label) for output_id, label, _ in rows])
    return len(rows)


def median_seconds(work: Callable[[], object], rounds: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


TYPED = r"\b(bank|banks)\b"


def preview_keystroke(db: Database) -> tuple[float, int]:
    """The median keystroke of a live preview after the first, and how many outputs the item has."""
    with db.session() as session:
        item_id, outputs = session.execute(
            select(ItemLabelCounts.item_id, ItemLabelCounts.outputs)
            .order_by(func.abs(ItemLabelCounts.outputs - 100), ItemLabelCounts.item_id).limit(1)).one()
    stored = draft_of(db, item_id)
    previews = PreviewSession(db)
    seconds = []
    for typed in range(1, len(TYPED) + 1):
        unsaved = (DraftRule(RuleSpec(Polarity.POSITIVE, r"\bthe\b", True)),
                       DraftRule(RuleSpec(Polarity.NEGATIVE, r"\w+ing\b")),
                   DraftRule(RuleSpec(Polarity.NEGATIVE, TYPED[:typed])))
        started = time.perf_counter()
        previews.preview(item_id, Draft((*stored.rules, *unsaved), stored.known))
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds[1:]), outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=int, default=1_000_000, help="distinct outputs (minimum)")
    parser.add_argument("--lp", choices=("de-en", "en-de"), default="de-en")
    parser.add_argument("--rounds", type=int, default=3, help="timings per figure; the median is printed")
    parser.add_argument("--data", type=Path, default=label_bench.SHARED, help="the shared data folder")
    parser.add_argument("--db", type=Path, help="keep the database here; reuse it if it exists")
    args = parser.parse_args()
    label_bench.ITEMS = args.data / "mt-testsuite" / "testset" / "{lp}" / "items.json"
    label_bench.OUTPUTS = args.data / "wmt21-news-systems" / "dfki-testsuite-outputs.{lp}.tsv"

    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "browse.sqlite"
        started = time.perf_counter()
        if path.exists():
            db = open_database(path)
            with db.session() as session:
                system = session.scalars(select(System.name).join(SystemOutput).group_by(System.name)
                                         .order_by(func.count().desc(), System.name)).first() or ""
            print(f"setup: reused {path} ({time.perf_counter() - started:.1f} s to open and migrate)")
        else:
            built, _, copies = label_bench.load(path, args.lp, args.outputs)
            assert isinstance(built, Database)
            system = link_systems(built, Path(str(label_bench.OUTPUTS).format(lp=args.lp)))
            counts = relabel(built)
            reviews = review_every(built, 100)
            built.close()
            db = open_database(path)
            print(f"setup: {sum(counts.values())} distinct outputs ({copies} copies of each WMT21 output), labels "
                  f"{counts}, {reviews} reviews, {time.perf_counter() - started:.1f} s")

        tree_s, tree = median_seconds(lambda: suite_tree(db), args.rounds)
        by_label_s, by_label = median_seconds(
            lambda: browse_outputs(db, OutputFilter(label=Label.FAIL), limit=100), args.rounds)
        by_pass_s, by_pass = median_seconds(
            lambda: browse_outputs(db, OutputFilter(label=Label.PASS), limit=100), args.rounds)
        by_system_s, by_system = median_seconds(
            lambda: browse_outputs(db, OutputFilter(system=system), limit=100), args.rounds)
        every = output_ids(db)
        spread = every[::max(1, len(every) // 100)][:100]
        rows_s, _ = median_seconds(lambda: output_rows(db, spread), args.rounds)
        ids_s, ids = median_seconds(lambda: output_ids(db, OutputFilter(label=Label.FAIL)), args.rounds)
        preview_s, previewed = preview_keystroke(db)
        db.close()

    print(f"tree: {tree.counts.outputs} outputs, {len(tree.categories)} categories")  # type: ignore[attr-defined]
    print(f"filter label=fail: {by_label_s:.3f} s (total {by_label.total})")  # type: ignore[attr-defined]
    print(f"filter label=pass: {by_pass_s:.3f} s (total {by_pass.total})")  # type: ignore[attr-defined]
    print(f"filter system={system}: {by_system_s:.3f} s (total {by_system.total})")  # type: ignore[attr-defined]
    print(f"ids label=fail: {len(ids)} ids")  # type: ignore[arg-type]
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"tree: {tree_s:.3f} s")
    print(f"filter: {max(by_label_s, by_pass_s, by_system_s):.3f} s")
    print(f"rows: {rows_s:.4f} s")
    print(f"ids: {ids_s:.3f} s")
    print(f"preview: {preview_s:.4f} s ({previewed} outputs)")


if __name__ == "__main__":
    main()
