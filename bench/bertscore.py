"""Time tsqe's difficulty-aware BERTScore against ``bert_score.score`` on WMT19 de-en.

In one run, on the same data and model: ``bert_score.score`` for vanilla BERTScore of every system output
against the references (one call, as a user would make it), then tsqe's ``da_bertscore`` with a cold
embedding cache (fresh database) and again with a warm one. Prints ``cold: <ratio>x`` and
``warm: <ratio>x`` (tsqe time / bert_score time); targets are <= 1.1x and <= 0.1x. Loading the data into
the database happens outside the timed regions. Model loading is inside both timings (bert_score.score
loads it on every call; tsqe loads it only when something needs embedding).

    PYTHONPATH=. HF_HUB_OFFLINE=1 python bench/bertscore.py [--systems N] [--segments M]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sqlalchemy import insert, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from filters.bertscore import resolve_model  # noqa: E402
from filters.metrics import MetricOptions  # noqa: E402
from filters.metrics.da_bertscore import da_bertscore  # noqa: E402
from store import Database, open_database  # noqa: E402
from store.models import Item, Output, Reference, Suite, System, SystemOutput  # noqa: E402

WMT19 = Path(__file__).resolve().parents[2] / "shared" / "data" / "external" / "global-explainability-metrics" / "WMT19"


def read_lines(path: Path, limit: int | None) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines[:limit]


def load_suite(db: Database, sources: list[str], refs: list[str], outputs: dict[str, list[str]]) -> None:
    """Core inserts, as the WMT importer does: items 1..N, one reference each, distinct outputs per item."""
    with db.transaction() as session:
        suite = Suite(name="wmt19-de-en", source_lang="de", target_lang="en")
        session.add(suite)
        session.flush()
        session.execute(insert(Item), [{"suite_id": suite.id, "external_id": str(i + 1), "position": i, "source": s}
                                       for i, s in enumerate(sources)])
        item_ids = [row[0] for row in session.execute(select(Item.id).where(Item.suite_id == suite.id)
                                                      .order_by(Item.position))]
        session.execute(insert(Reference), [{"item_id": item_ids[i], "text": r} for i, r in enumerate(refs)])
        distinct = sorted({(i, t.strip()) for texts in outputs.values() for i, t in enumerate(texts)})
        session.execute(insert(Output), [{"item_id": item_ids[i], "text": t} for i, t in distinct])
        output_ids = {(item_id, text): oid for oid, item_id, text in session.execute(
            select(Output.id, Output.item_id, Output.text).join(Item).where(Item.suite_id == suite.id))}
        for name, texts in outputs.items():
            system = System(suite_id=suite.id, name=name)
            session.add(system)
            session.flush()
            session.execute(insert(SystemOutput), [
                {"system_id": system.id, "item_id": item_ids[i], "output_id": output_ids[(item_ids[i], t.strip())]}
                for i, t in enumerate(texts)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=WMT19)
    parser.add_argument("--systems", type=int, default=None, help="first N systems (default: all 16)")
    parser.add_argument("--segments", type=int, default=None, help="first M segments (default: all 2000)")
    parser.add_argument("--model", default=None, help="local model directory (default: the MiniLM wheel)")
    parser.add_argument("--layers", type=int, default=None)
    args = parser.parse_args()

    import bert_score
    import torch

    spec = resolve_model(args.model, args.layers)
    sources = read_lines(args.data / "source" / "newstest2019-deen-src.de", args.segments)
    refs = read_lines(args.data / "references" / "newstest2019-deen-ref.en", args.segments)
    files = sorted((args.data / "system-outputs" / "de-en").glob("newstest2019.*.de-en"))[:args.systems]
    outputs = {f.name.split(".", 1)[1].rsplit(".", 1)[0]: read_lines(f, args.segments) for f in files}
    n_pairs = len(refs) * len(outputs)
    print(f"data: {len(outputs)} systems x {len(refs)} segments = {n_pairs} pairs; model {spec.key} layer "
          f"{spec.layer}; torch threads {torch.get_num_threads()}; device {spec.device}")

    cands = [t for texts in outputs.values() for t in texts]
    start = time.perf_counter()
    p, r, f = bert_score.score(cands, refs * len(outputs), model_type=str(spec.path), num_layers=spec.layer,
                               device=spec.device)
    t_bert_score = time.perf_counter() - start
    print(f"bert_score.score (vanilla P/R/F): {t_bert_score:.2f} s")

    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(Path(tmp) / "bench.sqlite")
        load_suite(db, sources, refs, outputs)
        start = time.perf_counter()
        cold = da_bertscore(db, options=MetricOptions(model=args.model, layers=args.layers))
        t_cold = time.perf_counter() - start
        print(f"tsqe da_bertscore, cold cache: {t_cold:.2f} s")
        start = time.perf_counter()
        warm = da_bertscore(db, options=MetricOptions(model=args.model, layers=args.layers))
        t_warm = time.perf_counter() - start
        print(f"tsqe da_bertscore, warm cache: {t_warm:.2f} s")
        size = os.path.getsize(Path(tmp) / "bench.sqlite") + os.path.getsize(Path(tmp) / "bench.sqlite-wal") \
            if (Path(tmp) / "bench.sqlite-wal").exists() else os.path.getsize(Path(tmp) / "bench.sqlite")
        print(f"database size after caching: {size / 2**20:.0f} MiB")
        db.close()

    f_by_system = f.numpy().reshape(len(outputs), len(refs)).mean(axis=1)
    diff = max(abs(cold.system_scores[name]["F"] - value) for name, value in zip(outputs, f_by_system))
    same = all(cold.system_scores[s] == warm.system_scores[s] for s in outputs)
    print(f"max |system F(tsqe) - F(bert_score)|: {diff:.2e}; warm == cold: {same}")
    print(f"cold: {t_cold / t_bert_score:.3f}x")
    print(f"warm: {t_warm / t_bert_score:.3f}x")
    if not np.isfinite(diff) or diff > 1e-5:
        sys.exit("tsqe's vanilla BERTScore disagrees with bert_score.score")


if __name__ == "__main__":
    main()
