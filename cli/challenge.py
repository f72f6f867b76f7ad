"""``tsqe import challenge``: a contrastive challenge set (DEMETR, ACES, the contrastive TSV) as a suite."""
from __future__ import annotations

from pathlib import Path

import typer

from cli.app import import_app
from cli.choices import CHALLENGE_FORMATS
from cli.context import app_context
from cli.importing import _print_result
from cli.progress import progress_bar

SHOWN_IDS = 20
"""Ids listed in a report line; the rest are counted."""


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:SHOWN_IDS])
    return shown + (f" … and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else "")


@import_app.command("challenge")
def import_challenge_command(
    ctx: typer.Context,
    path: Path = typer.Argument(..., exists=True, help="A file of the set, or a folder of its files (DEMETR's "
                                                       "dataset/*.json, or tables).", show_default=False),
    fmt: str = typer.Option(..., "--format", help=f"The set's layout: {', '.join(CHALLENGE_FORMATS)}."),
    name: str = typer.Option(None, "--name", help="Name of the new suite (default: the file or folder name)."),
    include_unchecked: bool = typer.Option(False, "--include-unchecked",
                                           help="Also import the examples the set flags as not valid (DEMETR: "
                                                "pert_check false, the perturbation could not be applied)."),
) -> None:
    """Import a contrastive challenge set as a suite, ready for tsqe accuracy.

    Each example becomes an item (category and phenomenon from the set: DEMETR's severity and perturbation,
    ACES's top-level class and phenomenon) with its source and reference, and two outputs: the good translation
    (system "good") labelled pass and the incorrect one (system "bad") labelled fail by construction. The
    contrastive TSV has the columns source, reference, good, bad, category, phenomenon and optionally id and
    language_pair (e.g. de-en). A set of several languages gets "mul" with each item's own.
    """
    from qe.evaluation import CHALLENGE_TIES
    from suite.importers import ImportResult
    from suite.importers.challenge import import_challenge

    context = app_context(ctx)
    with progress_bar("importing challenge set") as task:
        result = import_challenge(context.database, path, fmt, name=name, include_unchecked=include_unchecked,
                                  task=task)
    _print_result(ImportResult(warnings=result.warnings))
    typer.echo(f"suite {result.suite!r} ({result.format}): {result.items} items, {result.pairs} pass/fail pairs, "
               f"{result.categories} categories, {result.phenomena} phenomena, {result.references} references; "
               f"languages {result.source_lang or '?'}-{result.target_lang or '?'}")
    if result.unchecked:
        typer.echo(f"{len(result.unchecked)} example{'s' if len(result.unchecked) != 1 else ''} the set flags as "
                   f"not valid left out (--include-unchecked imports them): {_ids(result.unchecked)}")
    if result.identical:
        typer.echo(f"{len(result.identical)} item{'s' if len(result.identical) != 1 else ''} whose good and bad "
                   f"translations are the same text (kept, no pair): {_ids(result.identical)}")
    typer.echo(f"ties count as {CHALLENGE_TIES} in this suite's accuracy tables unless --ties says otherwise "
               f"(the published convention of challenge sets)")
