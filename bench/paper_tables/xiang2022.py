"""Xiang et al. 2022, *Investigating Data Variance in Evaluations of Automatic Machine Translation Metrics*, on the two
German-English test sets of ../shared: newstest2019 (the paper's 2019 column) and newstest2021 (after the paper; its
figures there are tsqe's alone).

Table 3's 2019 column: ``tsqe meta-eval`` error rates of BLEU, chrF, TER and BERTScore (MiniLM) over all pairs of
the 16 systems; the paper's come from 10,000 hybrid super-sampled system pairs (Graham and Liu 2016), which tsqe
does not make, and its ranks are among ten metrics, tsqe's among four, so only the error rates compare. Table 5:
``tsqe adversarial`` (logistic regression on character n-gram TF-IDF, not mBERT). Not made: Table 4 (Ru-En, not in
../shared), the 2010-2018 columns and Figures 1-2 over them (those test sets are not in ../shared).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from pathlib import Path

from bench.paper_tables import Record
from bench.paper_tables.data import NEWSTEST2021_DEEN, WMT19_DEEN, Data

PAPER = "xiang2022"
YEARS = {"19": WMT19_DEEN, "21": NEWSTEST2021_DEEN}
TABLE5_SRC_19 = 50.9
TABLE5_OUTPUT_19 = 52.2
"""Table 5's diagonal for 2019 (two random halves of newstest2019 de-en): (a) sources, (b) with outputs. The
paper's other cells are 2017 and 2018, not in ../shared."""
TABLE3_2019 = {"BLEU": (7, 41.3), "TER": (9, 43.0), "chrF": (1, 37.0), "BERTScore": (3, 37.0)}
"""Table 3, column 2019: (significant rank among ten metrics, error rate %)."""
METRICS = {"BLEU": "bleu", "TER": "ter", "chrF": "chrf", "BERTScore": "bertscore-f"}
EMBEDDING_METRICS = ("bertscore-f",)
"""tsqe's bundled MiniLM, not the paper's model; left out with ``--no-embeddings`` (the other ranks are then among
three metrics)."""


@cache
def _separated(data: Data, with_outputs: bool):  # type: ignore[no-untyped-def]
    from filters.adversarial import AdversarialOptions, adversarial_validation

    options = AdversarialOptions(tuple(YEARS.values()), with_outputs, seeds=5)
    return data.kept(f"adversarial {options}", lambda: adversarial_validation(data.database(*YEARS.values()), options))


def table5(data: Data) -> list[Record]:
    records = []
    for variant, with_outputs, published in (("(a) Src", False, TABLE5_SRC_19), ("(b) +Output", True,
                                                                                 TABLE5_OUTPUT_19)):
        names, values = _separated(data, with_outputs).matrix()
        for i, row in enumerate(YEARS):
            for j, column in enumerate(YEARS):
                records.append(Record(PAPER, "table5", row, f"{variant} {column}", round(100 * float(values[i, j]), 1),
                                      published if row == column == "19" else None))
    return records


def table3(data: Data) -> list[Record]:
    from filters.meta_evaluation import MetaOptions, meta_evaluate

    made = {label: metric for label, metric in METRICS.items()
            if data.embeddings or metric not in EMBEDDING_METRICS}
    records = []
    for year, suite in YEARS.items():
        options = MetaOptions(suites=(suite,), metrics=tuple(made.values()))
        result = data.kept(f"meta-eval {options}", partial(meta_evaluate, data.database(suite), options))
        outcomes = result.datasets[suite].metrics
        for label in METRICS:
            o = outcomes.get(made.get(label, ""))
            rank, rate = TABLE3_2019[label] if year == "19" else (None, None)
            records += [Record(PAPER, "table3", label, f"20{year} E",
                               None if o is None else round(100 * o.error_rate, 1), rate),
                        Record(PAPER, "table3", label, f"20{year} R", None if o is None else o.rank, rank)]
    return records


def draw_table5(data: Data, folder: Path) -> Path:
    """Table 5 as the heat maps ``tsqe adversarial --heat-map`` draws: sources (a), with outputs (b)."""
    from suite.figures import save_figure

    save_figure(_separated(data, False).heat_map(), folder / "xiang2022-table5a.png")
    return save_figure(_separated(data, True).heat_map(), folder / "xiang2022-table5b.png")


TABLES: dict[str, Callable[[Data], list[Record]]] = {"table3": table3, "table5": table5}
FIGURES: dict[str, Callable[[Data, Path], Path]] = {"table5": draw_table5}
