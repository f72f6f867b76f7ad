"""Renderings of a ``SystemsReport``: a rich table for people, Markdown for papers, CSV and JSON for tools.

The layout is that of the DFKI test-suite reports: rows are categories (or phenomena), columns are MT
systems, a cell is the pass rate in percent; the best cluster is marked with ``*`` (text) or bold (md).
Machine formats give the rate as a fraction in [0, 1] and the full counts.
"""
from __future__ import annotations

import csv
import io
import json
from typing import Any, Literal

from rich.console import Console
from rich.table import Table

from suite.report import Cell, Counts, ReportRow, SystemsReport

ReportFormat = Literal["text", "csv", "json", "md"]
FORMATS: tuple[ReportFormat, ...] = ("text", "csv", "json", "md")


def render(report: SystemsReport, fmt: ReportFormat, *, width: int = 160) -> str:
    if fmt == "text":
        return to_text(report, width=width)
    if fmt == "csv":
        return to_csv(report)
    if fmt == "json":
        return json.dumps(to_document(report), indent=2, ensure_ascii=False) + "\n"
    if fmt == "md":
        return to_markdown(report)
    raise ValueError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")


def legend(report: SystemsReport) -> str:
    return (f"rate = pass / (pass + fail) over effective labels of system outputs, in %; unknown, conflict, "
            f"error and unlabelled outputs are excluded. Marked: the best system and every system not "
            f"significantly worse (one-sided two-proportion z-test, alpha={report.alpha:g}). The macro "
            f"average is the mean over {report.macro_over} categories; only its highest value is marked.")


def _row_title(row: ReportRow) -> str:
    if row.kind == "phenomenon":
        return f"{row.category} / {row.phenomenon}"
    if row.kind == "overall":
        return "overall (micro)"
    if row.kind == "macro":
        return "macro average"
    return row.category or ""


def _percent(rate: float | None) -> str:
    return "–" if rate is None else f"{100 * rate:.1f}"


def _text_cell(cell: Cell) -> str:
    mark = "*" if cell.best_cluster else " "
    counts = f" {cell.counts.passed}/{cell.counts.judged}" if cell.counts is not None else ""
    return f"{_percent(cell.rate)}{mark}{counts}"


def to_rich_table(report: SystemsReport) -> Table:
    by = "Phenomenon" if report.by == "phenomenon" else "Category"
    table = Table(title=f"Pass rate per system: {report.suite}")
    table.add_column(by)
    table.add_column("items", justify="right")
    for name in report.systems:
        table.add_column(name, justify="right")
    for row in report.rows:
        table.add_row(_row_title(row), str(row.items), *(_text_cell(row.cells[n]) for n in report.systems))
    table.add_section()
    for row in (report.overall, report.macro):
        table.add_row(_row_title(row), str(row.items), *(_text_cell(row.cells[n]) for n in report.systems))
    table.add_row("excluded", "", *(_excluded(report.overall.cells[n].counts) for n in report.systems))
    return table


def _excluded(counts: Counts | None) -> str:
    if counts is None:
        return ""
    return str(counts.excluded)


def print_text(report: SystemsReport, console: Console) -> None:
    console.print(to_rich_table(report))
    console.print(legend(report))


def to_text(report: SystemsReport, *, width: int = 160) -> str:
    buffer = io.StringIO()
    print_text(report, Console(file=buffer, width=width, color_system=None, force_terminal=False))
    return buffer.getvalue()


def to_markdown(report: SystemsReport) -> str:
    by = "Phenomenon" if report.by == "phenomenon" else "Category"
    lines = [f"| {by} | items | " + " | ".join(report.systems) + " |",
             "|---|---:|" + "---:|" * len(report.systems)]

    def md_cell(cell: Cell) -> str:
        rate = _percent(cell.rate)
        text = f"**{rate}**" if cell.best_cluster else rate
        return text + (f" ({cell.counts.passed}/{cell.counts.judged})" if cell.counts is not None else "")

    for row in [*report.rows, report.overall, report.macro]:
        title = _row_title(row).replace("|", "\\|")
        if row.kind in ("overall", "macro"):
            title = f"*{title}*"
        lines.append(f"| {title} | {row.items} | " + " | ".join(md_cell(row.cells[n]) for n in report.systems)
                     + " |")
    lines.append("| *excluded* | | " + " | ".join(_excluded(report.overall.cells[n].counts)
                                                 for n in report.systems) + " |")
    return "\n".join(lines) + "\n\n" + legend(report) + "\n"


CSV_COLUMNS = ("row", "category", "phenomenon", "items", "system", "pass", "fail", "unknown", "conflict",
               "error", "unlabelled", "excluded", "rate", "best_cluster")


def to_csv(report: SystemsReport) -> str:
    """One line per (row, system); the macro row has a rate but no counts."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in [*report.rows, report.overall, report.macro]:
        for name in report.systems:
            cell = row.cells[name]
            c = cell.counts
            counts = ([c.passed, c.failed, c.unknown, c.conflict, c.error, c.unlabelled, c.excluded]
                      if c is not None else [""] * 7)
            writer.writerow([row.kind, row.category or "", row.phenomenon or "", row.items, name, *counts,
                             "" if cell.rate is None else f"{cell.rate:.6f}", int(cell.best_cluster)])
    return buffer.getvalue()


def _cell_document(cell: Cell) -> dict[str, Any]:
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


def to_document(report: SystemsReport) -> dict[str, Any]:
    return {
        "suite": report.suite,
        "by": report.by,
        "alpha": report.alpha,
        "test": "one-sided two-proportion z-test, pooled proportion, against the best system of the row",
        "rate": "pass / (pass + fail) over effective labels of system outputs",
        "systems": report.systems,
        "rows": [_row_document(row) for row in report.rows],
        "overall": _row_document(report.overall),
        "macro": {**_row_document(report.macro), "categories": report.macro_over},
    }
