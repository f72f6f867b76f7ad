"""WMT19 de-en, end to end through tsqe: system-level correlation with the official DA scores and the
overlap of tsqe's variance-aware selection with the released VAT selection.

    PYTHONPATH=. python bench/wmt19.py [--db out/bench-wmt19.sqlite] [--model PATH --layers N]

Reads ../shared/data/external (never copied). The database keeps the embedding and score caches, so a
re-run only recomputes what is new. Prints one figure a line.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from sqlalchemy import select

from filters.correlation import correlate
from filters.metrics import MetricOptions, metric_spec
from filters.scoring import score_outputs
from filters.variance import variance_filter
from store import open_database
from store.models import Suite
from suite.importers.human_scores import import_human_scores
from suite.importers.wmt import import_wmt

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "external"
SUITE = "newstest2019"
TOP_30_PERCENT = 5  # of 16 systems: the DA paper's "top 30%" (see BENCHMARKS.md)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=str(ROOT / "out" / "bench-wmt19.sqlite"))
    parser.add_argument("--data", default=str(SHARED), help="the external data folder (../shared/data/external)")
    parser.add_argument("--model", default=None)
    parser.add_argument("--layers", type=int, default=None)
    parser.add_argument("--top", type=int, nargs="*", default=[TOP_30_PERCENT], help="top-K settings to report")
    args = parser.parse_args()
    data = Path(args.data)
    wmt19 = data / "global-explainability-metrics" / "WMT19"
    vat = data / "Variance-Aware-MT-Test-Sets" / "VAT_meta" / "wmt19" / "bert-r_filter-std60.json"
    if not wmt19.is_dir():
        print(f"missing {wmt19}", file=sys.stderr)
        return 1
    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    db = open_database(args.db)
    with db.session() as session:
        present = session.scalar(select(Suite.id).where(Suite.name == SUITE)) is not None
    if not present:
        import_wmt(db, src=wmt19 / "source" / "newstest2019-deen-src.de",
                   refs=[wmt19 / "references" / "newstest2019-deen-ref.en"],
                   systems=[wmt19 / "system-outputs" / "de-en"], name=SUITE)
    import_human_scores(db, wmt19 / "DA-syslevel.csv", lp="de-en", suite_name=SUITE)

    options = MetricOptions(model=args.model, layers=args.layers)
    for metric in ("bleu", "chrf", "ter", "bertscore-f", "da-bertscore-f"):
        for top in (None, *args.top):
            started = time.perf_counter()
            result = correlate(db, metric, suite_name=SUITE, top=top,
                               options=options if metric_spec(metric).needs_model else None)
            label = "all" if top is None else f"top{top}"
            print(f"{metric} {label} ({len(result.systems)} systems): pearson {_f(result.pearson)} "
                  f"kendall {_f(result.kendall)}  [{time.perf_counter() - started:.1f}s]")
    print(f"signature: {result.signature}")

    scores = score_outputs(db, "bertscore-r", suite_name=SUITE, options=options)
    selection = variance_filter(scores, drop=0.6)
    ours = {int(item) - 1 for item in selection.kept}  # item ids are 1-based line numbers
    theirs = set(json.loads(vat.read_text())["de-en"])
    print(f"variance bertscore-r drop 0.6: kept {len(ours)} of {len(selection.ranking)}; VAT kept {len(theirs)}")
    print(f"VAT overlap: {len(ours & theirs)}/{len(theirs)} = {len(ours & theirs) / len(theirs):.3f} "
          f"(chance 0.400)")
    db.close()
    return 0


def _f(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.4f}"


if __name__ == "__main__":
    sys.exit(main())
