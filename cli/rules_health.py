"""``tsqe rules health``: how every rule of the suite is doing, as a table in any of the table formats."""
from __future__ import annotations

from pathlib import Path

import typer

from cli.app import app
from cli.choices import RULE_HEALTH_SORTS as SORTS
from cli.context import app_context
from cli.progress import progress_bar
from cli.table_output import emit_table, format_option, out_option

rules_app = typer.Typer(help="Look at a suite's rules as a whole.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")


@rules_app.command("health")
def health_command(
    ctx: typer.Context,
    category: str = typer.Option(None, "--category", help="Only this category's rules."),
    phenomenon: str = typer.Option(None, "--phenomenon", help="Only this phenomenon's rules (of --category "
                                                              "when two categories have one of that name)."),
    item: str = typer.Option(None, "--item", metavar="ITEM_ID", help="Only this item's rules."),
    problems: bool = typer.Option(False, "--problems", help="Only rules with a problem: matching nothing, "
                                  "always conflicting, overridden by reviewers, timing out, likely mistyped."),
    sort: str = typer.Option("item", "--sort", metavar="|".join(SORTS),
                             help="Suite order, or by a count (most first; precision lowest first)."),
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """Per rule: the outputs it matches, the decisions it made, how many reviewers overrode, and its problems."""
    if sort not in SORTS:
        raise typer.BadParameter(f"--sort is one of {', '.join(SORTS)}, not {sort!r}")
    from suite.assist.rule_health import rule_health
    from suite.editing.api import find_item

    context = app_context(ctx)
    db = context.database
    item_id = None if item is None else find_item(db, item, context.suite_name)
    with progress_bar("checking rules") as task:
        report = rule_health(db, context.suite_name, category=category, phenomenon=phenomenon, item_id=item_id,
                             task=task)
    rules = [rule for rule in report.sorted(sort) if not problems or report.problems(rule)]
    emit_table(report.to_table(rules), fmt, out)
