"""The classic test-suite report: each MT system's pass rate per category (or phenomenon).

Counting follows the DFKI test-suite reports (Macketanz et al., Avramidis et al.): every *system output*
counts once for its system, so a distinct output shared by three systems counts for each of them, and
the pass rate is ``pass / (pass + fail)`` over EFFECTIVE labels (a reviewer's label, else the automatic
one). Outputs whose label is ``unknown``, ``conflict`` or ``error`` (or that were never labelled) say
nothing about the phenomenon, so they are left out of the rate and reported as ``excluded`` counts.

Within each row the best system and every system not significantly worse than it (one-sided
two-proportion z-test with the pooled proportion) form the "best cluster" that the reports mark in bold.

The report is shown through :mod:`suite.tables` (:meth:`SystemsReport.to_table`) like every other table;
its JSON document (:meth:`SystemsReport.to_dict`) is kept apart from the table's JSON because it carries
what a table cannot: the counts of each excluded label state per cell, and the test used.
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

from sqlalchemy import func, select

from store import Database
from store.domain import Label
from store.models import Category, Item, Phenomenon, System, SystemOutput
from suite.engine.labels import effective_label, join_labels
from suite.suites import find_suite
from suite.tables import NO_CATEGORY, NO_PHENOMENON, Column, Table
from suite.tables import Cell as TableCell

ReportBy = Literal["category", "phenomenon"]
RowKind = Literal["category", "phenomenon", "overall", "macro"]
EXCLUDED_STATES = ("unknown", "conflict", "error", "unlabelled")


@dataclass(frozen=True)
class Counts:
    """Effective labels of one system's outputs in one row."""

    passed: int = 0
    failed: int = 0
    unknown: int = 0
    conflict: int = 0
    error: int = 0
    unlabelled: int = 0

    @property
    def judged(self) -> int:
        return self.passed + self.failed

    @property
    def excluded(self) -> int:
        return self.unknown + self.conflict + self.error + self.unlabelled

    @property
    def rate(self) -> float | None:
        """None when no output was judged: a rate of 0 would claim failures that never happened."""
        return self.passed / self.judged if self.judged else None

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.passed + other.passed, self.failed + other.failed, self.unknown + other.unknown,
                      self.conflict + other.conflict, self.error + other.error,
                      self.unlabelled + other.unlabelled)

    @classmethod
    def of_label(cls, label: Label | None, n: int) -> Counts:
        field_name = "unlabelled" if label is None else {"pass": "passed", "fail": "failed"}.get(label, label)
        return cls(**{field_name: n})


@dataclass(frozen=True)
class SystemCell:
    """One system in one row. ``counts`` is None in the macro row, whose rate is a mean of rates."""

    rate: float | None
    best_cluster: bool
    counts: Counts | None = None


@dataclass(frozen=True)
class ReportRow:
    kind: RowKind
    category: str | None
    phenomenon: str | None
    items: int
    cells: dict[str, SystemCell]


