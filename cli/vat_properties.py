"""``tsqe vat-properties``: what a variance-aware selection keeps (Zhan et al. 2021 §4.4, Figures 5-8, Table 4)."""
from __future__ import annotations

from pathlib import Path

import typer

from cli.app import app
from cli.context import app_context
from cli.table_output import emit_result, emit_table, format_option, out_option
from suite.lists import comma_list


@app.command("vat-properties")
def vat_properties_command(
    ctx: typer.Context,
    kept: Path = typer.Option(..., "--kept", exists=True, dir_okay=False,
                              help="The selection: a {\"sl-tl\": [0-based positions]} file, as `tsqe filter "
                                   "--export` writes it or the released VAT_meta files."),
    pair: str = typer.Option(None, "--pair", help="The language pair of the selection file to read (needed when "
                                                  "it holds several, e.g. de-en)."),
    paraphrase: str = typer.Option(None, "--paraphrase", help="A reference set to measure the word edit distance "
                                                              "to from the references (the paper's Table 4)."),
    corpus: Path = typer.Option(None, "--corpus", exists=True, dir_okay=False,
                                help="Count word frequencies in this text file (default: the suite's references)."),
    refs: str = typer.Option(None, "--refs", help="The references whose words are grouped (default: standard)."),
    distribution: str = typer.Option(None, "--distribution",
                                     help="With --figure: a metric (the filtering one, e.g. bertscore-r) whose mean "
                                          "over the systems per item is drawn, kept against removed (Figure 8)."),
    figure: Path = typer.Option(None, "--figure", dir_okay=False, help="Where --distribution draws: .png, .svg, .pdf."),
    parts_of_speech: bool = typer.Option(False, "--part-of-speech",
                                         help="Also each part of speech's share of the English side's tokens (the "
                                              "references of a to-English pair, the sources of a from-English one; "
                                              "Figure 7), tagged offline by textblob's PatternTagger."),
    pos_figure: Path = typer.Option(None, "--part-of-speech-figure", dir_okay=False,
                                    help="Draw each part of speech's change of share (implies --part-of-speech): "
                                         ".png, .svg or .pdf."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """What a variance-aware selection keeps (Zhan et al. 2021 §4.4): items by sentence-length third, words by
    frequency group (20/60/100 % percentiles), and the edit distance to a paraphrased reference, kept against
    removed; with --part-of-speech, the parts of speech of the English side (a suite with none says so)."""
    from filters.selection_properties import read_kept_positions, selection_properties
    from suite.errors import TsqeError
    from suite.references import RefChoice

    if (distribution is None) != (figure is None):
        raise TsqeError("--distribution and --figure go together: the metric to draw and where to draw it")
    context = app_context(ctx)
    lines = corpus.read_text(encoding="utf-8").splitlines() if corpus is not None else None
    positions = read_kept_positions(kept, pair)
    choice = RefChoice.parse(refs) if refs else None
    result = selection_properties(context.database, positions, suite_name=context.suite_name, refs=choice,
                                  paraphrase=paraphrase, corpus=lines,
                                  parts_of_speech=parts_of_speech or pos_figure is not None)
    if pos_figure is not None and result.part_of_speech is not None:
        from filters.selection_properties import part_of_speech_figure
        from suite.figures import save_figure

        if result.part_of_speech.side is None:
            typer.echo(f"not drawn: {result.part_of_speech.note}", err=True)
        else:
            save_figure(part_of_speech_figure({f"{result.suite} ({result.part_of_speech.side})":
                                               result.part_of_speech.tags},
                                              title=f"{result.suite}: change of each part of speech's share, kept "
                                                    "against the original"), pos_figure)
            typer.echo(f"wrote {pos_figure}", err=True)
    if distribution is not None and figure is not None:
        from filters.distributions import distribution_figure, distributions
        from filters.selection_properties import metric_by_selection
        from suite.figures import save_figure

        drawn = distributions(metric_by_selection(context.database, positions, distribution,
                                                  suite_name=context.suite_name, refs=choice))
        save_figure(distribution_figure(drawn, title=f"{result.suite}: {distribution} of the kept and removed items",
                                        xlabel=f"mean {distribution} of an item over the systems"), figure)
        typer.echo(f"wrote {figure}", err=True)
    emit_result(result.to_table(), result.to_json(), as_json, fmt, out)


@app.command("drop-curve")
def drop_curve_command(
    ctx: typer.Context,
    filter_metric: str = typer.Option(..., "--filter-metric", help="Comma-separated metrics to filter by (one curve "
                                                                   "each: the paper's Figure 4)."),
    metric: str = typer.Option(..., "--metric", help="The metric correlated with the human scores."),
    drops: str = typer.Option("0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9", "--drops",
                              help="Comma-separated shares of items to drop."),
    refs: str = typer.Option(None, "--refs", help="The references of both metrics (default: standard)."),
    figure: Path = typer.Option(None, "--figure", dir_okay=False, help="Draw Pearson r against the share dropped: "
                                                                      ".png, .svg or .pdf."),
    as_json: bool = typer.Option(False, "--json", help="Print the curves as JSON."),
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """Correlation with the human scores as variance-aware filtering drops more of the items (Zhan et al. 2021,
    Figures 2 and 4)."""
    import json

    from filters.drop_curve import drop_curves
    from suite.errors import TsqeError
    from suite.figures import save_figure
    from suite.references import RefChoice

    try:
        shares = [float(part) for part in comma_list(drops)]
    except ValueError as error:
        raise TsqeError(f"the drops must be numbers separated by commas, not {drops!r}") from error
    context = app_context(ctx)
    result = drop_curves(context.database, comma_list(filter_metric), metric,
                         suite_name=context.suite_name, refs=RefChoice.parse(refs) if refs else None, drops=shares)
    if figure is not None:
        save_figure(result.figure(), figure)
        typer.echo(f"wrote {figure}", err=True)
    document = json.dumps(result.to_dict(), indent=2, ensure_ascii=False)
    if as_json:
        typer.echo(document)
    else:
        emit_table(result.to_table(), fmt, out, document=document + "\n")
