"""``tsqe import wmt`` and ``tsqe import human-scores``: WMT test sets and their official human scores."""
from __future__ import annotations

from pathlib import Path

import typer

from cli.context import app_context
from cli.importing import _print_warnings
from cli.main import import_app
from suite.importers import ImportResult, import_human_scores, import_wmt
from suite.importers.human_scores import parse_renames


def _report(result: ImportResult) -> None:
    _print_warnings(result)
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
    result = import_wmt(app_context(ctx).database, src=src, refs=ref, systems=systems, name=name,
                        source_lang=source_lang, target_lang=target_lang)
    _report(result)


@import_app.command("human-scores")
def import_human_scores_command(
    ctx: typer.Context,
    file: Path = typer.Argument(None, exists=True, dir_okay=False,
                                help="System-level scores: WMT19's 'LP HUMAN SYSTEM' (DA-syslevel.csv) or WMT21's "
                                     "'RAW.SCR Z.SCR N SYS N.ALL' (ad-sys-scores-*.csv)."),
    lp: str = typer.Option(None, "--lp", help="Language pair whose lines to import from a multi-pair file "
                                              "(default: the suite's)."),
    segments: Path = typer.Option(None, "--segments", exists=True, dir_okay=False,
                                  help="Segment-level scores: WMT's 'SYS SID RAW.SCR Z.SCR N' (ad-seg-scores-*.csv) "
                                       "or a table with the columns system, item_id, score."),
    significance: Path = typer.Option(None, "--significance", exists=True, dir_okay=False,
                                      help="WMT's pairwise Wilcoxon results (ad-DA-diff-wilcoxon-rs-*.csv)."),
    rename: list[str] = typer.Option([], "--rename", help="FILE_NAME=SUITE_NAME for a system the files name "
                                                          "otherwise (repeatable), e.g. Nemo.7=NVIDIA-NeMo."),
) -> None:
    """Import official human scores of the suite's systems, replacing earlier ones of the same kind.

    Files name systems as the suite does, or as WMT's human evaluation does (NAME.ID for NAME). All the files
    given are checked before anything is written, and written together.
    """
    context = app_context(ctx)
    _report(import_human_scores(context.database, file, lp=lp, segments=segments, significance=significance,
                                renames=parse_renames(rename), suite_name=context.suite_name))
