"""Variance-aware filtering (Zhan et al. 2021, "Variance-Aware Machine Translation Test Sets").

An item on which all systems score alike cannot tell systems apart. Per item, the standard deviation of a
segment metric over systems is computed; the ``drop`` fraction of items with the lowest deviation is removed
with the released code's rule: keep an item iff its deviation is strictly above
``numpy.percentile(deviations, 100 * drop)`` (linear interpolation), so ties at the threshold are dropped.

The deviation is numpy's default population standard deviation (``ddof=0``), as ``np.std`` computes it.
A system without a score for an item (e.g. an unlabelled output under the ``label`` metric) is left out of
that item's deviation (``np.nanstd``); an item that no system has a score for cannot be ranked: it is
reported as unscored, is not kept, and takes no part in the percentile.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
from sqlalchemy import select

from filters.metrics import Signature, references_note
from store import Database
from store.models import Item
from suite.errors import TsqeError
from suite.file_names import safe_file_name
from suite.references import RefChoice, read_references
from suite.safe_export import writing
from suite.suites import find_suite
from suite.tables import Cell, Column, Table


class ScoreMatrix(Protocol):
    """What the filter needs of ``filters.scoring.SegmentScores``."""

    signature: Signature

    def matrix(self) -> tuple[list[str], list[str], np.ndarray]: ...


@dataclass(frozen=True)
class RankedItem:
    item: str
    std: float
    mean: float
    systems: int


@dataclass(frozen=True)
class VarianceResult:
    signature: Signature | None
    """Of the scores ranked; None for a matrix given without one."""
    drop: float
    threshold: float
    ranking: list[RankedItem]
    """Scored items, highest deviation first (ties in item order)."""
    kept: list[str]
    """Ids of the kept items, in suite order."""
    unscored: list[str]

    @property
    def dropped(self) -> int:
        return len(self.ranking) - len(self.kept)

    def to_table(self) -> Table:
        """Every scored item, most discriminative first; kept items' deviations in bold, a ``kept`` flag for data."""
        kept = set(self.kept)
        columns = [Column("item", "text"), Column("std", "number", 4), Column("mean", "number", 4),
                   Column("systems", "count"), Column("kept", "flag")]
        body = [[Cell(r.item), Cell(r.std, bold=r.item in kept), Cell(r.mean), Cell(r.systems),
                 Cell(r.item in kept)] for r in self.ranking]
        notes = [f"Metric: {self.signature}."] if self.signature is not None else []
        note = None if self.signature is None else references_note(self.signature)
        notes += [note] if note else []
        notes += [f"{len(self.ranking)} items ranked, {len(self.kept)} kept, {self.dropped} dropped (std <= "
                 f"{self.threshold:.6g}, the {100 * self.drop:g}th percentile)"
                 + (f"; {len(self.unscored)} items without scores." if self.unscored else ".")]
        return Table(title="Items by standard deviation of the metric over systems", columns=columns, body=body,
                     notes=notes, bold_means="kept", bold_note="kept (deviation above the threshold).")

    def to_json(self, metric: str) -> dict[str, object]:
        return {"metric": metric, "signature": None if self.signature is None else str(self.signature),
                "kept": self.kept, "dropped": self.dropped,
                "ranking": [{"item": r.item, "std": r.std, "mean": r.mean} for r in self.ranking]}


