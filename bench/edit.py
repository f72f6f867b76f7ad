"""Time single edits on the real DFKI de-en suite with the WMT21 systems' outputs, labelled: what a linguist waits
for after each save in the editor.

Usage: PYTHONPATH=. python bench/edit.py [SHARED_DATA_DIR] [EDITS]
Prints the median and the slowest of EDITS edits of each kind (spread over the suite's items), then the time of
re-importing every review of the suite's outputs with its history.
"""
from __future__ import annotations

import csv
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from sqlalchemy import select

from store import Database, open_database
from store.domain import Label, Polarity
from store.models import Item, Output, System, SystemOutput
from suite.editing.api import (
    ItemSnapshot,
    add_rule,
    change_rule,
    item_detail,
    remove_item,
    remove_rule,
    restore_item,
)
from suite.editing.review import OutputDecision, SeenOutput, decide
from suite.engine.labelling import relabel
from suite.importers import import_outputs, import_reviews, import_suite

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "external"


def timed(edits: Sequence[Callable[[], object]]) -> list[float]:
    times = []
    for edit in edits:
        start = time.perf_counter()
        edit()
        times.append(time.perf_counter() - start)
    return times


def report(name: str, times: list[float]) -> None:
    print(f"{name}: median {1000 * statistics.median(times):.1f} ms, slowest {1000 * max(times):.1f} ms "
          f"over {len(times)}")


def main() -> None:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DATA
    edits = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    with tempfile.TemporaryDirectory() as folder:
        db = open_database(Path(folder) / "bench.sqlite")
        import_suite(db, data / "mt-testsuite" / "testset" / "de-en" / "items.json")
        import_outputs(db, data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
        relabel(db)
        with db.session() as session:
            items = session.scalars(select(Item.id).order_by(Item.id)).all()
            picked = items[:: max(1, len(items) // edits)][:edits]
            outputs = session.scalars(select(Output.id).order_by(Output.id)).all()[:: 7][:edits]
        details = {item: item_detail(db, item) for item in picked}
        print(f"{len(items)} items, {len(outputs)} outputs reviewed, {len(picked)} items edited")
        report("item_detail", timed([partial(item_detail, db, item) for item in picked]))
        add = [partial(add_rule, db, item, Polarity.NEGATIVE, r"\bxyzzy\b", author="bench") for item in picked]
        report("add_rule", timed(add))
        added = [detail.rules[-1].id for detail in map(partial(item_detail, db), picked)]
        report("change_rule (first rule, pattern changed)", timed([
            partial(change_rule, db, d.rules[0].id, pattern=d.rules[0].spec.pattern + "|xyzzy", author="bench")
            for d in details.values() if d.rules]))
        report("remove_rule", timed([partial(remove_rule, db, rule, author="bench") for rule in added]))
        report("decide (one output)", timed([partial(decide, db, [OutputDecision(SeenOutput(output), Label.PASS)],
                                                     "bench") for output in outputs]))
        snapshots: list[ItemSnapshot] = []
        report("remove_item", timed([partial(_remove, db, item, snapshots) for item in picked]))
        report("restore_item", timed([partial(restore_item, db, s, author="bench") for s in snapshots]))
        reviews = Path(folder) / "reviews.tsv"
        _write_reviews(db, reviews)
        start = time.perf_counter()
        counts = import_reviews(db, reviews).counts
        print(f"import_reviews (every system output, one history entry per changed label): "
              f"{time.perf_counter() - start:.2f} s  {counts}")
        db.close()


def _remove(db: Database, item: int, snapshots: list[ItemSnapshot]) -> None:
    snapshots.append(remove_item(db, item, author="bench"))


def _write_reviews(db: Database, path: Path) -> None:
    """A review of every distinct output (through its first system), to time the bulk path."""
    with db.session() as session, path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file, dialect="excel-tab", lineterminator="\n")
        writer.writerow(["item_id", "system", "label", "reviewer"])
        seen: set[int] = set()
        for external_id, system, output_id in session.execute(
                select(Item.external_id, System.name, SystemOutput.output_id)
                .join(Item, Item.id == SystemOutput.item_id).join(System, System.id == SystemOutput.system_id)
                .order_by(SystemOutput.output_id, System.name)):
            if output_id not in seen:
                seen.add(output_id)
                writer.writerow([external_id, system, "fail" if output_id % 2 else "pass", "bulk"])


if __name__ == "__main__":
    main()
