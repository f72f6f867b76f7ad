"""``tsqe report ...``: reports on a suite; ``report systems`` is the classic per-system table."""
from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path

import typer
from rich.console import Console

from cli.context import app_context
from cli.main import app

report_app = typer.Typer(help="Reports on the suite's labels.", no_args_is_help=True)
app.add_typer(report_app, name="report")


class By(str, Enum):
    category = "category"
    phenomenon = "phenomenon"


class Format(str, Enum):
    text = "text"
    csv = "csv"
    json = "json"
    md = "md"


@report_app.command("systems")
def report_systems(
    ctx: typer.Context,
    by: By = typer.Option(By.category, "--by", help="One row per category, or per phenomenon within category."),
    fmt: Format = typer.Option(Format.text, "--format", help="text (a table), csv, json or md (Markdown)."),
    out: Path = typer.Option(None, "--out", help="Write to this file instead of the terminal.",
                             dir_okay=False, writable=True),
    alpha: float = typer.Option(0.05, "--alpha", min=0.0, max=1.0,
                                help="Significance level of the best-cluster test."),
) -> None:
    """Pass rate of each MT system per category: pass / (pass + fail) over its system outputs.

    Effective labels count (a review wins over the automatic label); unknown, conflict and error outputs are excluded.

    Marked (* in text, bold in md): the best system of each row and those not significantly worse than it.
    """
    from suite.report import systems_report
    from suite.report_format import print_text, render

    context = app_context(ctx)
    report = systems_report(context.database, context.suite_name, by=by.value, alpha=alpha)
    if out is not None:
        out.write_text(render(report, fmt.value), encoding="utf-8")
        typer.echo(f"wrote {out}", err=True)
    elif fmt is Format.text:
        # A pipe gets the full table rather than rich's 80-column fallback.
        print_text(report, Console() if sys.stdout.isatty() else Console(width=160))
    else:
        typer.echo(render(report, fmt.value), nl=False)
    if not any(cell.counts and cell.counts.judged for cell in report.overall.cells.values()):
        typer.echo("note: no output has a pass or fail label yet; run `tsqe label` first", err=True)
