"""``tsqe score`` and ``tsqe difficulty``: segment metric scores and difficulty-aware BERTScore."""
from __future__ import annotations

import csv
import json
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import typer

from cli.app import app
from cli.choices import HUMAN
from cli.context import app_context
from cli.metric_options import (
    combine_option,
    device_option,
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

if TYPE_CHECKING:
    from filters.metrics.da_bertscore import DifficultyResult


def _open_out(out: Path | None) -> AbstractContextManager[TextIO]:
    from suite.safe_export import writing_text

    return writing_text(out) if out is not None else nullcontext(sys.stdout)


@app.command("score")
def score_command(
    ctx: typer.Context,
    metric: str = typer.Option(..., "--metric", help=metric_help(level="segment")),
    refs: str = refs_option(),
    combine: str = combine_option(),
    model: str = model_option(),
    layers: int = layers_option(),
    device: str = device_option(),
    tokenize: str = tokenize_option(),
    embeddings: str = embeddings_option(),
    systems: str = typer.Option(None, "--systems", help="Comma-separated systems (default: all)."),
    out: Path = typer.Option(None, "--out", help="Write the TSV here instead of stdout."),
) -> None:
    """Score every system output against its item's reference(s): TSV item_id, system, score.

    Scores are cached per distinct output under the metric's signature (printed on stderr, with refs: and
    combine: for a reference set other than the default), so only new outputs are scored; BERTScore also
    caches token embeddings, so only new sentences are embedded.
    """
    from filters.scoring import score_outputs
    from suite.safe_export import spreadsheet_text

    context = app_context(ctx)
    with progress_bar(f"scoring with {metric}") as task:
        scores = score_outputs(context.database, metric, suite_name=context.suite_name,
                               systems=comma_list(systems) or None, refs=ref_choice(refs, combine),
                               options=metric_options(model, layers, device, tokenize, embeddings), task=task)
    with _open_out(out) as stream:
        writer = csv.writer(stream, delimiter="\t", lineterminator="\n")
        writer.writerow(["item_id", "system", "score"])
        writer.writerows((spreadsheet_text(r.item_id), spreadsheet_text(r.system), repr(r.score)) for r in scores.rows)
    skipped = f"; {scores.unreferenced} outputs without a reference left out" if scores.unreferenced else ""
    typer.echo(f"{len(scores.rows)} scores; signature {scores.signature}{skipped}", err=True)


@app.command("difficulty")
def difficulty_command(
    ctx: typer.Context,
    systems: str = typer.Option("all", "--systems",
                                help="all, top:K (the K best under --rank-by) or S1,S2,... - the systems the "
                                     "difficulty is computed over and that are scored."),
    rank_by: str = typer.Option(HUMAN, "--rank-by",
                                help="Ranking for top:K: 'human' (imported human scores), a file of "
                                     "'LP HUMAN SYSTEM' lines, or a metric name such as bertscore-f."),
    refs: str = refs_option(),
    model: str = model_option(),
    layers: int = layers_option(),
    device: str = device_option(),
    embeddings: str = embeddings_option(),
    figure: Path = typer.Option(None, "--figure", dir_okay=False,
                                help="Draw the distribution of the token difficulty weights (Zhan et al.'s Figure "
                                     "3): .png, .svg or .pdf."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document, with the token difficulties."),
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """Difficulty-aware BERTScore (Zhan et al. 2021): per system BERTScore P/R/F and DA-P/R/F, and per
    item the reference tokens with their difficulty (1 - mean best similarity over the systems), against the
    first reference of each item in the chosen reference set.

    Without --format or --out it prints both; with either it writes the per-system table (suite.tables).
    """
    from filters.metrics.da_bertscore import da_bertscore
    from filters.systems import choose_systems

    context = app_context(ctx)
    choice, options = ref_choice(refs, "multi"), metric_options(model, layers, device, embeddings=embeddings)
    with progress_bar("difficulty-aware BERTScore") as task:
        chosen = choose_systems(context.database, systems, suite_name=context.suite_name, rank_by=rank_by,
                                refs=choice, options=options, task=task)
        result = da_bertscore(context.database, suite_name=context.suite_name, systems=chosen, refs=choice,
                              options=options, task=task)
    if figure is not None:
        from filters.distributions import distribution_figure, distributions
        from suite.figures import save_figure

        drawn = distributions({f"{len(chosen)} systems": result.weights()})
        save_figure(distribution_figure(drawn, title="Difficulty weights of the reference tokens",
                                        xlabel="difficulty weight of a reference token"), figure)
        typer.echo(f"wrote {figure}", err=True)
    if as_json:
        document = json.dumps(result.to_dict(), ensure_ascii=False, indent=1) + "\n"
        emit_table(result.to_table(), "json", out, document=document)
    elif fmt is not None or out is not None:
        emit_table(result.to_table(), fmt, out)
    else:
        write_difficulty_report(result, sys.stdout)


def write_difficulty_report(result: DifficultyResult, stream: TextIO) -> None:
    from filters.metrics.da_bertscore import SCORE_KEYS

    width = max(len("system"), *(len(s) for s in result.systems))
    stream.write(f"# {result.signature}\n")
    stream.write(f"{'system':<{width}}" + "".join(f"{k:>9}" for k in SCORE_KEYS) + "\n")
    for name in result.ranked():
        stream.write(f"{name:<{width}}" + "".join(f"{result.system_scores[name][k]:>9.4f}" for k in SCORE_KEYS)
                     + "\n")
    stream.write("\n# reference tokens with difficulty, per item\n")
    for item, tokens in result.token_difficulty.items():
        stream.write(f"{item}\t" + " ".join(f"{token}({d:.3f})" for token, d in tokens) + "\n")
