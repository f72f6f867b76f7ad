"""``tsqe import suite|outputs|qe|labels``: bring files into the database."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cli.app import import_app
from cli.context import app_context
from cli.progress import progress_bar

if TYPE_CHECKING:
    from suite.importers import ImportResult

FILE = typer.Argument(..., help="The file to import.", show_default=False)


def _print_result(result: ImportResult) -> None:
    for problem in result.warnings:
        typer.echo(f"{problem.location}: warning: {problem.message}", err=True)
    for line in result.summary:
        typer.echo(line)


@import_app.command("suite")
def import_suite_command(
    ctx: typer.Context,
    file: Path = FILE,
    name: str = typer.Option(None, "--name", help="Suite name (default: the file name, or the folder name "
                                                   "for a file called items.json as in the DFKI repository)."),
    source_lang: str = typer.Option(None, "--source-lang", help="Source language (tables only; the DFKI "
                                                                "format names it in langpair)."),
    target_lang: str = typer.Option(None, "--target-lang", help="Target language (tables only)."),
    update: bool = typer.Option(False, "--update", help="Update an existing suite of that name: items are "
                                                        "matched by id, changed ones updated, new ones added."),
    remove_missing: bool = typer.Option(False, "--remove-missing",
                                        help="With --update: delete items that are not in the file, with "
                                             "their outputs and labels."),
    strict: bool = typer.Option(False, "--strict", help="Refuse the file if a pattern does not compile "
                                                        "(by default it is imported as an invalid rule)."),
) -> None:
    """Import a test suite from DFKI JSON or a TSV/CSV/XLSX table.

    A table has the columns id, category, phenomenon, source and optionally positive_regex, negative_regex,
    flags, reference, reference_kinds, good_translations, bad_translations, comment. Several entries in a cell
    are separated by ' ||| '; flags has one entry per rule (positive, then negative): 'i' ignores case.
    A table without --source-lang/--target-lang leaves the languages unknown (set them with tsqe suite edit).
    """
    from suite.importers import import_suite

    context = app_context(ctx)
    with progress_bar("importing suite") as task:
        result = import_suite(context.database, file, name=name, source_lang=source_lang, target_lang=target_lang,
                              update=update, remove_missing=remove_missing, strict=strict,
                              task=task)
    _print_result(result)


@import_app.command("outputs")
def import_outputs_command(
    ctx: typer.Context,
    file: Path = FILE,
    system: str = typer.Option(None, "--system", help="Makes FILE a plain-text file of this system's outputs, "
                                                      "one per line in item order (or aligned by --source)."),
    source: Path = typer.Option(None, "--source", help="The source file FILE was translated from, line by "
                                                       "line; lines whose source is an item's are imported."),
    submission_map: Path = typer.Option(None, "--map", help="The map of a test-suite submission (tsqe export "
                                                             "testsuite-submission): FILE is a system's returned "
                                                             "translation, WMT XML or plain text (with --system)."),
    label: bool = typer.Option(False, "--label", help="Also label the new outputs, in the same transaction: "
                                                      "imported and labelled, or (on an error or Ctrl+C) neither."),
) -> None:
    """Import MT outputs from a TSV, one system's plain-text file, or translations returned for a submission.

    The TSV has the columns item_id, system, output (csv-quoted where needed). Identical outputs of several
    systems are stored once; a changed output of a system replaces its old one.
    """
    from suite.importers import import_outputs

    context = app_context(ctx)
    with progress_bar("importing outputs") as task:
        result = import_outputs(context.database, file, suite_name=context.suite_name, system=system,
                                source=source, submission_map=submission_map, label=label, task=task)
    _print_result(result)


@import_app.command("qe")
def import_qe_command(
    ctx: typer.Context,
    file: Path = FILE,
    name: str = typer.Option(..., "--name", help="Name of the QE system the scores come from."),
    lower_is_better: bool = typer.Option(False, "--lower-is-better",
                                         help="Lower scores mean better translations (e.g. predicted HTER)."),
    tie_epsilon: float = typer.Option(None, "--tie-epsilon", min=0.0,
                                      help="Scores at most this far apart are a tie in pairwise accuracy (default "
                                           "0; 1e-6 suits BERTScore, whose float noise is below it)."),
) -> None:
    """Import segment scores of a QE system from a TSV.

    The columns are item_id, system, score or item_id, output, score. Identical outputs scored
    differently get their mean (with a warning).
    """
    from suite.importers import import_qe_scores

    context = app_context(ctx)
    with progress_bar("importing QE scores") as task:
        result = import_qe_scores(context.database, file, name=name, lower_is_better=lower_is_better,
                                  tie_epsilon=tie_epsilon, suite_name=context.suite_name, task=task)
    _print_result(result)


@import_app.command("labels")
def import_labels_command(ctx: typer.Context, file: Path = FILE) -> None:
    """Import reviewed labels from a TSV.

    The columns are item_id, system, label, reviewer and optionally comment (label: pass, fail or unknown).
    They replace earlier manual labels of the same outputs.
    """
    from suite.importers import import_reviews

    context = app_context(ctx)
    with progress_bar("importing labels") as task:
        result = import_reviews(context.database, file, suite_name=context.suite_name, task=task)
    _print_result(result)
