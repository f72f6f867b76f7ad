"""Zhan et al. 2021, *Variance-Aware Machine Translation Test Sets* (NeurIPS Datasets), on WMT19 with the VAT
selection the authors released (``Variance-Aware-MT-Test-Sets/VAT_meta/wmt19/bert-r_filter-std60.json``: BERTS-R
deviation, 60 % dropped; en-de 799 of 1,997 items, de-en 800 of 2,000).

Table 3 (BLEU's Pearson r, T.19, without and with VAT): the kept lines of the test set, its systems and its
reference imported as a suite of their own, as a user would import ``tsqe filter --export``'s files, and
``tsqe correlate --metric bleu --tokenize intl`` on both (``intl``: the BLEU of the authors' DA paper, whose
WMT19 en-de figures are the same). Table 4 (WMT19 row) and Figures 5-6 (WMT19 de-en and en-de; the paper
draws WMT20): ``tsqe vat-properties``. Not made: the WMT16-18 and WMT20 columns and Figures 2-4 and 8 over
them (not in ../shared); COMET and BLEURT (not in tsqe); BERTScore rows (an hour of embeddings the first time:
``tsqe correlate --metric bertscore-r``); Figure 7 (part of speech: no tagger installed).
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path

from bench.paper_tables import Record
from bench.paper_tables.data import WMT19_DEEN, WMT19_ENDE, Data
from filters.distributions import Distribution

PAPER = "zhan2021vat"
SELECTION = Path("Variance-Aware-MT-Test-Sets") / "VAT_meta" / "wmt19" / "bert-r_filter-std60.json"
PAIRS = {"De-En": ("de-en", WMT19_DEEN), "En-De": ("en-de", WMT19_ENDE)}
TABLE3_T19 = {"De-En": (0.888, 0.925), "En-De": (0.952, 0.952)}
"""Table 3, BLEU, column T.19: (original, +VAT)."""
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
    from filters.correlation_table import correlate_table
    from filters.metrics import MetricOptions
    from suite.references import RefChoice

    records = []
    for label, (pair, suite) in PAIRS.items():
        for row, name in (("BLEU", suite), ("+VAT", None)):
            name = name or _vat_suite(data, pair)
            table = data.kept(f"correlate {name} bleu intl wmt", partial(
                correlate_table, data.database(suite), ["bleu"], [RefChoice.parse("wmt")], suite_name=name,
                options=MetricOptions(tokenize="intl"), resamples=0))
            published = TABLE3_T19[label][0 if row == "BLEU" else 1]
            records.append(Record(PAPER, "table3", row, f"{label} T.19", round(table.rows[0].overall.pearson, 3),
                                  published))
    return records


@cache
def _properties(data: Data, suite: str, pair: str):  # type: ignore[no-untyped-def]
    from filters.selection_properties import selection_properties

    return selection_properties(data.database(suite), _positions(data, pair), suite_name=suite,
                                paraphrase="wmt.p" if suite == WMT19_ENDE else None)


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


TABLES: dict[str, Callable[[Data], list[Record]]] = {"table3": table3, "table4": table4, "figure5": figure5,
                                                     "figure6": figure6, "figure8": figure8}
FIGURES: dict[str, Callable[[Data, Path], Path]] = {"figure8": draw_figure8}
EMBEDDING_TABLES = ("figure8",)
"""Made of BERTScore alone: skipped by ``bench/papers.py --no-embeddings``."""