@dataclass(frozen=True)
class SystemsReport:
    suite: str
    by: ReportBy
    alpha: float
    systems: list[str]
    rows: list[ReportRow]
    overall: ReportRow
    macro: ReportRow
    macro_over: int  # how many categories the macro average is taken over


    def legend(self) -> str:
        return (f"Rate = pass / (pass + fail) over effective labels of system outputs, in %; unknown, conflict, "
                f"error and unlabelled outputs are excluded. The macro average is the mean over {self.macro_over} "
                f"categories.")

    def to_table(self) -> Table:
        """Rows as in the report, then per system its rate and the pass and judged counts behind it.

        The best cluster is bold (``*`` in plain text, a ``best_cluster`` column in data formats); the
        excluded outputs of each system are counted in the notes.
        """
        labels = ["category"] if self.by == "category" else ["category", "phenomenon"]
        columns = [*(Column(name, "text") for name in labels), Column("items", "count")]
        for name in self.systems:
            columns += [Column(name, "fraction"), Column(f"{name} pass", "count"), Column(f"{name} judged", "count")]

        def cells(row: ReportRow, titles: list[str | None]) -> list[TableCell]:
            result = [*(TableCell(t) for t in titles), TableCell(row.items)]
            for name in self.systems:
                cell = row.cells[name]
                counts = cell.counts
                result += [TableCell(cell.rate, bold=cell.best_cluster),
                           TableCell(None if counts is None else counts.passed),
                           TableCell(None if counts is None else counts.judged)]
            return result

        pad: list[str | None] = [None] * (len(labels) - 1)
        body = [cells(row, [row.category, row.phenomenon][:len(labels)]) for row in self.rows]
        footer = [cells(self.overall, ["overall (micro)", *pad]), cells(self.macro, ["macro average", *pad])]
        excluded = ", ".join(f"{name} {(self.overall.cells[name].counts or Counts()).excluded}"
                             for name in self.systems)
        notes = [self.legend(), f"Excluded outputs: {excluded}."]
        bold = (f"the best system of the row and every system not significantly worse (one-sided two-proportion "
                f"z-test, alpha={self.alpha:g}); in the macro average only the highest value.")
        return Table(title=f"Pass rate per system: {self.suite}", columns=columns, body=body, footer=footer,
                     notes=notes, bold_means="best_cluster", bold_note=bold)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``tsqe report systems --format json``: every cell with all its label counts."""
        return {
            "suite": self.suite,
            "by": self.by,
            "alpha": self.alpha,
            "test": "one-sided two-proportion z-test, pooled proportion, against the best system of the row",
            "rate": "pass / (pass + fail) over effective labels of system outputs",
            "systems": self.systems,
            "rows": [_row_document(row) for row in self.rows],
            "overall": _row_document(self.overall),
            "macro": {**_row_document(self.macro), "categories": self.macro_over},
        }


    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)


def _cell_document(cell: SystemCell) -> dict[str, Any]:
    document: dict[str, Any] = {"rate": cell.rate, "best_cluster": cell.best_cluster}
    if cell.counts is not None:
        c = cell.counts
        document = {"pass": c.passed, "fail": c.failed, "excluded": c.excluded,
                    "excluded_by_label": {"unknown": c.unknown, "conflict": c.conflict, "error": c.error,
                                          "unlabelled": c.unlabelled},
                    **document}
    return document


def _row_document(row: ReportRow) -> dict[str, Any]:
    return {"kind": row.kind, "category": row.category, "phenomenon": row.phenomenon, "items": row.items,
            "systems": {name: _cell_document(cell) for name, cell in row.cells.items()}}


def one_sided_p_value(best_pass: int, best_n: int, other_pass: int, other_n: int) -> float:
    """P-value of H1 "the best system's pass proportion is higher than the other's" (pooled z-test).

    Equal proportions, including the degenerate pooled proportion 0 or 1 where the standard error is
    zero, give 1.0 ("not worse"). Both samples must be non-empty.
    """
    if best_n <= 0 or other_n <= 0:
        raise ValueError("the two-proportion test needs two non-empty samples")
    if best_pass * other_n == other_pass * best_n:
        return 1.0
    return _upper_tail(_z(best_pass, best_n, other_pass, other_n))


def _z(x1: int, n1: int, x2: int, n2: int) -> float:
    pooled = (x1 + x2) / (n1 + n2)
    standard_error = math.sqrt(pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2))
    return (x1 / n1 - x2 / n2) / standard_error


def _upper_tail(z: float) -> float:
    return 1.0 - NormalDist().cdf(z)


def significantly_worse(best: Counts, other: Counts, alpha: float = 0.05) -> bool:
    return one_sided_p_value(best.passed, best.judged, other.passed, other.judged) < alpha


def best_cluster(counts: dict[str, Counts], alpha: float = 0.05) -> set[str]:
    """The systems with the highest rate and those not significantly worse than (one of) them.

    Systems without a judged output in the row have no rate and are never in the cluster.
    """
    judged = {name: c for name, c in counts.items() if c.judged}
    if not judged:
        return set()
    top = max(c.passed / c.judged for c in judged.values())
    best = [c for c in judged.values() if c.passed / c.judged == top]
    return {name for name, c in judged.items() if any(not significantly_worse(b, c, alpha) for b in best)}


@dataclass(frozen=True)
class CountRow:
    """Stored label counts: ``n`` outputs of ``system`` in (category, phenomenon) have ``label``."""

    system: str
    category: str
    phenomenon: str
    label: Label | None
    n: int


def build_systems_report(
    suite: str,
    systems: Iterable[str],
    counts: Iterable[CountRow],
    items: dict[tuple[str, str], int],
    *,
    by: ReportBy = "category",
    alpha: float = 0.05,
) -> SystemsReport:
    """Assemble the report from label counts; ``items`` gives the items per (category, phenomenon) in suite
    order, which is also the order of the rows."""
    by_phenomenon: dict[tuple[str, str], dict[str, Counts]] = defaultdict(lambda: defaultdict(Counts))
    for row in counts:
        cell = by_phenomenon[(row.category, row.phenomenon)]
        cell[row.system] = cell[row.system] + Counts.of_label(row.label, row.n)
    by_category: dict[str, dict[str, Counts]] = defaultdict(lambda: defaultdict(Counts))
    category_items: dict[str, int] = defaultdict(int)
    for (category, phenomenon), n_items in items.items():
        category_items[category] += n_items
        for system, c in by_phenomenon[(category, phenomenon)].items():
            by_category[category][system] = by_category[category][system] + c

    names = list(systems)
    totals = {name: sum((by_category[cat][name] for cat in category_items), Counts()) for name in names}
    # Order columns as the reports do: best overall first; systems without any judged output last.
    names.sort(key=lambda name: (-(rate if (rate := totals[name].rate) is not None else -1.0), name))

    def make_row(kind: RowKind, category: str | None, phenomenon: str | None, n_items: int,
                 row_counts: dict[str, Counts]) -> ReportRow:
        full = {name: row_counts.get(name, Counts()) for name in names}
        cluster = best_cluster(full, alpha)
        return ReportRow(kind, category, phenomenon, n_items,
                         {name: SystemCell(c.rate, name in cluster, c) for name, c in full.items()})

    if by == "category":
        rows = [make_row("category", cat, None, n, by_category[cat]) for cat, n in category_items.items()]
    else:
        rows = [make_row("phenomenon", cat, ph, n, by_phenomenon[(cat, ph)]) for (cat, ph), n in items.items()]
    overall = make_row("overall", None, None, sum(items.values()), totals)
    macro, macro_over = _macro_row(names, [by_category[cat] for cat in category_items], sum(items.values()))
    return SystemsReport(suite, by, alpha, names, rows, overall, macro, macro_over)


def _macro_row(names: list[str], categories: list[dict[str, Counts]], n_items: int) -> tuple[ReportRow, int]:
    """Unweighted mean of each system's category rates over the categories where it has a rate.

    A mean of rates is not a proportion over a sample, so no test applies: only the highest mean(s) are
    marked.
    """
    means: dict[str, float | None] = {}
    for name in names:
        rates = [r for cat in categories if (r := cat.get(name, Counts()).rate) is not None]
        means[name] = sum(rates) / len(rates) if rates else None
    known = [m for m in means.values() if m is not None]
    top = max(known) if known else None
    cells = {name: SystemCell(m, m is not None and top is not None and math.isclose(m, top), None)
             for name, m in means.items()}
    return ReportRow("macro", None, None, n_items, cells), len(categories)


def systems_report(db: Database, suite_name: str | None = None, *, by: ReportBy = "category",
                   alpha: float = 0.05) -> SystemsReport:
    """Read the effective labels of every system output of the suite and build the report."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        label = effective_label(SystemOutput.output_id)
        counted = session.execute(join_labels(
            select(System.name, Category.name, Phenomenon.name, label, func.count())
            .select_from(SystemOutput)
            .join(System, System.id == SystemOutput.system_id)
            .join(Item, Item.id == SystemOutput.item_id)
            .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
            .outerjoin(Category, Category.id == Phenomenon.category_id),
            SystemOutput.output_id, SystemOutput.item_id)
            .where(System.suite_id == suite.id)
            .group_by(System.name, Category.name, Phenomenon.name, label)
        ).all()
        items = session.execute(
            select(Category.name, Phenomenon.name, func.count(), func.min(Item.position))
            .select_from(Item)
            .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
            .outerjoin(Category, Category.id == Phenomenon.category_id)
            .where(Item.suite_id == suite.id)
            .group_by(Category.name, Phenomenon.name)
        ).all()
        systems = list(session.scalars(select(System.name).where(System.suite_id == suite.id)))
        suite_title = suite.name
    first_of_category: dict[str, int] = {}
    for cat, _, _, first in items:
        first_of_category[_category(cat)] = min(first, first_of_category.get(_category(cat), first))
    ordered = sorted(items, key=lambda r: (first_of_category[_category(r[0])], r[3]))
    return build_systems_report(
        suite_title, systems,
        (CountRow(system, _category(cat), _phenomenon(ph), lab, n) for system, cat, ph, lab, n in counted),
        {(_category(cat), _phenomenon(ph)): n for cat, ph, n, _ in ordered}, by=by, alpha=alpha)


def _category(name: str | None) -> str:
    """Items of a plain test set have no phenomenon and so no category; they still get a row."""
    return NO_CATEGORY if name is None else name


def _phenomenon(name: str | None) -> str:
    return NO_PHENOMENON if name is None else name
