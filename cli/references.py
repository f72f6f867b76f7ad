"""``tsqe import references``, ``tsqe references`` and ``tsqe references compose``: named reference sets."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cli.app import app, import_app
from cli.choices import STANDARD_REFERENCE
from cli.context import app_context
from cli.importing import _print_result
from cli.metric_options import layers_option, metric_options, model_option
from cli.progress import progress_bar
from cli.table_output import emit_table, format_option, out_option
from suite.lists import comma_list
from suite.tables import Cell, Column, Table

if TYPE_CHECKING:
    from suite.references import ComposedSet

references_app = typer.Typer(help="The suite's reference sets: list them (no subcommand), compose one from others.",
                             invoke_without_command=True)
app.add_typer(references_app, name="references")
METRIC_PREFIX = "metric:"


@import_app.command("references")
def import_references_command(
    ctx: typer.Context,
    file: Path = typer.Argument(..., exists=True, dir_okay=False,
                                help="Plain text, one reference per line in the suite's item order (a WMT test "
                                     "set's line order), or a TSV/CSV/XLSX table with columns item_id and text."),
    name: str = typer.Option(..., "--name", help="Name of the new reference set, e.g. ar or wmt.p."),
    kind: str = typer.Option(STANDARD_REFERENCE, "--kind", help="standard (used by default), paraphrase, or any "
                                                                "other kind."),
) -> None:
    """Add a named reference set to the suite; every line is checked before anything is written."""
    from suite.importers.references import import_references

    context = app_context(ctx)
    with progress_bar(f"importing reference set {name}") as task:
        result = import_references(context.database, file, name=name, kind=kind, suite_name=context.suite_name,
                                   task=task)
    _print_result(result)
    counts = result.counts
    typer.echo(f"reference set {name} ({kind}): {counts['references']} references on {counts['items_covered']} of "
               f"{counts['items']} items")
    if kind == STANDARD_REFERENCE:
        typer.echo("note: metrics use every reference of kind standard by default, so the default now includes "
                   f"{name}; choose sets with --refs", err=True)


@references_app.callback()
def list_references(ctx: typer.Context, fmt: str = format_option(), out: Path = out_option()) -> None:
    """The suite's reference sets with their kinds, counts and coverage (``compose`` adds one)."""
    if ctx.invoked_subcommand is not None:
        return
    from suite.references import reference_choices

    choices = reference_choices(app_context(ctx).database, app_context(ctx).suite_name)
    body = [[Cell(s.name), Cell(", ".join(s.kinds)), Cell(s.references), Cell(s.items)] for s in choices.sets]
    notes = [f"Default reference choice: every reference of kind standard ({choices.standard_items} items have one)."]
    if choices.known_good_items:
        notes.append(f"known-good: the known good translations of {choices.known_good_items} items.")
    table = Table(title="Reference sets", columns=[Column("set", "text"), Column("kinds", "text"),
                                                   Column("references", "count"), Column("items", "count")],
                  body=body, notes=notes)
    emit_table(table, fmt, out)


@references_app.command("compose")
def compose_command(
    ctx: typer.Context,
    sources: str = typer.Option(..., "--from", help="The sets to choose from, comma-separated, e.g. wmt,ar "
                                                    "(ties go to the first named)."),
    by: str = typer.Option(..., "--by", help="A ratings table (item_id, set, rating; higher is better) or "
                                             "metric:NAME (each candidate scored against the others: a consensus "
                                             "stand-in for human ratings)."),
    name: str = typer.Option(..., "--name", help="Name of the new set, e.g. hq-r."),
    kind: str = typer.Option(None, "--kind", help="Kind of the new set (default: the sources' kind when they "
                                                  "share one, else standard)."),
    model: str = model_option(),
    layers: int = layers_option(),
) -> None:
    """Compose a reference set per item from the best-rated of other sets (Freitag et al.'s HQ())."""
    context = app_context(ctx)
    names = comma_list(sources)
    if by.startswith(METRIC_PREFIX):
        from filters.reference_compose import compose_by_metric

        with progress_bar(f"composing {name}"):
            composed = compose_by_metric(context.database, by[len(METRIC_PREFIX):], name=name, sources=names,
                                         kind=kind, suite_name=context.suite_name,
                                         options=metric_options(model, layers) if model or layers else None)
    else:
        from suite.importers.ratings import compose_from_ratings

        composed = compose_from_ratings(context.database, Path(by), name=name, sources=names, kind=kind,
                                        suite_name=context.suite_name)
    _report(composed)


def _report(composed: ComposedSet) -> None:
    picked = ", ".join(f"{source} {count}" for source, count in composed.picked.items())
    typer.echo(f"reference set {composed.name} ({composed.kind}) on {composed.items} items: {picked}"
               + (f"; {composed.ties} ties went to the first named" if composed.ties else ""))
