"""``tsqe variance`` and ``tsqe correlate``: which items, and which metrics, tell MT systems apart.

Without ``--format`` or ``--out`` each prints a short summary for people; with either it writes the result's
table through ``suite.tables`` (``--format json`` is that table; ``--json`` stays the result's own document).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import typer

from cli.context import app_context
from cli.main import app
from cli.metric_options import (
    combine_option,
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


def _systems(option: str | None) -> list[str] | None:
    return [name.strip() for name in option.split(",") if name.strip()] if option else None


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
        scores = score_outputs(context.database, metric, suite_name=context.suite_name, systems=_systems(systems),
                               refs=choice, options=metric_options(model, layers, tokenize=tokenize), task=task)
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
    metric: str = typer.Option(..., "--metric", help=metric_help() + " BLEU, chrF and TER correlate their corpus "
                               "scores, DA-BERTScore its system score, the others the mean of their segment scores."),
    refs: str = refs_option(),
    combine: str = combine_option(),
    top: int = typer.Option(None, "--top", help="Only the K best systems by human score (default: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    fmt: str = format_option(),
    out: Path = out_option(),
    model: str = model_option(),
    layers: int = layers_option(),
    tokenize: str = tokenize_option(),
) -> None:
    """Pearson r and Kendall tau of a system-level metric with the imported human scores.

    Correlations are of the raw metric values: for lower-is-better metrics (TER) agreement is negative.
    """
    from filters.correlation import correlate

    context = app_context(ctx)
    with progress_bar(f"correlating {metric}") as task:
        result = correlate(context.database, metric, suite_name=context.suite_name, top=top,
                           refs=ref_choice(refs, combine), options=metric_options(model, layers, tokenize=tokenize),
                           task=task)
    if as_json:
        typer.echo(json.dumps(result.to_json(), ensure_ascii=False))
        return
    if fmt is not None or out is not None:
        emit_table(result.to_table(), fmt, out)
        return
    typer.echo(f"metric: {result.signature}")
    typer.echo(f"systems: {len(result.systems)}" + (f" (top {top} by human score)" if top else ""))
    typer.echo(f"{'system':<32} {'human':>8} {result.metric:>14}")
    for system in result.systems:
        typer.echo(f"{system:<32} {result.human[system]:8.3f} {result.scores[system]:14.6f}")
    note = "" if result.higher_is_better else "  (lower is better: negative means agreement)"
    typer.echo(f"Pearson r: {_show(result.pearson)}  Kendall tau: {_show(result.kendall)}{note}")


def _show(value: float) -> str:
    return "n/a (constant scores)" if math.isnan(value) else f"{value:.4f}"
