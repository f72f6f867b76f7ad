"""``tsqe variance`` and ``tsqe correlate``: which items, and which metrics, tell MT systems apart.

Without ``--format`` or ``--out`` each prints a short summary for people; with either it writes the result's
table through ``suite.tables`` (``--format json`` is that table; ``--json`` stays the result's own document).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import typer

from cli.app import app
from cli.choices import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from cli.context import app_context
from cli.meta_eval import HUMAN_HELP, parse_human_kind
from cli.metric_options import (
    REFS_HELP,
    combine_option,
    embeddings_option,
    layers_option,
    metric_help,
    metric_options,
    model_option,
    ref_choice,
    refs_option,
    tokenize_option,
)
from cli.progress import progress_bar
from cli.table_output import emit_table, format_option, out_option
from suite.lists import comma_list


@app.command("variance")
def variance_command(
    ctx: typer.Context,
    metric: str = typer.Option(..., "--metric", help=metric_help(level="segment")),
    refs: str = refs_option(),
    combine: str = combine_option(),
    drop: float = typer.Option(0.6, "--drop", min=0.0, max=0.99,
                               help="Fraction of items to drop: those with the lowest deviation over systems."),
    systems: str = typer.Option(None, "--systems", help="Comma-separated systems to use (default: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print the selection and ranking as JSON."),
    fmt: str = format_option(),
    out: Path = out_option(),
    vat_dir: Path = typer.Option(None, "--vat-dir", file_okay=False,
                                 help="Write the kept items as VAT-style source/reference files and a JSON of "
                                      "positions into this directory."),
    model: str = model_option(),
    layers: int = layers_option(),
    tokenize: str = tokenize_option(),
    embeddings: str = embeddings_option(),
    top: int = typer.Option(10, "--show", help="How many of the most and least discriminative items to print."),
) -> None:
    """Rank items by the standard deviation of a metric over systems and keep the most discriminative.

    An item is kept iff its deviation is strictly above numpy.percentile(deviations, 100*drop), the rule of
    the released Variance-Aware Test-set code.
    """
    from filters.scoring import score_outputs
    from filters.variance import export_selection, variance_filter

    context = app_context(ctx)
    choice = ref_choice(refs, combine)
    with progress_bar(f"scoring with {metric}") as task:
        scores = score_outputs(context.database, metric, suite_name=context.suite_name,
                               systems=comma_list(systems) or None, refs=choice, task=task,
                               options=metric_options(model, layers, tokenize=tokenize, embeddings=embeddings))
    result = variance_filter(scores, drop=drop)
    written = export_selection(context.database, result, vat_dir, metric=metric, suite_name=context.suite_name,
                               refs=choice) if vat_dir is not None else []
    if as_json:
        typer.echo(json.dumps(result.to_json(metric), ensure_ascii=False))
        return
    if fmt is not None or out is not None:
        emit_table(result.to_table(), fmt, out)
        for path in written:
            typer.echo(f"wrote {path}", err=True)
        return
    typer.echo(f"metric: {scores.signature}")
    typer.echo(f"items: {len(result.ranking)} ranked, {len(result.kept)} kept, {result.dropped} dropped "
               f"(std <= {result.threshold:.6g}, the {100 * drop:g}th percentile)"
               + (f", {len(result.unscored)} without scores" if result.unscored else ""))
    shown = result.ranking[:top] + ([] if len(result.ranking) <= 2 * top else result.ranking[-top:])
    typer.echo(f"{'item':>10}  {'std':>9}  {'mean':>9}  systems")
    for index, ranked in enumerate(shown):
        if index == top and len(result.ranking) > 2 * top:
            typer.echo(f"{'...':>10}")
        typer.echo(f"{ranked.item:>10}  {ranked.std:9.5f}  {ranked.mean:9.5f}  {ranked.systems}")
    for path in written:
        typer.echo(f"wrote {path}")


@app.command("correlate")
def correlate_command(
    ctx: typer.Context,
    metric: str = typer.Option(..., "--metric", help=metric_help() + " Several, comma-separated, side by side. "
                               "BLEU, chrF and TER correlate their corpus scores, DA-BERTScore its system score, the "
                               "others the mean of their segment scores."),
    refs: str = refs_option(REFS_HELP + " Several entries, comma-separated (wmt,ar,ar+wmt), side by side."),
    combine: str = combine_option(),
    top: int = typer.Option(None, "--top", help="Also over the K best systems by human score (one metric and one "
                                                "reference entry: only over them, as the per-system view)."),
    bootstrap: int = typer.Option(BOOTSTRAP_RESAMPLES, "--bootstrap", min=0,
                                  help="Resamples of segments for the 95% intervals (0: none)."),
    seed: int = typer.Option(BOOTSTRAP_SEED, "--seed", help="Seed of the bootstrap resampling."),
    figure: Path = typer.Option(None, "--figure", dir_okay=False,
                                help="Also draw Kendall tau against the number of top systems, one line per "
                                     "reference entry, to this .png, .svg or .pdf file."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    fmt: str = format_option(),
    out: Path = out_option(),
    model: str = model_option(),
    layers: int = layers_option(),
    tokenize: str = tokenize_option(),
    embeddings: str = embeddings_option(),
    human: str = typer.Option(None, "--human", help=HUMAN_HELP),
) -> None:
    """Pearson r, Spearman rho and Kendall tau of system-level metrics with the imported human scores.

    One metric and one reference entry: each system's scores and the correlations. Several metrics or entries:
    one table, a row per metric and entry, with bootstrap intervals over segments. Correlations are of the
    raw metric values: for lower-is-better metrics (TER) agreement is negative.
    """
    from filters.correlation_table import correlate_table
    from suite.references import parse_ref_entries

    context = app_context(ctx)
    metrics = comma_list(metric)
    entries = parse_ref_entries(refs, combine)
    with progress_bar(f"correlating {', '.join(metrics)}") as task:
        table = correlate_table(context.database, metrics, entries, top=top, suite_name=context.suite_name,
                                options=metric_options(model, layers, tokenize=tokenize, embeddings=embeddings),
                                resamples=bootstrap, seed=seed, human_kind=parse_human_kind(human), task=task)
    if figure is not None:
        from filters.correlation_figure import kendall_by_k_figure
        from suite.figures import save_figure

        typer.echo(f"wrote {save_figure(kendall_by_k_figure(table), figure)}", err=True)
    if as_json:
        typer.echo(json.dumps(table.to_json(), ensure_ascii=False))
        return
    result = table.rows[0].result(table.human, top is not None) if table.single else None
    if fmt is not None or out is not None:
        emit_table(result.to_table() if result is not None else table.to_table(), fmt, out)
        return
    if result is None:
        emit_table(table.to_table(), None, None)
        return
    row = table.rows[0]
    typer.echo(f"metric: {result.signature}")
    typer.echo(f"systems: {len(result.systems)}" + (f" (top {top} by human score)" if top else ""))
    typer.echo(f"{'system':<32} {'human':>8} {result.metric:>14}")
    for system in result.systems:
        typer.echo(f"{system:<32} {result.human[system]:8.3f} {result.scores[system]:14.6f}")
    note = "" if result.higher_is_better else "  (lower is better: negative means agreement)"
    agreement = row.top if top and row.top is not None else row.overall
    typer.echo("  ".join(f"{label}: {_show(agreement.figure(name), agreement.intervals, name)}" for label, name in
                         (("Pearson r", "pearson"), ("Spearman rho", "spearman"), ("Kendall tau", "kendall")))
               + note)


def _show(value: float, intervals: dict[str, tuple[float, float]] | None = None, name: str = "") -> str:
    if math.isnan(value):
        return "n/a (constant scores)"
    if intervals is None or math.isnan(intervals[name][0]):
        return f"{value:.4f}"
    low, high = intervals[name]
    return f"{value:.4f} [{low:.3f}, {high:.3f}]"
