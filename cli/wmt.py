"""``tsqe import wmt``, ``tsqe import human-scores`` and ``tsqe export testsuite-submission``: WMT test sets, their
official human scores, and what a test-suite author sends to WMT."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cli.app import import_app
from cli.context import app_context
from cli.export import export_app
from cli.importing import _print_result

if TYPE_CHECKING:
    from suite.importers import ImportResult


def _report(result: ImportResult) -> None:
    _print_result(result)
    typer.echo(", ".join(f"{count} {what.replace('_', ' ')}" for what, count in result.counts.items()))


@import_app.command("wmt")
def import_wmt_command(
    ctx: typer.Context,
    src: Path = typer.Option(None, "--src", exists=True, dir_okay=False, help="Source file, one segment a line."),
    ref: list[Path] = typer.Option(None, "--ref", exists=True, dir_okay=False,
                                   help="Reference file, line-aligned with the source (repeat for several): each "
                                        "is a reference set."),
    ref_name: list[str] = typer.Option([], "--ref-name",
                                       help="Name of each --ref file's reference set, in the same order (default: "
                                            "NAME of WMT's <testset>.<src>-<tgt>.ref.NAME.<tgt>, else the file name "
                                            "without its last suffix)."),
    systems: list[Path] = typer.Option(None, "--systems", exists=True,
                                       help="A directory of system outputs, or one output file (repeatable); "
                                            "files are named <testset>.<SYSTEM>.<src>-<tgt>."),
    xml: list[Path] = typer.Option(None, "--xml", exists=True, dir_okay=False,
                                   help="Instead of the plain-text files: WMT's XML test set (wmt-format-tools "
                                        "layout), e.g. the sources with references, and the systems' returned "
                                        "files (repeat for several)."),
    testsuite: str = typer.Option(None, "--testsuite", help="With --xml: import the documents of this test suite "
                                                            "(testsuite=NAME) instead of the test set's own."),
    name: str = typer.Option(..., "--name", help="Name of the new suite."),
    source_lang: str = typer.Option(None, "--source-lang", help="Source language (default: from the files)."),
    target_lang: str = typer.Option(None, "--target-lang", help="Target language (default: from the files)."),
) -> None:
    """Import a WMT test set as a suite: items 1..N (line numbers, in XML the order wmt-unwrap extracts the
    segments) with references, one system per file or per <hyp system=...>."""
    from suite.importers import import_wmt
    from suite.importers.wmt import import_wmt_xml

    database = app_context(ctx).database
    if xml:
        if src is not None or ref or systems or ref_name:
            raise typer.BadParameter("give either --xml or the plain-text --src, --ref and --systems",
                                     param_hint="--xml")
        result = import_wmt_xml(database, xml, name=name, testsuite=testsuite, source_lang=source_lang,
                                target_lang=target_lang)
    else:
        if src is None or not ref or not systems:
            raise typer.BadParameter("a plain-text test set needs --src, --ref and --systems (or give --xml)",
                                     param_hint="--src")
        if testsuite is not None:
            raise typer.BadParameter("only WMT's XML files mark test suites' documents", param_hint="--testsuite")
        result = import_wmt(database, src=src, refs=ref, systems=systems, name=name, ref_names=ref_name,
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
    kind: str = typer.Option(None, "--kind", help="What the scores are: z (WMT's DA z-scores, the default), da "
                                                  "(raw 0-100 DA), esa or mqm. A kind the suite holds already is "
                                                  "replaced, system by system; another is added beside it."),
) -> None:
    """Import official human scores of the suite's systems, replacing earlier ones of the same kind.

    Files name systems as the suite does, or as WMT's human evaluation does (NAME.ID for NAME). All the files
    given are checked before anything is written, and written together.
    """
    from cli.meta_eval import parse_human_kind
    from store.domain import HumanScoreKind
    from suite.importers import import_human_scores
    from suite.importers.human_scores import parse_renames

    context = app_context(ctx)
    _report(import_human_scores(context.database, file, lp=lp, segments=segments, significance=significance,
                                renames=parse_renames(rename), suite_name=context.suite_name,
                                kind=parse_human_kind(kind) or HumanScoreKind.Z))


@export_app.command("testsuite-submission")
def export_testsuite_submission_command(
    ctx: typer.Context,
    folder: Path = typer.Argument(..., file_okay=False, help="The folder to write into (created if missing).",
                                  show_default=False),
    name: str = typer.Option(None, "--name", help="The test suite's name in the files (default: the suite's)."),
) -> None:
    """Write what a test-suite author sends to WMT, per language pair: the sources as WMT XML (one document per
    item, testsuite="NAME"), as plain text, and the map of lines and segments back to items.

    Import the systems' returned translations with: tsqe import outputs FILE --map NAME.SRC-TGT.map.tsv
    (XML as returned, or plain text with --system).
    """
    from suite.exporters.testsuite_submission import export_testsuite_submission

    context = app_context(ctx)
    for files in export_testsuite_submission(context.database, folder, name=name, suite_name=context.suite_name):
        typer.echo(f"{'-'.join(files.languages)}: {files.items} items -> {files.xml.name}, {files.text.name}, "
                   f"{files.map.name}")
