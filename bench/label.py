"""Labelling throughput: ``suite.engine.labelling.relabel`` (with persistence) against a plain regex loop, with workers
forked and with workers from a fork server, in one run.

Setup (not timed): the DFKI rules of one language pair and the WMT21 systems' outputs on them go into a
fresh SQLite database; every distinct output is repeated with the suffix `` [k]`` (k = 1, 2, ...) until
there are at least ``--outputs`` distinct outputs. None of the DFKI patterns uses ``$``, digits or square
brackets, so the suffix rarely changes which rules match; the script counts and prints how often it did.

Timed, in each of ``--rounds`` rounds and for each of the two ways labelling starts its workers: (a)
``relabel`` on a fresh copy of the unlabelled database (plan, read, match, decide, write every label and count);
and (b) a plain loop calling the same compiled regexes' ``search`` on the same (rule, output) pairs, right
before and right after (a). A round's ratio is time (a) / mean time (b): this machine's speed drifts by half
within minutes, and bracketing (a) by (b) compares them at the same speed. ``ratio, forked:`` and ``ratio, fork
server:`` are the median rounds' ratios; ``cpu ratio forked:`` and ``cpu ratio fork server:`` the median rounds'
CPU seconds of every process (writer and workers) over the plain loop's, which the machine's load moves less.

The two ways: "forked", this process running one thread, so that labelling forks its workers (the command
line without a drawn progress bar); "fork server", one idle thread kept alive during the run, so that the
process is threaded as the desktop application is and its workers come from the fork server
(``suite.engine.watched_pool``). Each way keeps its own pool of workers over the rounds, as a process keeps its pool
over its runs: the first round starts the workers and compiles the patterns in them (printed as the first
round's ratio), the others find them running with their patterns compiled. The workers' CPU time is read from
``/proc``. For the floor, (c) writing the label rows ``relabel`` produced again with ``store.bulk.insert_tuples``
alone, in a transaction that is rolled back; (d) reading every output as the workers read them, alone; the plain
loop with the per-search timeout the engine's careful path uses; and the load average of the machine. ``cpu
floor:`` is (c) + (d) + the plain loop over the plain loop, in CPU seconds: what the CPU ratio cannot go below
without reading or writing less, before anything is decided, counted, hashed or sent between processes.

Run: ``PYTHONPATH=$PWD python bench/label.py [--outputs N] [--lp de-en|en-de] [--rounds N]``.
Rules are imported case-sensitively (``ignore_case`` false), positive/negative tokens as known good/bad
translations.
"""
from __future__ import annotations

import argparse
import csv
import gc
import json
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import regex
from sqlalchemy import delete, insert, select

from store import Database, open_database
from store.bulk import insert_tuples, select_columns_each
from store.models import AutoLabel, Category, Item, KnownTranslation, Output, Phenomenon, Rule, Suite
from suite.engine import labelling, rules
from suite.engine.labelling import relabel
from suite.engine.labels import effective_labels_select
from suite.engine.rules import DEFAULT_TIMEOUT
from suite.engine.watched_pool import WorkerPool

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


def plain_loop(pairs: list[tuple[list, list[str]]], timeout: float | None) -> tuple[float, float]:
    """Seconds (wall clock, CPU) to call every compiled rule of an item on every output of that item."""
    start, cpu = time.perf_counter(), time.process_time()
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
    return time.perf_counter() - start, time.process_time() - cpu


def relabel_fresh(pristine: Path, run: Path) -> tuple[dict[str, int], float, float]:
    """``relabel`` on a fresh copy of the unlabelled database, with this process's pattern cache emptied:
    counts, seconds, CPU seconds of this process (the writer). The workers keep theirs, as they do between two
    runs of one process: that is what keeping them is for."""
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


