"""``tsqe import wmt`` and ``tsqe import human-scores``: WMT test sets and their official human scores."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cli.context import app_context
from cli.importing import _print_result
from cli.main import import_app

if TYPE_CHECKING:
    from suite.importers import ImportResult


def _report(result: ImportResult) -> None:
    _print_result(result)
    typer.echo(", ".join(f"{count} {what.replace('_', ' ')}" for what, count in result.counts.items()))


@import_app.command("wmt")
def import_wmt_command(
    ctx: typer.Context,
    src: Path = typer.Option(..., "--src", exists=True, dir_okay=False, help="Source file, one segment a line."),
    ref: list[Path] = typer.Option(..., "--ref", exists=True, dir_okay=False,
                                   help="Reference file, line-aligned with the source (repeat for several)."),
    systems: list[Path] = typer.Option(..., "--systems", exists=True,
                                       help="A directory of system outputs, or one output file (repeatable); "
                                            "files are named <testset>.<SYSTEM>.<src>-<tgt>."),
    name: str = typer.Option(..., "--name", help="Name of the new suite."),
    source_lang: str = typer.Option(None, "--source-lang", help="Source language (default: from the file names)."),
    target_lang: str = typer.Option(None, "--target-lang", help="Target language (default: from the file names)."),
) -> None:
    """Import a WMT test set as a suite: items 1..N (line numbers) with references, one system per file."""
    from suite.importers import import_wmt

    result = import_wmt(app_context(ctx).database, src=src, refs=ref, systems=systems, name=name,
                        source_lang=source_lang, target_lang=target_lang)
    _report(result)


@import_app.command("human-scores")
def import_human_scores_command(
    ctx: typer.Context,
    file: Path = typer.Argument(..., exists=True, dir_okay=False,
                                help="Space-separated 'LP HUMAN SYSTEM' lines with that header (WMT DA-syslevel.csv)."),
    lp: str = typer.Option(..., "--lp", help="Language pair whose lines to import, e.g. de-en."),
) -> None:
    """Import official system-level human scores for the suite's systems (replacing earlier ones)."""
    from suite.importers import import_human_scores

    context = app_context(ctx)
    _report(import_human_scores(context.database, file, lp=lp, suite_name=context.suite_name))
