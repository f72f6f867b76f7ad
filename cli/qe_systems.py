"""``tsqe qe ...``: train, predict with, list and remove QE systems, and store metrics as QE proxies."""
from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from cli.app import app
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

qe_app = typer.Typer(help="QE systems: train built-in models, predict, list, remove; metrics as QE proxies.",
                     no_args_is_help=True)
app.add_typer(qe_app, name="qe")

T = TypeVar("T")


@contextmanager
def _warnings_to_stderr() -> Iterator[None]:
    """Show library warnings (e.g. a model saved under another scikit-learn) as ``warning: ...`` lines."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for warning in caught:
        typer.echo(f"warning: {warning.message}", err=True)


def _choice(value: str, allowed: Collection[str], option: str) -> str:
    if value not in allowed:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(allowed)}", param_hint=option)
    return value


def _with_progress(description: str, work: Callable[[Any], T]) -> T:
    with progress_bar(description) as task:
        return work(task)


def _summary(meta: dict[str, Any]) -> str:
    """One line of what matters about a QE system's provenance, for ``qe list``."""
    parts = []
    if "target" in meta:
        files = meta.get("data", {}).get("files", [])
        parts.append(f"target {meta['target']} on {meta.get('data', {}).get('sentences', '?')} sentences"
                     + (f" ({', '.join(str(f['path']) for f in files)})" if files else ""))
    if "training" in meta:
        training = meta["training"]
        parts.append(f"{training.get('pairs', '?')} pairs of {training.get('items', '?')} items"
                     + (f" of suite {training['suite']}" if "suite" in training else ""))
    cv = meta.get("cv", {})
    if "pearson_mean" in cv:
        parts.append(f"CV r={cv['pearson_mean']:.3f}")
    if "pair_accuracy" in cv:
        parts.append(f"CV pairwise accuracy={100 * cv['pair_accuracy']:.1f}%")
    for key in ("signature", "source"):
        if key in meta:
            parts.append(str(meta[key]))
    return "; ".join(parts) or json.dumps(meta, ensure_ascii=False)[:80]


@qe_app.command("train")
def train(
    ctx: typer.Context,
    name: str = typer.Option(..., "--name", help="Name of the new QE system."),
    kind: str = typer.Option(..., "--kind", help="features-svr (SVR on black-box features, trained on QE data) or "
                                                 "pairwise-gb (gradient boosting on the suite's pass/fail pairs)."),
    data: list[str] = typer.Option([], "--data", help="QE data for features-svr (repeatable): an MLQE-PE prefix "
                                   "such as DIR/train (train.src, train.mt, train.hter), a directory (its train "
                                   "files) or a DA table *.df.short.tsv."),
    target: str = typer.Option("hter", "--target", help="What features-svr learns: hter (lower is better), da "
                               "(mean DA, higher is better) or da-z (z-normalised DA)."),
    folds: int = typer.Option(5, "--folds", min=2, help="Cross-validation folds (grouped by item for pairwise-gb)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the fold split and the learners."),
    replace: bool = typer.Option(False, "--replace", help="Replace an existing QE system of that name."),
) -> None:
    """Train a built-in QE model and store it with its features, data source, CV results and library versions.

    pairwise-gb also stores its scores of the suite, computed out-of-fold (each item scored by the model that
    never saw it), so that accuracy tables do not measure training accuracy.
    """
    from qe.datasets import TARGETS
    from qe.training import TRAINABLE_KINDS, train_qe_system

    context = app_context(ctx)
    _choice(kind, TRAINABLE_KINDS, "--kind")
    _choice(target, TARGETS, "--target")
    with _warnings_to_stderr():
        summary = _with_progress(f"training {name}", lambda task: train_qe_system(
            context.database, name=name, kind=kind, data=data, target=target, folds=folds, seed=seed,
            suite_name=context.suite_name, replace=replace, task=task))
    cv = summary.meta["cv"]
    if kind == "features-svr":
        typer.echo(f"trained {name} (features-svr, target {summary.meta['target']}) on "
                   f"{summary.meta['data']['sentences']} sentences; {folds}-fold CV Pearson r = "
                   f"{cv['pearson_mean']:.3f}; parameters {summary.meta['params']}")
        typer.echo(f"score the suite with: tsqe qe predict --name {name}")
    else:
        typer.echo(f"trained {name} (pairwise-gb) on {summary.meta['training']['pairs']} pass/fail pairs of "
                   f"{summary.meta['training']['items']} items; {folds}-fold CV grouped by item: pairwise accuracy "
                   f"{100 * cv['pair_accuracy']:.1f}% (out-of-fold output scores: {100 * cv['score_accuracy']:.1f}%)")
        typer.echo(f"stored {summary.scores} out-of-fold output scores")


