"""Live preview speed: one keystroke's ``PreviewSession.preview`` on an item with 100 outputs and 3 unsaved rules.

Setup (not timed): the DFKI de-en suite and the WMT21 outputs on it go into a fresh SQLite database; the item
with the most distinct outputs is padded to ``--outputs`` distinct outputs with copies suffixed `` [k]``, and
the suite is labelled. The draft is the item's stored rules plus three unsaved rules; each keystroke types
one more character of the third rule's pattern, so no two previews see the same draft.

Timed: ``--keystrokes`` previews through one session (the first one reads the item, every later one only
checks its stamp), and for comparison ``preview_item`` without a session, which reads the item each time;
then what adding one rule to every item of the suite would flip (``preview_scope``).
``preview:`` is the median keystroke of the session after the first (wall time; its CPU time is printed
beside, since the shared machine's load stretches wall times).

Run: ``PYTHONPATH=$PWD python bench/preview.py [--data DIR] [--outputs N] [--keystrokes N]``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, insert, select

from store import open_database
from store.domain import Polarity
from store.models import Output
from suite.engine.labelling import relabel
from suite.engine.preview import (
    Draft,
    DraftRule,
    PreviewSession,
    draft_of,
    preview_item,
    preview_scope,
)
from suite.engine.rules import RuleSpec
from suite.importers import import_outputs, import_suite

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "external"
TYPED = r"\b(has|had|have) (been|already)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=SHARED, help="the shared data directory")
    parser.add_argument("--outputs", type=int, default=100, help="distinct outputs of the previewed item")
    parser.add_argument("--keystrokes", type=int, default=len(TYPED))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        db = open_database(Path(tmp) / "preview.sqlite")
        import_suite(db, args.data / "mt-testsuite" / "testset" / "de-en" / "items.json")
        import_outputs(db, args.data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
        with db.transaction() as session:
            item_id, count = session.execute(select(Output.item_id, func.count()).group_by(Output.item_id)
                                             .order_by(func.count().desc()).limit(1)).one()
            texts = list(session.scalars(select(Output.text).where(Output.item_id == item_id)))
            padding = [f"{texts[k % len(texts)]} [{k}]" for k in range(max(0, args.outputs - count))]
            if padding:
                session.execute(insert(Output), [{"item_id": item_id, "text": text} for text in padding])
        relabel(db)
        stored = draft_of(db, item_id)
        print(f"setup: item {item_id} with {count} WMT21 outputs padded to {count + len(padding)}, "
              f"{len(stored.rules)} stored rules, {len(stored.known)} known translations, "
              f"{time.perf_counter() - started:.1f} s")

        def draft(typed: int) -> Draft:
            unsaved = (DraftRule(RuleSpec(Polarity.POSITIVE, r"\bthe\b", True)),
                       DraftRule(RuleSpec(Polarity.NEGATIVE, r"\w+ing\b")),
                       DraftRule(RuleSpec(Polarity.NEGATIVE, TYPED[:typed] or "x")))
            return Draft((*stored.rules, *unsaved), stored.known)

        previews = PreviewSession(db)
        keystrokes, cpu = [], []
        for typed in range(1, args.keystrokes + 1):
            start, started_cpu = time.perf_counter(), time.process_time()
            preview = previews.preview(item_id, draft(typed))
            keystrokes.append(time.perf_counter() - start)
            cpu.append(time.process_time() - started_cpu)
        uncached = []
        for typed in range(1, args.keystrokes + 1):
            start = time.perf_counter()
            preview_item(db, item_id, draft(typed))
            uncached.append(time.perf_counter() - start)
        start = time.perf_counter()
        scope = preview_scope(db, item_id, [DraftRule(RuleSpec(Polarity.NEGATIVE, r"\bwould\b"))], "suite")
        scope_time = time.perf_counter() - start
        db.close()

    print(f"outputs previewed: {len(preview.outputs)}, rules in the draft: {len(draft(1).rules)}, "
          f"last flips: {preview.flips}")
    print(f"first keystroke (reads the item): {keystrokes[0]:.4f} s")
    print(f"without a session (reads every time), median of {len(uncached)}: {statistics.median(uncached):.4f} s")
    print(f"scope suite: {scope.outputs} outputs, {len(scope.items)} items would flip, {scope_time:.2f} s")
    print(f"CPU of one keystroke after the first, median: {statistics.median(cpu[1:]):.4f} s")
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}")
    print(f"preview: {statistics.median(keystrokes[1:]):.4f} s")


if __name__ == "__main__":
    main()
