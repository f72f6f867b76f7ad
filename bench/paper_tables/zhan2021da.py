"""Zhan et al. 2021, *Difficulty-Aware Machine Translation Evaluation* (ACL), on WMT19 en-de (22 systems) and
de-en (16) with the official DA z-scores, for the metrics that need no embeddings: BLEU and TER. BLEU with
sacrebleu's ``intl`` tokens: the paper's BLEU scores in Table 2 are those (Facebook's 0.4364 is Freitag et al.'s
43.6 with ``tok.intl``; the default 13a gives 42.67).

"Top 30 %" is the best 6 of 22 (en-de) and 4 of 16 (de-en): 30 % rounded down, as the paper's k = 6 for en-de;
de-en's top 4 ends inside a tie of the human scores (two systems at 0.136). The paper prints absolute
correlations; so do these records. BERTScore and DA-BERTScore (the paper's subject) cost about an hour of
embeddings on the 2-core machine the first time and are left to ``tsqe correlate --metric
bertscore-f,da-bertscore-f --top 6`` (BENCHMARKS.md has their de-en figures); METEOR is not in tsqe.
Figure 3 (the distribution of token difficulty weights) and Table 3 (examples with their difficult words) need
the embeddings too: ``tsqe difficulty``.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.paper_tables import Record, freitag2020
from bench.paper_tables.data import WMT19_DEEN, WMT19_ENDE, Data
from filters.correlation import correlations
from filters.correlation_table import correlate_table
from filters.metrics import MetricOptions
from suite.references import RefChoice

PAPER = "zhan2021da"
TOP = {WMT19_ENDE: 6, WMT19_DEEN: 4}
DIRECTIONS = {"En→De": WMT19_ENDE, "De→En": WMT19_DEEN}
TABLE1 = {"BLEU": {"En→De (All)": (0.952, 0.703, 0.873), "En→De (Top 30%)": (0.460, 0.200, 0.143),
                   "De→En (All)": (0.888, 0.622, 0.781), "De→En (Top 30%)": (0.808, 0.548, 0.632)},
          "TER": {"En→De (All)": (0.982, 0.711, 0.873), "En→De (Top 30%)": (0.598, 0.333, 0.486),
                  "De→En (All)": (0.797, 0.504, 0.675), "De→En (Top 30%)": (0.883, 0.548, 0.632)}}
"""Table 1: |r|, |τ|, |ρ| per direction, over all systems and the top 30 %."""
TABLE2_SYSTEMS = {"Facebook.6862": "Facebook_FAIR.6862", "Microsoft.sd.6974": "Microsoft-WMT19-sentence_document.6974",
                  "Microsoft.dl.6808": "Microsoft-WMT19-document-level.6808", "MSRA.6926": "MSRA.MADL.6926",
                  "UCAM.6731": "UCAM.6731", "NEU.6763": "NEU.6763"}
TABLE2 = {"BLEU": ("0.4364 (↓5)", "0.4477 (↓1)", "0.4483 (↑1)", "0.4603 (↑3)", "0.4413 (✓0)", "0.4460 (↑2)", 12),
          "TER": ("0.4692 (↓5)", "0.4583 (↓1)", "0.4591 (↓1)", "0.4504 (↑3)", "0.4636 (✓0)", "0.4563 (↑4)", 14),
          "BERTScore": ("0.7219 (↓4)", "0.7263 (✓0)", "0.7260 (✓0)", "0.7267 (↑3)", "0.7190 (↓1)", "0.7229 (↑2)",
                        10),
          "DA-BERTScore": ("0.1555 (✓0)", "0.1539 (↓1)", "0.1544 (↑1)", "0.1525 (✓0)", "0.1519 (↓1)",
                           "0.1521 (↑1)", 4),
          "HUMAN": ("0.347", "0.311", "0.296", "0.214", "0.213", "0.208", 0)}
"""Table 2: each top-6 system's score and how far the metric's rank among the six is from the human rank."""
SUM_ROW = "sum(|ΔRank|)"
METRICS = {"BLEU": "bleu", "TER": "ter"}


@dataclass(frozen=True)
class Scored:
    """A metric's system scores on one direction and the human scores, best human first."""

    scores: dict[str, float]
    human: dict[str, float]
    higher_is_better: bool

    def agreement(self, k: int | None = None) -> tuple[float, float, float]:
        """Pearson, Kendall tau-b and Spearman over all systems or the best ``k`` by human score."""
        systems = list(self.human)[:k]
        found = correlations([self.human[s] for s in systems], [self.scores[s] for s in systems])
        return found.pearson, found.kendall, found.spearman


