"""``tsqe export labels``: the labels as a TSV."""
from __future__ import annotations

from pathlib import Path

import typer

from cli.context import app_context
from cli.main import app
from suite.export import LABEL_COLUMNS, export_labels

export_app = typer.Typer(help="Export data as files.", no_args_is_help=True)
app.add_typer(export_app, name="export")


@export_app.command("labels")
def export_labels_command(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="The TSV file to write.", show_default=False),
) -> None:
    """Write the labels of every system output to a TSV.

    Columns: item_id, system, output, auto_label, decided_by, manual_label, reviewer, reviewed_at, comment,
    effective_label; ordered by item, then system.
    """
    context = app_context(ctx)
    rows = export_labels(context.database, file, context.suite_name)
    typer.echo(f"wrote {rows} rows ({len(LABEL_COLUMNS)} columns) to {file}")
