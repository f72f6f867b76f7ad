"""Where does the ranking of QE systems flip? The disagreement number (Xiang et al. 2022) between the rows of an
accuracy table, and between suites on their shared categories.

Each row of :func:`qe.accuracy.pairwise_accuracy` ranks the QE systems with shared places from the paired item
bootstrap that marks its best systems (``AccuracyRow.ranks``). Two rows disagree on a pair of QE systems when one
ranks A strictly above B and the other B strictly above A (:func:`suite.significance.disagreeing_pairs`); their
disagreement number is how many pairs do. A row with too few pairs for a conclusion (``AccuracyRow.too_few``) is
left out of every count: its ranks are shown, greyed, but a flip against noise is no finding.

Between suites (the same QE systems on DFKI de-en and en-de, or on a suite and a challenge set) the rows compared
are the categories both suites have, each suite's ranking against the other's.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from qe.accuracy import TOO_FEW_MARK, AccuracyResult, AccuracyRow
from suite.errors import TsqeError
from suite.figures import heat_map
from suite.significance import disagreeing_pairs
from suite.tables import Cell, Column, Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Side:
    """One QE system pair on one side of a flip: the row (or suite), and both systems' figures there."""

    label: str
    accuracy: tuple[float, float]
    ci: tuple[tuple[float, float] | None, tuple[float, float] | None]
    ranks: tuple[int, int]


@dataclass(frozen=True)
class Flip:
    """QE systems ``first`` and ``second``: ``first`` ranked strictly above on side ``a``, below on side ``b``."""

    first: str
    second: str
    a: Side
    b: Side


def flips_between(row_a: AccuracyRow, label_a: str, row_b: AccuracyRow, label_b: str) -> list[Flip]:
    """The QE system pairs the two rows rank strictly the opposite way."""
    def side(row: AccuracyRow, label: str, first: str, second: str) -> Side:
        first_rank, second_rank = row.ranks[first], row.ranks[second]
        assert first_rank is not None and second_rank is not None
        return Side(label, (row.accuracy[first], row.accuracy[second]), (row.ci.get(first), row.ci.get(second)),
                    (first_rank, second_rank))

    return [Flip(first, second, side(row_a, label_a, first, second), side(row_b, label_b, first, second))
            for first, second in disagreeing_pairs(row_a.ranks, row_b.ranks)]


@dataclass(frozen=True)
class RankingDisagreement:
    """Flips between the rankings of QE systems in a grid of comparisons.

    Square (``columns`` None): every two rows of one accuracy table. Otherwise each row is a shared category
    and each column a pair of suites. ``cells[i][j]`` is None where the comparison is left out (too few pairs,
    the diagonal).
    """

    title: str
    qe_systems: list[str]
    rows: list[str]
    columns: list[str] | None
    cells: list[list[list[Flip] | None]]
    too_few: list[int]
    """Rows with too few pairs for a conclusion (square only), marked with a dagger."""
    left_out: list[int]
    """Rows left out of the counts: those with too few pairs, unless they were counted on request."""
    ranks: list[dict[str, int | None]]
    """The QE systems' ranks on each row (square only; empty otherwise)."""
    note: str

    @property
    def column_labels(self) -> list[str]:
        return self.rows if self.columns is None else self.columns

    def counts(self) -> np.ndarray:
        return np.array([[math.nan if cell is None else len(cell) for cell in row] for row in self.cells],
                        dtype=float).reshape(len(self.rows), len(self.column_labels))

    def flips(self, row: int, column: int) -> list[Flip]:
        return self.cells[row][column] or []

    def to_table(self) -> Table:
        """The counts: a square table of rows, or categories by suite pairs."""
        name = "row" if self.columns is None else "category"
        columns = [Column(name, "text"), *(Column(label, "count") for label in self.column_labels)]
        body = []
        for i, label in enumerate(self.rows):
            mark = TOO_FEW_MARK if i in self.too_few else ""
            counts = (Cell(None if cell is None else len(cell)) for cell in self.cells[i])
            body.append([Cell(label, mark=mark), *counts])
        notes = [self.note, "Disagreement number: QE system pairs ranked strictly one way on one side and strictly "
                            "the other way on the other (systems sharing a rank are not ordered)."]
        if self.left_out:
            notes.append(f"{TOO_FEW_MARK} too few pairs for a conclusion: left out of the counts.")
        elif self.too_few:
            notes.append(f"{TOO_FEW_MARK} too few pairs for a conclusion: counted on request, read with care.")
        notes += [f"{flip.a.label} ranks {flip.first} above {flip.second}, {flip.b.label} the other way."
                  for i, row in enumerate(self.cells) for j, cell in enumerate(row)
                  if cell and (self.columns is not None or i < j) for flip in cell]
        return Table(title=self.title, columns=columns, body=body, notes=notes)

    def flips_table(self, row: int, column: int) -> Table:
        """The QE system pairs of one cell, each system on a line with its accuracy [interval] and rank on both
        sides; bold marks the system ranked higher on that side."""
        flips = self.flips(row, column)
        a, b = (flips[0].a.label, flips[0].b.label) if flips else (self.rows[row], self.column_labels[column])
        columns = [Column("flip", "count"), Column("QE system", "text"), Column(a, "fraction"),
                   Column(f"rank on {a}", "count"), Column(b, "fraction"), Column(f"rank on {b}", "count")]
        body = []
        for number, flip in enumerate(flips, start=1):
            for k, system in enumerate((flip.first, flip.second)):
                body.append([Cell(number), Cell(system),
                             Cell(flip.a.accuracy[k], ci=flip.a.ci[k], bold=k == 0), Cell(flip.a.ranks[k]),
                             Cell(flip.b.accuracy[k], ci=flip.b.ci[k], bold=k == 1), Cell(flip.b.ranks[k])])
        notes = [f"{len(flips)} QE system pair(s) ranked strictly one way on {a} and the other way on {b}.",
                 "[low, high]: 95% bootstrap interval over items."]
        return Table(title=f"QE systems ranked the other way on {a} and {b}", columns=columns, body=body,
                     notes=notes, bold_note="ranked higher of the pair on that side.")

    def ranks_table(self) -> Table:
        """The ranks of the QE systems per row (square only), rank 1 in bold, too-few rows marked."""
        columns = [Column("row", "text"), *(Column(q, "count") for q in self.qe_systems)]
        body = [[Cell(label, mark=TOO_FEW_MARK if i in self.too_few else ""),
                 *(Cell(self.ranks[i].get(q)) for q in self.qe_systems)] for i, label in enumerate(self.rows)]
        notes = [self.note, "Rank 1 is best; QE systems not significantly different share a rank (paired bootstrap "
                            "over items, one-sided, alpha 0.05)."]
        if self.too_few:
            notes.append(f"{TOO_FEW_MARK} too few pairs for a conclusion.")
        return Table(title=self.title.replace("Disagreement", "Significant ranks"), columns=columns, body=body,
                     notes=notes)

    def heat_map(self) -> Figure:
        return heat_map(self.rows, self.counts(), title=self.title, left_out=self.left_out,
                        column_labels=self.columns, note=self.note)

    def to_dict(self) -> dict[str, Any]:
        def side(s: Side) -> dict[str, Any]:
            return {"label": s.label, "accuracy": list(s.accuracy),
                    "ci": [None if c is None else list(c) for c in s.ci], "ranks": list(s.ranks)}

        cells = {}
        for i, row in enumerate(self.cells):
            for j, cell in enumerate(row):
                if cell is not None and (self.columns is not None or i < j):
                    key = f"{self.rows[i]}|{self.column_labels[j]}"
                    cells[key] = {"disagreement": len(cell), "flips": [
                        {"systems": [f.first, f.second], "a": side(f.a), "b": side(f.b)} for f in cell]}
        return {"title": self.title, "qe_systems": self.qe_systems, "rows": self.rows, "columns": self.columns,
                "too_few": [self.rows[i] for i in self.too_few], "left_out": [self.rows[i] for i in self.left_out],
                "cells": cells}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)


