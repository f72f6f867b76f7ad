"""The five papers' tables and figures made by tsqe from ../shared, each figure beside the paper's.

    PYTHONPATH=. python bench/papers.py --json [--only KEY,...] [--cache DIR] [--data DIR] [--figures DIR]
        [--no-embeddings]

KEY is a paper (``avramidis``, ``zhan2021vat``, ``zhan2021da``, ``freitag2020``, ``xiang2022``) or one of its
tables (``freitag2020:table4``). With ``--json`` it prints one JSON list of records ``{"paper", "table", "row",
"column", "tsqe", "published"}`` (rows and columns the paper's own labels; ``published`` null where the paper
prints no number); without, one line a record. Times per table go to stderr. The databases are kept in
``--cache`` (default out/papers-cache): the first run imports and scores, later runs read the caches, and the
tables' costly results (correlation tables, bootstraps, classifiers, alignments) are kept there too
(``Data.kept``). ``--no-embeddings`` leaves out the BERTScore family, whose embeddings of every output are most
of a first run.
docs/papers/ shows the same figures with the commands that make them.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a clean clone
    sys.path.insert(0, str(ROOT))

from bench.paper_tables import Record, avramidis, freitag2020, xiang2022, zhan2021da, zhan2021vat  # noqa: E402
from bench.paper_tables.data import Data  # noqa: E402

SHARED = next((folder / "shared" / "data" / "external" for folder in ROOT.parents
               if (folder / "shared" / "data" / "external").is_dir()), ROOT.parent / "shared" / "data" / "external")
"""../shared beside the clone, or beside a folder of work trees."""
PAPERS: dict[str, ModuleType] = {module.PAPER: module
                                 for module in (avramidis, zhan2021vat, zhan2021da, freitag2020, xiang2022)}


def chosen(only: str | None) -> list[tuple[str, str]]:
    """(paper, table) pairs in the papers' order; an unknown key is an error naming the known ones."""
    every = [(paper, table) for paper, module in PAPERS.items() for table in module.TABLES]
    if not only:
        return every
    picked = []
    for key in (part.strip() for part in only.split(",") if part.strip()):
        paper, _, table = key.partition(":")
        matches = [(p, t) for p, t in every if p == paper and (not table or t == table)]
        if not matches and paper in PAPERS and not table:
            print(f"{paper}: no tables made from ../shared (docs/papers/{paper}.md says why)", file=sys.stderr)
            continue
        if not matches:
            known = ", ".join(f"{p}:{t}" for p, t in every)
            raise SystemExit(f"unknown table {key!r}; known: {known}")
        picked += [match for match in matches if match not in picked]
    return picked


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON list of records")
    parser.add_argument("--only", default=None, help="comma-separated papers or paper:table keys")
    parser.add_argument("--cache", default=str(ROOT / "out" / "papers-cache"), help="keep the databases here")
    parser.add_argument("--data", default=str(SHARED), help="the external data folder (../shared/data/external)")
    parser.add_argument("--figures", default=None, help="also draw the papers' figures tsqe makes into this folder")
    parser.add_argument("--no-embeddings", action="store_true",
                        help="leave out BERTScore and DA-BERTScore (null cells; their own tables skipped)")
    args = parser.parse_args()
    tables = chosen(args.only)
    data = Data(Path(args.data), Path(args.cache), embeddings=not args.no_embeddings)
    if not (data.shared / "global-explainability-metrics").is_dir():
        print(f"missing {data.shared}: the papers' data are not there", file=sys.stderr)
        return 1
    records: list[Record] = []
    try:
        for paper, table in tables:
            if not data.embeddings and table in getattr(PAPERS[paper], "EMBEDDING_TABLES", ()):
                print(f"{paper}:{table}: skipped (--no-embeddings)", file=sys.stderr)
                continue
            started = time.perf_counter()
            made = PAPERS[paper].TABLES[table](data)
            print(f"{paper}:{table}: {len(made)} records, {time.perf_counter() - started:.1f} s", file=sys.stderr)
            records += made
            drawers = getattr(PAPERS[paper], "FIGURES", {})
            if args.figures and table in drawers:
                Path(args.figures).mkdir(parents=True, exist_ok=True)
                print(f"wrote {drawers[table](data, Path(args.figures))}", file=sys.stderr)
    finally:
        data.close()
    if args.json:
        print(json.dumps([record.to_json() for record in records], ensure_ascii=False, indent=1))
    else:
        for r in records:
            print(f"{r.paper}:{r.table}\t{r.row}\t{r.column}\ttsqe {r.tsqe}\tpublished {r.published}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
