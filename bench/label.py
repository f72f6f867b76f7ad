"""Labelling throughput: ``suite.labelling.relabel`` (with persistence) against a plain regex loop.

Setup (not timed): the DFKI rules of one language pair and the WMT21 systems' outputs on them go into a
fresh SQLite database; every distinct output is repeated with the suffix `` [k]`` (k = 1, 2, ...) until
there are at least ``--outputs`` distinct outputs. None of the DFKI patterns uses ``$``, digits or square
brackets, so the suffix rarely changes which rules match; the script counts and prints how often it did.

Timed: (a) ``relabel`` on the fresh database (fetch, match, decide, write every label, count);
(b) a plain loop calling the same compiled regexes' ``search`` on the same (rule, output) pairs, once
without and once with the per-search timeout the engine uses. ``ratio:`` is time (a) / time (b, no
timeout); the timed-plain-loop ratio is printed beside it.

Run: ``PYTHONPATH=$PWD python bench/label.py [--outputs N] [--lp de-en|en-de]``.
Rules are imported case-sensitively (``ignore_case`` false), positive/negative tokens as known good/bad
translations.
"""
from __future__ import annotations

import argparse
import csv
import json
import tempfile
import time
from pathlib import Path

import regex
from sqlalchemy import insert, select

from store import open_database
from store.models import AutoLabel, Category, Item, KnownTranslation, Output, Phenomenon, Rule, Suite
from suite.labelling import relabel
from suite.rules import DEFAULT_TIMEOUT

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "external"
ITEMS = SHARED / "mt-testsuite" / "testset" / "{lp}" / "items.json"
OUTPUTS = SHARED / "wmt21-news-systems" / "dfki-testsuite-outputs.{lp}.tsv"


def load(db_path: Path, lp: str, wanted: int) -> tuple[object, dict[str, list[tuple[str, str]]], int]:
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
                phenomena[key] = session.scalar(insert(Phenomenon).values(category_id=category_id, name=key[1])
                                                .returning(Phenomenon.id))
            item_ids[item["id"]] = session.scalar(insert(Item).values(
                suite_id=suite_id, external_id=item["id"], position=position, phenomenon_id=phenomena[key],
                source=item["source_sentence"]).returning(Item.id))
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=int, default=1_000_000, help="distinct outputs to label (minimum)")
    parser.add_argument("--lp", choices=("de-en", "en-de"), default="de-en")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        db, rules, copies = load(Path(tmp) / "bench.sqlite", args.lp, args.outputs)
        with db.session() as session:
            rows = session.execute(select(Item.external_id, Output.text).join(Item, Item.id == Output.item_id)
                                   .order_by(Output.item_id)).all()
        by_item: dict[str, list[str]] = {}
        for external, text in rows:
            by_item.setdefault(external, []).append(text)
        compiled = {external: [regex.compile(pattern).search for _, pattern in item_rules]
                    for external, item_rules in rules.items()}
        pairs = [(compiled[external], texts) for external, texts in by_item.items()]
        n_outputs = len(rows)
        n_searches = sum(len(searches) * len(texts) for searches, texts in pairs)
        print(f"setup: {n_outputs} distinct outputs ({copies} copies of each WMT21 output), "
              f"{n_searches} (rule, output) pairs, {time.perf_counter() - started:.1f} s")

        start, cpu = time.perf_counter(), time.process_time()
        counts = relabel(db, timeout=DEFAULT_TIMEOUT)
        labelling, labelling_cpu = time.perf_counter() - start, time.process_time() - cpu
        cpu = time.process_time()
        plain = plain_loop(pairs, None)
        plain_cpu = time.process_time() - cpu
        plain_timed = plain_loop(pairs, DEFAULT_TIMEOUT)

        with db.session() as session:
            labels = session.execute(select(Output.text, Output.item_id, AutoLabel.label, AutoLabel.rule_id)
                                     .join(AutoLabel, AutoLabel.output_id == Output.id)).all()
        original = {(item_id, text): (label, rule_id) for text, item_id, label, rule_id in labels
                    if not text.endswith("]")}
        changes = [original[(item_id, text[:text.rindex(" [")])] for text, item_id, label, rule_id in labels
                   if text.endswith("]") and original[(item_id, text[:text.rindex(" [")])] != (label, rule_id)]
        by_rule = sum(1 for _, rule_id in changes if rule_id is not None)
        db.close()

    print(f"labels: {json.dumps(counts)}")
    print(f"suffix changed the label of {len(changes)} of {n_outputs - len(original)} copies: "
          f"{len(changes) - by_rule} had been decided by a known translation (which the copy no longer equals), "
          f"{by_rule} by a rule")
    print(f"relabel with persistence: {labelling:.2f} s, {n_outputs / labelling:,.0f} outputs/s")
    print(f"plain regex loop:         {plain:.2f} s, {n_outputs / plain:,.0f} outputs/s")
    print(f"plain loop with timeout:  {plain_timed:.2f} s, {n_outputs / plain_timed:,.0f} outputs/s")
    print(f"ratio of CPU times (less sensitive to other load on the machine): {labelling_cpu / plain_cpu:.2f}")
    print(f"ratio with timed plain loop: {labelling / plain_timed:.2f}")
    print(f"ratio: {labelling / plain:.2f}")


if __name__ == "__main__":
    main()
