"""``tsqe import mtme`` and ``tsqe export mtme``: google-research/mt-metrics-eval's test-set layout."""
from __future__ import annotations

from pathlib import Path

import typer

from cli.app import import_app
from cli.context import app_context
from cli.export import export_app
from cli.importing import _print_result
from cli.progress import progress_bar


@import_app.command("mtme")
def import_mtme_command(
    ctx: typer.Context,
    folder: Path = typer.Argument(..., exists=True, file_okay=False,
                                  help="The test set's folder, e.g. ~/.mt-metrics-eval/mt-metrics-eval-v2/wmt22.",
                                  show_default=False),
    lp: str = typer.Option(..., "--lp", help="The language pair to import, e.g. de-en."),
    name: str = typer.Option(None, "--name", help="Name of the new suite (default: TESTSET.LP, e.g. wmt22.de-en)."),
    human: str = typer.Option(None, "--human", help="Which system-level human scores to import (default: the "
                                                    "first of mqm, wmt-z, wmt-appraise, wmt-raw present)."),
    lower_is_better: list[str] = typer.Option(None, "--lower-is-better",
                                              help="A metric (base NAME of NAME-REF) whose lower scores are "
                                                   "better (repeatable); the others are higher-is-better."),
) -> None:
    """Import a language pair of an mt-metrics-eval test set: sources, documents (-> categories and phenomena),
    every reference set, every system, one set of human scores (system level, and segment level of the same
    name when present), and every segment-level metric score file as a QE system NAME-REF (use it in tsqe
    accuracy and tsqe correlate --metric qe:NAME-REF)."""
    from suite.importers import ImportResult
    from suite.importers.mtme import import_mtme

    context = app_context(ctx)
    with progress_bar("importing mt-metrics-eval data") as task:
        result = import_mtme(context.database, folder, lp=lp, name=name, human=human,
                             lower_is_better=frozenset(lower_is_better or ()), task=task)
    _print_result(ImportResult(warnings=result.warnings))
    c = result.counts
    typer.echo(f"suite {result.suite!r}: {c['items']} items, {c['references']} references, {c['systems']} systems, "
               f"{c['distinct_outputs']} distinct outputs")
    if result.human is not None:
        segments = (f", {c['human_segment_scores']} segment scores ({c['human_segments_without_score']} segments "
                    f"without a score)" if "human_segment_scores" in c else "")
        typer.echo(f"human scores {result.human!r} for {c['human_scores']} systems{segments}")
    typer.echo(f"{c['metrics']} metrics as QE systems ({c['outputs_scored_differently']} outputs that several "
               f"systems produced got different scores: their mean is kept)")
    if result.left:
        typer.echo(f"not imported: {', '.join(result.left)} (tsqe keeps one human score per system and per "
                   "segment, and a metric's segment scores)")


@export_app.command("mtme")
def export_mtme_command(
    ctx: typer.Context,
    folder: Path = typer.Argument(..., file_okay=False, help="The test set's folder to write into.",
                                  show_default=False),
    lp: str = typer.Option(None, "--lp", help="The language pair the files are named by (default: the suite's)."),
    human_name: str = typer.Option("human", "--human-name", help="The name of the human scores' file, e.g. wmt-z."),
) -> None:
    """Write the suite and tsqe's scores (every QE system and every cached metric covering all outputs) in
    mt-metrics-eval's layout, for its tools: sources, documents, references, system outputs, human scores (system
    and segment level) and segment-level metric scores."""
    from suite.exporters.mtme import export_mtme

    context = app_context(ctx)
    result = export_mtme(context.database, folder, lp=lp, suite_name=context.suite_name, human_name=human_name)
    typer.echo(f"{result.lp}: {result.items} items, {len(result.references)} reference sets, {result.systems} "
               f"systems, {result.human_scores} human scores, {result.human_segment_scores} human segment "
               f"scores, {len(result.metrics)} metrics "
               f"({', '.join(result.metrics) or 'none'}) -> {result.folder}")
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
