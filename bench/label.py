"""Labelling throughput: ``suite.labelling.relabel`` (with persistence) against a plain regex loop.

Setup (not timed): the DFKI rules of one language pair and the WMT21 systems' outputs on them go into a
fresh SQLite database; every distinct output is repeated with the suffix `` [k]`` (k = 1, 2, ...) until
there are at least ``--outputs`` distinct outputs. None of the DFKI patterns uses ``$``, digits or square
brackets, so the suffix rarely changes which rules match; the script counts and prints how often it did.

Timed, in each of ``--rounds`` rounds: (a) ``relabel`` on a fresh copy of the unlabelled database with the
pattern caches emptied, as in a new process (plan, read, compile, match, decide, write every label, count);
and (b) a plain loop calling the same compiled regexes' ``search`` on the same (rule, output) pairs, once
right before and once right after (a). ``ratio:`` is time (a) / mean time (b) of the median round: this
machine's speed drifts by half within minutes, and bracketing (a) by (b) compares them at the same speed.
The plain loop with the per-search timeout the engine's careful path uses is timed once and its ratio printed
beside. For the floor, (c)
writing the label rows ``relabel`` produced again with ``store.bulk.insert_tuples`` alone, in a transaction
that is rolled back, and the load average of the machine.

Run: ``PYTHONPATH=$PWD python bench/label.py [--outputs N] [--lp de-en|en-de] [--rounds N] [--idle-thread]``.
``--idle-thread`` keeps one idle thread alive, so the process is threaded as the desktop application is and
labelling takes its workers from a fork server (``suite.watched_pool``) instead of forking: that path's ratio.
Rules are imported case-sensitively (``ignore_case`` false), positive/negative tokens as known good/bad
translations.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

import regex
from sqlalchemy import delete, insert, select

from store import Database, open_database
from store.bulk import insert_tuples
from store.models import AutoLabel, Category, Item, KnownTranslation, Output, Phenomenon, Rule, Suite
from suite import rules
from suite.labelling import relabel
from suite.labels import effective_labels_select
from suite.rules import DEFAULT_TIMEOUT

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "external"
ITEMS = SHARED / "mt-testsuite" / "testset" / "{lp}" / "items.json"
OUTPUTS = SHARED / "wmt21-news-systems" / "dfki-testsuite-outputs.{lp}.tsv"


def load(db_path: Path, lp: str, wanted: int) -> tuple[Database, dict[str, list[tuple[str, str]]], int]:
    """Fill a fresh database; return it, each item's (polarity, pattern) rules and the number of copies."""
    items = json.loads(Path(str(ITEMS).format(lp=lp)).read_text(encoding="utf-8"))["items"]
    with open(str(OUTPUTS).format(lp=lp), encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader)
        distinct = sorted({(row[0], row[2].strip()) for row in reader if row[2].strip()})
    copies = -(-wanted // len(distinct))
    db = open_database(db_path)
    rules: dict[str, list[tuple[str, str]]] = {}
    with db.transaction() as session:
        suite_id = session.scalar(insert(Suite).values(name=f"dfki-{lp}", source_lang=lp[:2], target_lang=lp[3:])
                                  .returning(Suite.id))
        phenomena: dict[tuple[str, str], int] = {}
        item_ids: dict[str, int] = {}
        for position, item in enumerate(items):
            key = (item["category"], item["phenomenon"])
            if key not in phenomena:
                category_id = session.scalar(select(Category.id).where(Category.suite_id == suite_id,
                                                                       Category.name == key[0]))
                if category_id is None:
                    category_id = session.scalar(insert(Category).values(suite_id=suite_id, name=key[0])
                                                 .returning(Category.id))
                phenomena[key] = session.execute(insert(Phenomenon).values(category_id=category_id, name=key[1])
                                                 .returning(Phenomenon.id)).scalar_one()
            item_ids[item["id"]] = session.execute(insert(Item).values(
                suite_id=suite_id, external_id=item["id"], position=position, phenomenon_id=phenomena[key],
                source=item["source_sentence"]).returning(Item.id)).scalar_one()
            rules[item["id"]] = [(polarity, item[f"{polarity}_regex"]) for polarity in ("positive", "negative")
                                 if item[f"{polarity}_regex"].strip()]
        session.execute(insert(Rule), [
            dict(item_id=item_ids[external], polarity=polarity, pattern=pattern, ignore_case=False, valid=True,
                 position=position)
            for external, item_rules in rules.items() for position, (polarity, pattern) in enumerate(item_rules)])
        known = [dict(item_id=item_ids[item["id"]], kind=kind, text=text)
                 for item in items for kind, key in (("good", "positive_tokens"), ("bad", "negative_tokens"))
                 for text in item[key] if text.strip()]
        if known:
            session.execute(insert(KnownTranslation), known)
        session.execute(insert(Output), [
            dict(item_id=item_ids[external], text=text if k == 0 else f"{text} [{k}]")
            for k in range(copies) for external, text in distinct])
    return db, rules, copies


def plain_loop(pairs: list[tuple[list, list[str]]], timeout: float | None) -> float:
    """Seconds to call every compiled rule of an item on every output of that item."""
    start = time.perf_counter()
    if timeout is None:
        for searches, texts in pairs:
            for text in texts:
                for search in searches:
                    search(text)
    else:
        for searches, texts in pairs:
            for text in texts:
                for search in searches:
                    search(text, timeout=timeout)
    return time.perf_counter() - start


def relabel_fresh(pristine: Path, run: Path) -> tuple[dict[str, int], float, float]:
    """``relabel`` on a fresh copy of the unlabelled database, with cold pattern caches as in a new process:
    counts, seconds, CPU seconds of this process."""
    shutil.copyfile(pristine, run)
    for suffix in ("-wal", "-shm"):
        Path(f"{run}{suffix}").unlink(missing_ok=True)
    regex.purge()
    rules._compile.cache_clear()
    db = open_database(run)
    try:
        start, cpu = time.perf_counter(), time.process_time()
        counts = relabel(db, timeout=DEFAULT_TIMEOUT)
        return counts, time.perf_counter() - start, time.process_time() - cpu
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=int, default=1_000_000, help="distinct outputs to label (minimum)")
    parser.add_argument("--lp", choices=("de-en", "en-de"), default="de-en")
    parser.add_argument("--rounds", type=int, default=5, help="labelling + plain loop pairs; the median is reported")
    parser.add_argument("--idle-thread", action="store_true",
                        help="one idle thread, so labelling's workers come from the fork server as in the GUI")
    args = parser.parse_args()
    if args.idle_thread:
        threading.Thread(target=threading.Event().wait, daemon=True).start()

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        pristine, run = Path(tmp) / "pristine.sqlite", Path(tmp) / "run.sqlite"
        db, item_rules, copies = load(pristine, args.lp, args.outputs)
        with db.session() as session:
            rows = session.execute(select(Item.external_id, Output.text).join(Item, Item.id == Output.item_id)
                                   .order_by(Output.item_id)).all()
        db.close()
        by_item: dict[str, list[str]] = {}
        for external, text in rows:
            by_item.setdefault(external, []).append(text)
        compiled = {external: [regex.compile(pattern).search for _, pattern in patterns]
                    for external, patterns in item_rules.items()}
        pairs = [(compiled[external], texts) for external, texts in by_item.items()]
        n_outputs = len(rows)
        n_searches = sum(len(searches) * len(texts) for searches, texts in pairs)
        print(f"setup: {n_outputs} distinct outputs ({copies} copies of each WMT21 output), "
              f"{n_searches} (rule, output) pairs, {time.perf_counter() - started:.1f} s")

        rounds = []
        for number in range(1, args.rounds + 1):
            cpu = time.process_time()
            before = plain_loop(pairs, None)
            plain_cpu = time.process_time() - cpu
            counts, labelling, labelling_cpu = relabel_fresh(pristine, run)
            cpu = time.process_time()
            after = plain_loop(pairs, None)
            plain, plain_cpu = (before + after) / 2, (plain_cpu + time.process_time() - cpu) / 2
            rounds.append((labelling / plain, labelling, plain, labelling_cpu, plain_cpu))
            print(f"round {number}: relabel {labelling:.2f} s (CPU {labelling_cpu:.2f} s in this process), plain "
                  f"loop {before:.2f} s before and {after:.2f} s after, ratio {labelling / plain:.2f}")
        ratio, labelling, plain, labelling_cpu, plain_cpu = sorted(rounds)[len(rounds) // 2]
        plain_timed = plain_loop(pairs, DEFAULT_TIMEOUT)

        db = open_database(run)
        with db.session() as session:
            read = effective_labels_select(session.execute(select(Suite.id)).scalar_one()).subquery()
            labels = session.execute(select(Output.text, Output.item_id, read.c.auto_label, AutoLabel.rule_id)
                                     .join(read, read.c.output_id == Output.id)
                                     .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)).all()
            stored = [tuple(row) for row in session.execute(
                select(AutoLabel.output_id, AutoLabel.label, AutoLabel.rule_id).order_by(AutoLabel.output_id))]
        with db.session() as session, session.begin():
            connection = session.connection()
            connection.execute(delete(AutoLabel))
            start = time.perf_counter()
            insert_tuples(connection, AutoLabel, ("output_id", "label", "rule_id"), stored)
            insert_only = time.perf_counter() - start
            session.rollback()
        db.close()
        original = {(item_id, text): (label, rule_id) for text, item_id, label, rule_id in labels
                    if not text.endswith("]")}
        changes = [original[(item_id, text[:text.rindex(" [")])] for text, item_id, label, rule_id in labels
                   if text.endswith("]") and original[(item_id, text[:text.rindex(" [")])] != (label, rule_id)]
        by_rule = sum(1 for _, rule_id in changes if rule_id is not None)

    print(f"labels: {json.dumps(counts)}")
    print(f"suffix changed the label of {len(changes)} of {n_outputs - len(original)} copies: "
          f"{len(changes) - by_rule} had been decided by a known translation (which the copy no longer equals), "
          f"{by_rule} by a rule")
    print(f"median round ({args.rounds} rounds):")
    print(f"relabel with persistence: {labelling:.2f} s, {n_outputs / labelling:,.0f} outputs/s")
    print(f"plain regex loop:         {plain:.2f} s, {n_outputs / plain:,.0f} outputs/s")
    print(f"plain loop with timeout:  {plain_timed:.2f} s, {n_outputs / plain_timed:,.0f} outputs/s")
    print(f"label rows written: {len(stored)} (unknown is stored as no row); inserting them alone (the writer's "
          f"floor, foreign keys checked): {insert_only:.2f} s, {insert_only / plain:.2f} x the plain loop")
    print(f"workers: {'fork server (one idle thread)' if args.idle_thread else 'forked (single-threaded)'}")
    print(f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"CPU of relabel: {labelling_cpu:.2f} s in this process (the writer; not its matching workers, which may be "
          f"children of the fork server, whose CPU time this process cannot read); plain loop {plain_cpu:.2f} s")
    print(f"ratio with timed plain loop: {labelling / plain_timed:.2f}")
    print(f"ratio: {ratio:.2f}")


if __name__ == "__main__":
    main()