@qe_app.command("predict")
def predict(ctx: typer.Context, name: str = typer.Option(..., "--name", help="The trained QE system.")) -> None:
    """Score every distinct MT output of the suite with a trained QE system and store the scores."""
    from qe.training import predict_qe_system

    context = app_context(ctx)
    with _warnings_to_stderr():
        count = predict_qe_system(context.database, name, context.suite_name)
    typer.echo(f"{name}: scored {count} outputs")


@qe_app.command("evaluate")
def evaluate(
    ctx: typer.Context,
    name: str = typer.Option(..., "--name", help="The trained features-svr QE system."),
    data: list[str] = typer.Option(..., "--data", help="Held-out QE data, e.g. an MLQE-PE prefix DIR/dev."),
    target: str = typer.Option(None, "--target", help="hter, da or da-z (default: what the model was trained on)."),
) -> None:
    """Pearson's r, Spearman's rho, MAE and RMSE of a features-svr model on held-out QE data."""
    from qe.datasets import TARGETS
    from qe.training import evaluate_qe_system

    if target is not None:
        _choice(target, TARGETS, "--target")
    with _warnings_to_stderr():
        figures = evaluate_qe_system(app_context(ctx).database, name, data, target)
    typer.echo(f"{name} on {figures['n']} sentences: Pearson r = {figures['pearson']:.4f}, Spearman rho = "
               f"{figures['spearman']:.4f}, MAE = {figures['mae']:.4f}, RMSE = {figures['rmse']:.4f}")


@qe_app.command("list")
def list_(ctx: typer.Context) -> None:
    """All QE systems: kind, score direction, number of scores, creation time and provenance."""
    from suite.qe_scores import list_qe_systems

    systems = list_qe_systems(app_context(ctx).database)
    if not systems:
        typer.echo("no QE systems yet: tsqe import qe, tsqe qe train or tsqe qe metric")
        return
    table = Table("name", "kind", "direction", "scores", "created", "about", box=None, pad_edge=False)
    for system in systems:
        table.add_row(system.name, system.kind, system.direction, str(system.scores),
                      f"{system.created_at:%Y-%m-%d %H:%M}", _summary(system.meta))
    Console(width=200).print(table)


@qe_app.command("remove")
def remove(ctx: typer.Context, name: str = typer.Argument(..., help="The QE system to delete.")) -> None:
    """Delete a QE system with its scores and model."""
    from suite.qe_scores import remove_qe_system

    removed = remove_qe_system(app_context(ctx).database, name)
    typer.echo(f"removed {name} and its {removed} scores")


@qe_app.command("metric")
def metric(
    ctx: typer.Context,
    metric_name: str = typer.Option(..., "--metric", help=metric_help(needs_references=True)),
    name: str = typer.Option(None, "--name", help="Name of the QE system (default: the metric's name)."),
    refs: str = refs_option(),
    combine: str = combine_option(),
    model: str = model_option(),
    layers: int = layers_option(),
    device: str = device_option(),
    tokenize: str = tokenize_option(),
    embeddings: str = embeddings_option(),
    replace: bool = typer.Option(False, "--replace", help="Replace an existing QE system of that name."),
) -> None:
    """Score every output against its item's references with a metric and store it as a QE proxy.

    Outputs of items without a reference get no score. The metric's signature is kept in the system's meta.
    """
    from filters.qe_proxy import store_metric_as_qe  # the metric libraries load only for this command

    context = app_context(ctx)
    choice, options = ref_choice(refs, combine), metric_options(model, layers, device, tokenize, embeddings)
    info = _with_progress(f"scoring with {metric_name}", lambda task: store_metric_as_qe(
        context.database, metric_name, name=name, suite_name=context.suite_name, refs=choice, options=options,
        replace=replace, task=task))
    typer.echo(f"{info.name}: stored {info.scores} {metric_name} scores ({info.meta['signature']})")
