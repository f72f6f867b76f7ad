"""``tsqe export labels|suite``: the labels as a TSV, the suite as a file the importers read back."""
from __future__ import annotations

from pathlib import Path

import typer

from cli.app import app
from cli.context import app_context
from cli.unlabelled import say_unlabelled

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
    from suite.exporters.labels_tsv import LABEL_COLUMNS, export_labels

    context = app_context(ctx)
    say_unlabelled(context.database, context.suite_name)
    rows = export_labels(context.database, file, context.suite_name)
    typer.echo(f"wrote {rows} rows ({len(LABEL_COLUMNS)} columns) to {file}")


@export_app.command("suite")
def export_suite_command(
    ctx: typer.Context,
    file: Path = typer.Argument(..., help="The file to write: .tsv, .csv, .xlsx (table) or .json (DFKI).",
                                show_default=False),
) -> None:
    """Write the suite's items, rules, references and known translations to a file that imports back as is.

    A table has the columns of `tsqe import suite` (several entries in a cell separated by ' ||| ', a flags
    column with 'i' for rules that ignore case, reference kinds); JSON is the DFKI layout, with tsqe's
    extensions on items that need them. The table does not carry the languages.
    """
    from suite.exporters.suite_file import export_suite

    context = app_context(ctx)
    items = export_suite(context.database, file, context.suite_name)
    typer.echo(f"wrote {items} items to {file}")