@cache
def _scored(data: Data, suite: str, metric: str) -> Scored:
    """En-de's rows against the WMT reference are those Freitag et al.'s tables computed already (BLEU with the
    same ``intl`` tokens, TER takes none); de-en is scored here, once a run."""
    if suite == WMT19_ENDE:
        table = freitag2020.correlation_table(data)
    else:
        table = correlate_table(data.database(suite), [metric], [RefChoice.parse("wmt")], suite_name=suite,
                                options=MetricOptions(tokenize="intl") if metric == "bleu" else None, resamples=0)
    row = next(r for r in table.rows if r.metric == metric and r.refs is not None and r.refs.label == "wmt")
    return Scored(row.overall.scores, table.human, row.higher_is_better)


def table1(data: Data) -> list[Record]:
    records = []
    for direction, suite in DIRECTIONS.items():
        for label, metric in METRICS.items():
            scored = _scored(data, suite, metric)
            for part, k in (("All", None), ("Top 30%", TOP[suite])):
                column = f"{direction} ({part})"
                for name, figure, published in zip(("|r|", "|τ|", "|ρ|"), scored.agreement(k),
                                                   TABLE1[label][column]):
                    records.append(Record(PAPER, "table1", label, f"{column} {name}", round(abs(figure), 3),
                                          published))
    return records


def ranks_beside_human(scores: dict[str, float], human: dict[str, float], higher_is_better: bool
                       ) -> dict[str, int]:
    """Per system: its human rank minus its metric rank among the systems given (positive: the metric ranks it
    higher than the humans, the paper's ↑)."""
    by_metric = sorted(scores, key=lambda s: -scores[s] if higher_is_better else scores[s])
    by_human = sorted(human, key=lambda s: -human[s])
    return {s: by_human.index(s) - by_metric.index(s) for s in scores}


def mark(delta: int) -> str:
    return f"✓{delta}" if delta == 0 else (f"↑{delta}" if delta > 0 else f"↓{-delta}")


def table2(data: Data) -> list[Record]:
    records = []
    human = {s: _scored(data, WMT19_ENDE, "bleu").human[s] for s in TABLE2_SYSTEMS.values()}
    for label, published in TABLE2.items():
        metric = METRICS.get(label)
        cells: list[str | None]
        if label == "HUMAN":
            cells = [f"{human[s]:.3f}" for s in TABLE2_SYSTEMS.values()]
            total: int | None = 0
        elif metric is None:
            cells, total = [None] * len(TABLE2_SYSTEMS), None
        else:
            scored = _scored(data, WMT19_ENDE, metric)
            scores = {s: scored.scores[s] for s in TABLE2_SYSTEMS.values()}
            deltas = ranks_beside_human(scores, human, scored.higher_is_better)
            cells = [f"{scores[s] / 100:.4f} ({mark(deltas[s])})" for s in TABLE2_SYSTEMS.values()]
            total = sum(abs(d) for d in deltas.values())
        for system, cell, figure in zip(TABLE2_SYSTEMS, cells, published[:-1]):
            records.append(Record(PAPER, "table2", system, label, cell, figure))
        records.append(Record(PAPER, "table2", SUM_ROW, label, total, published[-1]))
    return records


def figure2(data: Data) -> list[Record]:
    """Kendall tau over the top K systems of en-de by human score, K = 3 ... 22 (the paper draws it only)."""
    records = []
    for label, metric in METRICS.items():
        scored = _scored(data, WMT19_ENDE, metric)
        for k in range(3, len(scored.human) + 1):
            records.append(Record(PAPER, "figure2", label, f"K={k}", round(scored.agreement(k)[1], 4), None))
    return records


def draw_figure2(data: Data, folder: Path) -> Path:
    """Kendall tau over the top K en-de systems for BLEU and TER against the WMT reference."""
    from dataclasses import replace

    from filters.correlation_figure import kendall_by_k_figure
    from suite.figures import save_figure

    table = freitag2020.correlation_table(data)
    rows = [row for row in table.rows if row.metric in METRICS.values() and row.refs is not None
            and row.refs.label == "wmt"]
    return save_figure(kendall_by_k_figure(replace(table, rows=rows)), folder / "zhan2021da-figure2.png")


TABLES: dict[str, Callable[[Data], list[Record]]] = {"table1": table1, "table2": table2, "figure2": figure2}
FIGURES: dict[str, Callable[[Data, Path], Path]] = {"figure2": draw_figure2}
