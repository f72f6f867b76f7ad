"""``tsqe report ...``: reports on a suite; ``report systems`` is the classic per-system table."""
from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from cli.app import app
from cli.context import app_context
from cli.table_output import emit_table, format_option, out_option
from cli.unlabelled import say_unlabelled

report_app = typer.Typer(help="Reports on the suite's labels.", no_args_is_help=True)
app.add_typer(report_app, name="report")


class By(StrEnum):
    category = "category"
    phenomenon = "phenomenon"


@report_app.command("systems")
def report_systems(
    ctx: typer.Context,
    by: By = typer.Option(By.category, "--by", help="One row per category, or per phenomenon within category."),
    fmt: str = format_option(),
    out: Path = out_option(),
    alpha: float = typer.Option(0.05, "--alpha", min=0.0, max=1.0,
                                help="Significance level of the best-cluster test."),
) -> None:
    """Pass rate of each MT system per category: pass / (pass + fail) over its system outputs.

    Effective labels count (a review wins over the automatic label); unknown, conflict and error outputs are excluded.

    Bold (* in text): the best system of each row and those not significantly worse than it. --format json gives
    the report's own document, which also counts every excluded label state of each cell.
    """
    from suite.reading.report import systems_report

    context = app_context(ctx)
    unlabelled = say_unlabelled(context.database, context.suite_name)
    report = systems_report(context.database, context.suite_name, by=by.value, alpha=alpha)
    emit_table(report.to_table(), fmt, out, document=report.to_json() + "\n", unlabelled=unlabelled)
    if not any(cell.counts and cell.counts.judged for cell in report.overall.cells.values()):
        typer.echo("note: no output has a pass or fail label yet; run `tsqe label` first", err=True)