def deviations(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row (item) of an items x systems matrix with NaN for missing: std (ddof=0), mean, scored count."""
    counts = np.sum(~np.isnan(values), axis=1)
    std = np.full(values.shape[0], np.nan)
    mean = np.full(values.shape[0], np.nan)
    scored = counts > 0
    std[scored] = np.nanstd(values[scored], axis=1)
    mean[scored] = np.nanmean(values[scored], axis=1)
    return std, mean, counts


def filter_matrix(item_ids: Sequence[str], values: np.ndarray, *, drop: float = 0.6,
                  signature: Signature | None = None) -> VarianceResult:
    if not 0.0 <= drop < 1.0:
        raise TsqeError(f"the share of items to drop must be at least 0 and below 1, not {drop}")
    std, mean, counts = deviations(np.asarray(values, dtype=float))
    scored = [i for i in range(len(item_ids)) if counts[i] > 0]
    threshold = float(np.percentile(std[scored], 100 * drop)) if scored else float("nan")
    order = sorted(scored, key=lambda i: (-std[i], i))
    return VarianceResult(
        signature=signature, drop=drop, threshold=threshold,
        ranking=[RankedItem(item_ids[i], float(std[i]), float(mean[i]), int(counts[i])) for i in order],
        kept=[item_ids[i] for i in scored if std[i] > threshold],
        unscored=[item_ids[i] for i in range(len(item_ids)) if counts[i] == 0])


def variance_filter(scores: ScoreMatrix, drop: float = 0.6) -> VarianceResult:
    """Rank the items of ``scores`` by their deviation over systems and keep the most discriminative."""
    item_ids, _, values = scores.matrix()
    return filter_matrix(item_ids, values, drop=drop, signature=scores.signature)


def export_selection(db: Database, result: VarianceResult, out_dir: Path, *, metric: str,
                     suite_name: str | None = None, refs: RefChoice | None = None) -> list[Path]:
    """Write the kept items in the layout of the released VAT data.

    ``vat_<suite>-<sl><tl>-src.<sl>`` and ``-ref.<tl>`` (``-ref2.<tl>``... for further references) hold the
    kept items' sources and references line-aligned, in suite order; ``<metric>_filter-std<drop%>.json``
    maps the language pair to the kept items' 0-based positions in the suite (the line indices for a WMT
    test set), as ``VAT_meta/wmt19/bert-r_filter-std60.json`` does. An item with fewer references than
    another gets an empty line in the later reference files, so the files stay aligned.
    """
    kept = set(result.kept)
    with db.session() as session:
        suite = find_suite(session, suite_name)
        items = session.execute(select(Item.id, Item.external_id, Item.source).where(Item.suite_id == suite.id)
                                .order_by(Item.position, Item.id)).all()
        references = read_references(session, suite.id, refs or RefChoice.default())
        sl, tl = suite.source_lang, suite.target_lang
        name = suite.name
    selected = [(position, item_id, source) for position, (item_id, external_id, source) in enumerate(items)
                if external_id in kept]
    out_dir.mkdir(parents=True, exist_ok=True)
    # names and languages come from the data: each becomes a file name's part through suite.file_names
    file_sl, file_tl = (safe_file_name(str(language), blanks=False) for language in (sl, tl))
    stem = f"vat_{safe_file_name(name, blanks=False)}-{file_sl}{file_tl}"
    written = [_write_lines(out_dir / f"{stem}-src.{file_sl}", [_one_line(source) for _, _, source in selected])]
    width = max((len(references.get(item_id, [])) for _, item_id, _ in selected), default=0)
    for k in range(width):
        suffix = "ref" if k == 0 else f"ref{k + 1}"
        written.append(_write_lines(out_dir / f"{stem}-{suffix}.{file_tl}", [
            _one_line(references[item_id][k]) if len(references.get(item_id, [])) > k else ""
            for _, item_id, _ in selected]))
    meta = out_dir / f"{safe_file_name(metric, blanks=False)}_filter-std{round(result.drop * 100)}.json"
    with writing(meta) as temporary:
        temporary.write_text(json.dumps({f"{sl}-{tl}": [position for position, _, _ in selected]}) + "\n",
                             encoding="utf-8")
    written.append(meta)
    return written


def _one_line(text: str) -> str:
    """Keep line alignment even for a suite item whose text has a line break in it."""
    return " ".join(text.split("\n"))


def _write_lines(path: Path, lines: list[str]) -> Path:
    with writing(path) as temporary:
        temporary.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path
