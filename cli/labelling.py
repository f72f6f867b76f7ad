"""``tsqe label``: label the suite's outputs automatically and show the effective label counts."""
from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.table import Table

from cli.app import app
from cli.context import app_context
from cli.progress import progress_bar
from suite.engine.rules import DEFAULT_TIMEOUT


@app.command("label")
def label_command(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print the counts as one JSON object."),
    timeout: float = typer.Option(DEFAULT_TIMEOUT, "--timeout", min=0.001, metavar="SECONDS",
                                  help="Longest one regex search may take; slower ones label the output 'error'."),
) -> None:
    """Label every new or changed output with the suite's rules; reviewers' labels are kept as they are.

    Counts are effective labels (a reviewer's label, else the automatic one) over distinct outputs.
    """
    from suite.engine.labelling import relabel

    context = app_context(ctx)
    try:
        with progress_bar("labelling") as task:
            counts = relabel(context.database, context.suite_name, task, timeout=timeout)
    except KeyboardInterrupt:  # labelling commits chunk by chunk: what it wrote stays
        typer.echo("interrupted: the items labelled so far are kept, each whole, the others are as they were: "
                   "run tsqe label again to finish", err=True)
        raise typer.Exit(130) from None
    if as_json:
        typer.echo(json.dumps(counts))
        return
    table = Table(title="Effective labels over distinct outputs")
    table.add_column("label")
    table.add_column("outputs", justify="right")
    table.add_column("share", justify="right")
    total = sum(counts.values())
    for label, n in counts.items():
        table.add_row(label, str(n), f"{100 * n / total:.1f} %" if total else "-")
    table.add_row("total", str(total), "", style="bold")
    Console().print(table)