def workers_cpu(pool: WorkerPool) -> float:
    """CPU seconds its worker processes have used so far (they are kept, so the OS's count of finished
    children does not hold them)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pool.pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def read_as_workers(database: Path) -> float:
    """CPU seconds to read every output of the suite as labelling's workers read a never labelled suite's chunks
    (ids and texts item by item, and what each output is alike by), and nothing else: with the plain loop and
    inserting the label rows, the floor under the CPU ratio."""
    db = open_database(database)
    try:
        with db.engine.connect() as connection:
            items = list(connection.scalars(select(Item.id).order_by(Item.id)))
            start = time.process_time()
            for query in (labelling._OUTPUTS_OF_UNLABELLED_ITEM, labelling._ALIKE_IN_ITEM):
                for chunk in range(0, len(items), labelling.CHUNK):
                    for _ in select_columns_each(connection, query, "item", items[chunk:chunk + labelling.CHUNK]):
                        pass
            return time.process_time() - start
    finally:
        db.close()


@dataclass
class Route:
    """One way of starting workers: its own kept pool, and its rounds."""

    name: str
    threaded: bool
    pool: WorkerPool
    rounds: list[tuple[float, float, float, float, float, float]] = field(default_factory=list)
    """(ratio, relabel seconds, plain loop seconds, writer CPU, workers' CPU, CPU ratio) per round. The CPU ratio
    is the CPU seconds of all processes (the writer and its workers) over the plain loop's: a loaded machine
    stretches wall-clock time much more than CPU time, so it moves less with the load than the first."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=int, default=1_000_000, help="distinct outputs to label (minimum)")
    parser.add_argument("--lp", choices=("de-en", "en-de"), default="de-en")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of both paths; the median is reported")
    args = parser.parse_args()

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
        del rows  # a million rows the garbage collector would scan during every timed relabel, which a tsqe
        gc.collect()  # process does not hold
        n_searches = sum(len(searches) * len(texts) for searches, texts in pairs)
        print(f"setup: {n_outputs} distinct outputs ({copies} copies of each WMT21 output), "
              f"{n_searches} (rule, output) pairs, {time.perf_counter() - started:.1f} s")

        routes = [Route("forked", False, WorkerPool(labelling.WORKER_NICENESS)),
                  Route("fork server", True, WorkerPool(labelling.WORKER_NICENESS))]
        kept_pool = labelling._POOL
        plain_before, plain_cpu_before = plain_loop(pairs, None)
        for number in range(1, args.rounds + 1):
            for route in routes:
                stop = threading.Event()
                idle = threading.Thread(target=stop.wait, daemon=True)
                if route.threaded:  # as the desktop application: its workers come from the fork server
                    idle.start()
                labelling._POOL = route.pool  # each path keeps its own workers, as a process does
                try:
                    workers_before = workers_cpu(route.pool)
                    counts, labelling_time, writer_cpu = relabel_fresh(pristine, run)
                    worker_cpu = workers_cpu(route.pool) - workers_before
                finally:
                    labelling._POOL = kept_pool
                    stop.set()
                    if route.threaded:
                        idle.join()
                plain_after, plain_cpu = plain_loop(pairs, None)
                plain = (plain_before + plain_after) / 2
                plain_cpu_mean = (plain_cpu_before + plain_cpu) / 2
                route.rounds.append((labelling_time / plain, labelling_time, plain, writer_cpu, worker_cpu,
                                     (writer_cpu + worker_cpu) / plain_cpu_mean))
                print(f"round {number}, {route.name}: relabel {labelling_time:.2f} s (CPU {writer_cpu:.2f} s writing, "
                      f"{worker_cpu:.2f} s in workers), plain loop {plain_before:.2f} s before and "
                      f"{plain_after:.2f} s after (CPU {plain_cpu:.2f} s), ratio {labelling_time / plain:.2f}, "
                      f"cpu ratio {route.rounds[-1][5]:.2f}")
                plain_before, plain_cpu_before = plain_after, plain_cpu
        plain_timed, _ = plain_loop(pairs, DEFAULT_TIMEOUT)
        for route in routes:
            route.pool.shutdown()

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
            start, insert_cpu_start = time.perf_counter(), time.process_time()
            insert_tuples(connection, AutoLabel, ("output_id", "label", "rule_id"), stored)
            insert_only = time.perf_counter() - start
            insert_cpu = time.process_time() - insert_cpu_start
            session.rollback()
        db.close()
        reading_cpu = read_as_workers(pristine)
        original = {(item_id, text): (label, rule_id) for text, item_id, label, rule_id in labels
                    if not text.endswith("]")}
        changes = [original[(item_id, text[:text.rindex(" [")])] for text, item_id, label, rule_id in labels
                   if text.endswith("]") and original[(item_id, text[:text.rindex(" [")])] != (label, rule_id)]
        by_rule = sum(1 for _, rule_id in changes if rule_id is not None)

    print(f"labels: {json.dumps(counts)}")
    print(f"suffix changed the label of {len(changes)} of {n_outputs - len(original)} copies: "
          f"{len(changes) - by_rule} had been decided by a known translation (which the copy no longer equals), "
          f"{by_rule} by a rule")
    print(f"label rows written: {len(stored)} (unknown is stored as no row); inserting them alone (the writer's "
          f"floor, foreign keys checked): {insert_only:.2f} s")
    print(f"plain loop with timeout: {plain_timed:.2f} s, {n_outputs / plain_timed:,.0f} outputs/s")
    floor = (reading_cpu + plain_cpu_before + insert_cpu) / plain_cpu_before
    print(f"floor: reading the outputs as the workers do {reading_cpu:.2f} s CPU, the plain loop "
          f"{plain_cpu_before:.2f} s, inserting the label rows {insert_cpu:.2f} s: cpu floor {floor:.2f}x the plain "
          f"loop (each in one process; nothing decided, counted or sent between processes)")
    print(f"load average (1, 5, 15 min) at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for route in routes:
        ratio, labelling_time, plain, writer_cpu, worker_cpu, _ = sorted(route.rounds)[len(route.rounds) // 2]
        first = route.rounds[0]
        print(f"{route.name}: median round {labelling_time:.2f} s against a plain loop of {plain:.2f} s "
              f"({n_outputs / labelling_time:,.0f} outputs/s; CPU {writer_cpu:.2f} s writing + {worker_cpu:.2f} s in "
              f"workers); first round, starting the workers and compiling the patterns: {first[0]:.2f}")
    for route in routes:
        print(f"ratio, {route.name}: {sorted(route.rounds)[len(route.rounds) // 2][0]:.2f}")
    for route in routes:
        cpu_ratios = sorted(r[5] for r in route.rounds)
        print(f"cpu ratio {route.name}: {cpu_ratios[len(cpu_ratios) // 2]:.2f}x (target 3)")


if __name__ == "__main__":
    main()
