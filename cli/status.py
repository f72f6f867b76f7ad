"""``tsqe status``: what the current suite holds."""
from __future__ import annotations

import json

import typer

from cli.app import app
from cli.context import app_context


@app.command("status")
def status_command(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print the counts as JSON."),
) -> None:
    """Counts of items, categories, phenomena, systems, outputs and labels (over distinct outputs)."""
    from suite.reading.status import suite_status, unlabelled_outputs

    context = app_context(ctx)
    status = suite_status(context.database, context.suite_name)
    unlabelled = unlabelled_outputs(context.database, context.suite_name)
    if as_json:
        typer.echo(json.dumps({**status, "unlabelled_outputs": unlabelled.outputs}, indent=2))
        return
    typer.echo(f"suite {status['suite']} ({status['source_lang'] or '?'} -> {status['target_lang'] or '?'})")
    for key in ("items", "categories", "phenomena", "rules", "invalid_rules", "systems", "outputs",
                "system_outputs"):
        typer.echo(f"  {key.replace('_', ' '):<16}{status[key]:>9}")
    labels = status["labels"]
    typer.echo(f"  {'labels':<16}{'auto':>9}{'manual':>9}{'effective':>11}")
    for label in dict.fromkeys([*labels["effective"], *labels["manual"]]):
        cells = [labels[kind].get(label) for kind in ("auto", "manual", "effective")]
        typer.echo(f"    {label:<14}" + "".join(f"{'' if n is None else n:>{w}}"
                                               for n, w in zip(cells, (9, 9, 11), strict=True)))
    if unlabelled.notice is not None:
        typer.echo(f"{unlabelled.notice}: run tsqe label to label them (a labelling that was stopped resumes where "
                   "it stopped; what it committed is kept)")
