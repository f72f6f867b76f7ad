"""Reference sets on WMT19 en-de (Freitag et al. 2020): 22 systems x 1,997 segments against the WMT reference,
the six sets of wmt19-paraphrased-references and three multi-reference combinations, with BLEU (tokenize intl,
as the paper's sacrebleu signature), chrF and TER, and the correlation table with bootstrap intervals.

    PYTHONPATH=. python bench/references.py [--db out/bench-references.sqlite] [--resamples 1000]
        [--figure out/kendall-by-k.png] [--metrics bleu,chrf,ter]

Target (issue 17): scoring against the 7 sets with BLEU, chrF and TER and the correlation table < 2 minutes.
Reads ../shared/data/external (never copied); a fresh database each run unless --db names one (then the import
is skipped and only the scoring and the table are timed again). Prints one figure a line and the table.

The machine is shared, so the run also prints what says how loaded it was: the load average before and
after, a fixed loop of plain Python (0.10 s on an idle core of this machine), and sacrebleu's own
per-pair cost (its ``sentence_score`` of 200 WMT19 pairs a metric, against the WMT reference) with what a
plain sacrebleu loop over the table's pairs would take at that cost: the ratio to it holds under any load.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import select

from filters.correlation_table import correlate_table
from filters.metrics import MetricOptions
from store import open_database
from store.models import Suite
from suite.importers.human_scores import import_human_scores
from suite.importers.references import import_references
from suite.importers.wmt import import_wmt
from suite.references import RefChoice
from suite.tables import render

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "external"
SUITE = "newstest2019-ende"
PARAPHRASED = {"ar": ("ar", "standard"), "ar.p": ("arp", "paraphrase"), "wmt.p": ("wmtp", "paraphrase"),
               "hq-r": ("hqr", "standard"), "hq-p": ("hqp", "paraphrase"), "hq-all": ("hqall", "paraphrase")}
"""Set name -> (file stem in wmt19/ende, kind): the paper's names."""
SETS = ("wmt", "ar", "wmt.p", "ar.p", "hq-r", "hq-p", "hq-all")
JOINED = ("wmt+ar", "wmt.p+ar.p", "wmt+ar+wmt.p+ar.p")
"""The paper's multi-reference settings: the two standard references, the two paraphrased, all four."""


def load(db_path: Path, data: Path) -> float:
    """Import the test set, the six extra sets and the official DA scores; seconds taken."""
    wmt19 = data / "global-explainability-metrics" / "WMT19"
    started = time.perf_counter()
    db = open_database(db_path)
    import_wmt(db, src=wmt19 / "source" / "newstest2019-ende-src.en",
               refs=[wmt19 / "references" / "newstest2019-ende-ref.de"], ref_names=["wmt"],
               systems=[wmt19 / "system-outputs" / "en-de"], name=SUITE)
    for name, (stem, kind) in PARAPHRASED.items():
        import_references(db, data / "wmt19-paraphrased-references" / "wmt19" / "ende" / f"wmt19-ende-{stem}.ref",
                          name=name, kind=kind, suite_name=SUITE)
    import_human_scores(db, wmt19 / "DA-syslevel.csv", lp="en-de", suite_name=SUITE)
    db.close()
    return time.perf_counter() - started


def floor() -> float:
    """Seconds of a fixed loop of plain Python: how much of a core this process gets now."""
    started = time.perf_counter()
    sum(range(10**7))
    return time.perf_counter() - started


def sacrebleu_per_pair(data: Path, metrics: list[str], tokenize: str) -> dict[str, float]:
    """sacrebleu's ``sentence_score`` seconds per (output, reference) pair, on the first 200 segments of the
    first system against the WMT reference."""
    from filters.metrics.pair_statistics import sacrebleu_metric

    wmt19 = data / "global-explainability-metrics" / "WMT19"
    references = (wmt19 / "references" / "newstest2019-ende-ref.de").read_text(encoding="utf-8").split("\n")[:200]
    system = sorted((wmt19 / "system-outputs" / "en-de").iterdir())[0]
    hypotheses = system.read_text(encoding="utf-8").split("\n")[:200]
    costs = {}
    for name in metrics:
        metric = sacrebleu_metric(name, tokenize if name == "bleu" else None)
        started = time.process_time()
        for hypothesis, reference in zip(hypotheses, references):
            metric.sentence_score(hypothesis, [reference])
        costs[name] = (time.process_time() - started) / len(hypotheses)
    return costs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=None, help="keep the database here (default: a temporary one)")
    parser.add_argument("--data", default=str(SHARED), help="the external data folder (../shared/data/external)")
    parser.add_argument("--metrics", default="bleu,chrf,ter")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--top", type=int, default=None)
    parser.add_argument("--figure", default=None, help="also draw Kendall tau against k to this .png/.svg/.pdf")
    args = parser.parse_args()
    data = Path(args.data)
    if not (data / "wmt19-paraphrased-references").is_dir():
        print(f"missing {data / 'wmt19-paraphrased-references'}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(args.db) if args.db else Path(tmp) / "references.sqlite"
        db_path.parent.mkdir(parents=True, exist_ok=True)
        db = open_database(db_path)
        with db.session() as session:
            present = session.scalar(select(Suite.id).where(Suite.name == SUITE)) is not None
        db.close()
        if not present:
            print(f"import (test set, 22 systems, 6 extra sets, DA): {load(db_path, data):.1f} s")
        db = open_database(db_path)
        entries = [RefChoice.parse(entry) for entry in (*SETS, *JOINED)]
        metrics = args.metrics.split(",")
        load_before, floor_before = os.getloadavg()[0], floor()
        started = time.perf_counter()
        table = correlate_table(db, metrics, entries, top=args.top, suite_name=SUITE,
                                options=MetricOptions(tokenize="intl"), resamples=args.resamples)
        seconds = time.perf_counter() - started
        load_after, floor_after = os.getloadavg()[0], floor()
        print(f"scoring {len(metrics)} metrics x {len(SETS)} sets + {len(JOINED)} joined entries "
              f"and the correlation table ({args.resamples} resamples): {seconds:.1f} s (target < 120 s)")
        print(f"load average {load_before:.1f} before, {load_after:.1f} after; plain-Python floor "
              f"{floor_before:.2f} s before, {floor_after:.2f} s after (0.10 s on an idle core)")
        costs = sacrebleu_per_pair(data, metrics, "intl")
        pairs = table.rows[0].segments * len(table.systems) * sum(len(entry.sets) for entry in entries)
        plain = sum(costs.values()) * pairs
        said = ", ".join(f"{name} {cost * 1000:.2f} ms" for name, cost in costs.items())
        print(f"sacrebleu sentence_score now: {said} a pair; a plain sacrebleu loop over the table's {pairs:,} "
              f"(output, reference) pairs a metric would take {plain:.0f} s of CPU: this run took "
              f"{seconds / plain:.3f} of it")
        print(render(table.to_table(), "md"))
        if args.figure:
            from filters.correlation_figure import kendall_by_k_figure
            from suite.figures import save_figure

            print(f"wrote {save_figure(kendall_by_k_figure(table), args.figure)}")
        db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
