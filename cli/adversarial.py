"""``tsqe adversarial``: can a classifier tell the suites apart (Xiang et al. 2022, §4.2 and Table 5)?"""
from __future__ import annotations

from pathlib import Path

import typer

from cli.app import app
from cli.context import app_context
from cli.progress import progress_bar
from cli.table_output import emit_result, format_option, heat_map_option, out_option
from suite.lists import comma_list


@app.command("adversarial")
def adversarial_command(
    ctx: typer.Context,
    suites: str = typer.Option(..., "--suites", help="Comma-separated suites; each is also split in two halves "
                                                     "(the diagonal)."),
    with_outputs: bool = typer.Option(False, "--with-outputs",
                                      help="Each example is the item's source and one of its outputs (Table 5b); "
                                           "default: the source alone (5a)."),
    seeds: int = typer.Option(5, "--seeds", help="Runs with different draws and splits; the mean accuracy is shown."),
    as_json: bool = typer.Option(False, "--json", help="Print every pair's accuracies per seed as JSON."),
    heat_map: Path = heat_map_option("Draw the accuracies between the suites"),
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """Accuracy of a classifier trained to tell which suite an item comes from: 50 % when the suites look alike,
    higher the further they deviate from one distribution.

    The classifier is a logistic regression on character n-gram TF-IDF (scikit-learn, nothing downloaded), not
    the paper's fine-tuned mBERT; train/dev/test without overlap, the mean over the seeds.
    """
    from filters.adversarial import AdversarialOptions, adversarial_validation
    from suite.figures import save_figure

    names = tuple(comma_list(suites))
    context = app_context(ctx)
    with progress_bar("adversarial validation") as task:
        result = adversarial_validation(context.database, AdversarialOptions(names, with_outputs, seeds), task)
    if heat_map is not None:
        save_figure(result.heat_map(), heat_map)
        typer.echo(f"wrote {heat_map}", err=True)
    emit_result(result.to_table(), result.to_json(), as_json, fmt, out)