def row_disagreement(result: AccuracyResult, *, count_too_few: bool = False) -> RankingDisagreement:
    """The disagreement between every two rows of an accuracy table (bootstrap needed for significant ranks);
    rows with too few pairs are left out unless ``count_too_few`` (a small suite's researcher looking anyway)."""
    if not result.bootstrap:
        raise TsqeError("significant ranks need bootstrap resamples: a table without them cannot tell which "
                        "QE systems differ")
    rows = result.rows
    too_few = [i for i, row in enumerate(rows) if row.too_few]
    left_out = [] if count_too_few else too_few
    cells: list[list[list[Flip] | None]] = [[None] * len(rows) for _ in rows]
    for i, j in combinations(range(len(rows)), 2):
        if i in left_out or j in left_out:
            continue
        cells[i][j] = flips_between(rows[i], rows[i].name, rows[j], rows[j].name)
        cells[j][i] = flips_between(rows[j], rows[j].name, rows[i], rows[i].name)
    where = f"phenomena of {result.category}" if result.category else f"{result.by} rows"
    note = (f"QE systems: {', '.join(result.qe_systems)}; ties {result.ties!r}; {result.bootstrap:,} item resamples, "
            f"seed {result.seed}.")
    return RankingDisagreement(f"Disagreement between {where} on the ranking of QE systems", result.qe_systems,
                               [row.name for row in rows], None, cells, too_few, left_out,
                               [dict(r.ranks) for r in rows], note)


def suite_disagreement(results: dict[str, AccuracyResult]) -> RankingDisagreement:
    """Per category that every suite has, the disagreement between every two suites' rankings of the same QE
    systems (the accuracy tables per category, with bootstrap)."""
    if len(results) < 2:
        raise TsqeError("name at least two suites to compare")
    tables = list(results.values())
    systems = tables[0].qe_systems
    if any(sorted(t.qe_systems) != sorted(systems) for t in tables[1:]):
        raise TsqeError("the suites must be compared on the same QE systems")
    if any(t.by != "category" or t.category is not None for t in tables) or any(not t.bootstrap for t in tables):
        raise TsqeError("suites are compared on their categories, with bootstrap resamples")
    by_category = [{row.category: row for row in t.rows} for t in tables]
    shared = [row.category for row in tables[0].rows if all(row.category in rows for rows in by_category[1:])]
    if not shared:
        raise TsqeError(f"the suites {', '.join(results)} have no category in common")
    names = list(results)
    pairs = list(combinations(range(len(names)), 2))
    cells: list[list[list[Flip] | None]] = []
    for category in shared:
        line: list[list[Flip] | None] = []
        for a, b in pairs:
            row_a, row_b = by_category[a][category], by_category[b][category]
            line.append(None if row_a.too_few or row_b.too_few else
                        flips_between(row_a, names[a], row_b, names[b]))
        cells.append(line)
    note = (f"QE systems: {', '.join(systems)}; categories shared by {', '.join(names)}; a category with too few "
            "pairs in either suite is left out.")
    return RankingDisagreement("Disagreement between suites on the ranking of QE systems per category", systems,
                               [str(category) for category in shared],
                               [f"{names[a]} | {names[b]}" for a, b in pairs], cells, [], [], [], note)
