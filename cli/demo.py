"""``tsqe demo``: load the bundled German→English demo suite into the chosen database."""
from __future__ import annotations

import typer

from cli.app import app
from cli.context import app_context


@app.command("demo")
def demo(
    ctx: typer.Context,
    name: str = typer.Option("tsqe-demo-de-en", "--name", help="Name for the demo suite in the database."),
) -> None:
    """Create the demo suite (71 German→English items, 4 MT systems, reviews) in --db and label it.

    Refuses if the database already holds a suite of that name.
    """
    from suite.demo import create_demo

    summary = create_demo(app_context(ctx).database, name=name)
    for warning in summary.warnings:
        typer.echo(f"warning: {warning} (broken on purpose, to show the error label)", err=True)
    counts = ", ".join(f"{value} {key.replace('_', ' ')}" for key, value in summary.counts.items())
    labels = ", ".join(f"{key} {value}" for key, value in summary.labels.items())
    typer.echo(f"Created suite {summary.suite!r}: {counts}.")
    typer.echo(f"Effective labels of distinct outputs: {labels}.")
    typer.echo("Next: `tsqe report systems`, `tsqe export labels FILE`, or `tsqe-gui`.")
