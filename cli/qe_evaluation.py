"""``tsqe pairs``, ``tsqe accuracy``, ``tsqe stability`` and ``tsqe plot accuracy``: evaluating QE systems."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from cli.app import app
from cli.choices import ACCURACY_ROWS
from cli.context import app_context
from cli.table_output import emit_table, format_option, heat_map_option, out_option
from cli.unlabelled import say_unlabelled
from suite.errors import TsqeError
from suite.lists import comma_list

if TYPE_CHECKING:
    from qe.accuracy import AccuracyResult
    from qe.evaluation import EvaluationInputs
    from suite.reading.status import Unlabelled

plot_app = typer.Typer(help="Draw figures of the evaluation.", no_args_is_help=True)
app.add_typer(plot_app, name="plot")


def _by_option() -> Any:
    return typer.Option("category", "--by", help=f"Rows of the table: {' or '.join(ACCURACY_ROWS)}.")


def _category_option() -> Any:
    return typer.Option(None, "--category", help="Only this category, one row per phenomenon (Tables 3-4).")


def _qe_option() -> Any:
    return typer.Option(None, "--qe", help="Comma-separated QE systems to compare (default: all, oldest first).")


def _ties_option() -> Any:
    return typer.Option(None, "--ties", help="Ties count 0.5 (half), 0 (wrong: the published convention of "
                                             "challenge sets) or leave the pair out (drop). Default: half, "
                                             "wrong for a suite imported with tsqe import challenge.")


def _tie_epsilon_option() -> Any:
    return typer.Option(None, "--tie-epsilon", min=0.0,
                        help="Scores at most this far apart are a tie, for every QE system (default: each "
                             "system's own: 0, or its metric's, e.g. 1e-6 for BERTScore).")


def _seed_option() -> Any:
    return typer.Option(0, "--seed", help="Random seed; the same seed gives the same intervals and splits.")


def _bootstrap_option() -> Any:
    return typer.Option(1000, "--bootstrap", help="Item resamples for intervals and significance (0: none).")


@app.command("pairs")
def pairs_command(
    ctx: typer.Context,
    out: Path = typer.Option(None, "--out", help="TSV file to write (default: standard output)."),
) -> None:
    """Export every (passing, failing) output pair of each item under the effective labels, as TSV."""
    from qe.pairs import build_pairs
    from suite.safe_export import spreadsheet_frame, writing_text

    context = app_context(ctx)
    say_unlabelled(context.database, context.suite_name)
    table = build_pairs(context.database, context.suite_name).frame()
    if out is None:
        spreadsheet_frame(table).to_csv(sys.stdout, sep="\t", index=False, lineterminator="\n")
    else:
        with writing_text(out) as file:
            spreadsheet_frame(table).to_csv(file, sep="\t", index=False, lineterminator="\n")
        typer.echo(f"wrote {len(table)} pairs to {out}", err=True)


ACCURACY_TABLES = ("accuracy", "ranks", "disagreement")


@app.command("accuracy")
def accuracy_command(
    ctx: typer.Context,
    by: str = _by_option(),
    category: str = _category_option(),
    qe: str = _qe_option(),
    ties: str = _ties_option(),
    tie_epsilon: float = _tie_epsilon_option(),
    bootstrap: int = _bootstrap_option(),
    seed: int = _seed_option(),
    table: str = typer.Option("accuracy", "--table",
                              help="accuracy (Table 2), ranks (the QE systems' significant ranks per row) or "
                                   "disagreement (between every two rows: where does the ranking flip?)."),
    suites: str = typer.Option(None, "--suites", help="Comma-separated suites to compare on their shared "
                                                      "categories (with --table disagreement)."),
    heat_map: Path = heat_map_option("Draw the disagreement as a heat map"),
    count_too_few: bool = typer.Option(False, "--count-too-few",
                                       help="Count rows with too few pairs in the disagreement too (marked †)."),
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """Pairwise accuracy of QE systems per category or phenomenon, with Total, weighed, 95% intervals and each
    system's tie rate per row (and ACES's score for a suite imported from ACES).

    --format json gives the result's own document (provenance, counted pairs and ranks per system, too-few flags).
    """
    from qe.disagreement import row_disagreement, suite_disagreement
    from qe.evaluation import AccuracyOptions, suites_accuracy
    from suite.figures import save_figure

    if table not in ACCURACY_TABLES:
        raise TsqeError(f"unknown table {table!r} (tables: {', '.join(ACCURACY_TABLES)})")
    if suites is not None:
        if table != "disagreement":
            raise TsqeError("several suites are compared by their disagreement: add --table disagreement")
        options = AccuracyOptions(qe=_names(qe), ties=ties, tie_epsilon=tie_epsilon, bootstrap=bootstrap, seed=seed)
        names = comma_list(suites)
        unlabelled: Unlabelled | None = None
        for name in names:
            say_unlabelled(app_context(ctx).database, name)
        disagreement = suite_disagreement(suites_accuracy(app_context(ctx).database, names, options))
    else:
        unlabelled = say_unlabelled(app_context(ctx).database, app_context(ctx).suite_name)
        result = _accuracy(ctx, by=by, category=category, qe=qe, ties=ties, tie_epsilon=tie_epsilon,
                           bootstrap=bootstrap, seed=seed)
        if table == "accuracy":
            if heat_map is not None:
                raise TsqeError("a heat map shows disagreement: add --table disagreement (or ranks)")
            emit_table(result.to_table(), fmt, out, document=result.to_json() + "\n", unlabelled=unlabelled)
            return
        disagreement = row_disagreement(result, count_too_few=count_too_few)
    if heat_map is not None:
        save_figure(disagreement.heat_map(), heat_map)
        typer.echo(f"wrote {heat_map}", err=True)
    shown = disagreement.ranks_table() if table == "ranks" else disagreement.to_table()
    emit_table(shown, fmt, out, document=disagreement.to_json() + "\n", unlabelled=unlabelled)


@app.command("stability")
def stability_command(
    ctx: typer.Context,
    splits: int = typer.Option(200, "--splits", help="Random splits of the items into halves."),
    seed: int = _seed_option(),
    by: str = _by_option(),
    category: str = _category_option(),
    qe: str = _qe_option(),
    ties: str = _ties_option(),
    tie_epsilon: float = _tie_epsilon_option(),
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """How often the QE systems' ranking agrees between random halves of the items, overall and per row.

    --format json gives the result's own document (settings and every row's figures).
    """
    from qe.evaluation import AccuracyOptions, stability

    names = _names(qe)
    unlabelled = say_unlabelled(app_context(ctx).database, app_context(ctx).suite_name)
    result = stability(_inputs(ctx, names), AccuracyOptions(by=by, category=category, qe=names, ties=ties,
                                                            tie_epsilon=tie_epsilon, seed=seed), splits)
    emit_table(result.to_table(), fmt, out, document=result.to_json() + "\n", unlabelled=unlabelled)


@plot_app.command("accuracy")
def plot_accuracy_command(
    ctx: typer.Context,
    out: Path = typer.Option(..., "--out", help="Image file: .png, .svg or .pdf."),
    by: str = _by_option(),
    category: str = _category_option(),
    qe: str = _qe_option(),
    ties: str = _ties_option(),
    tie_epsilon: float = _tie_epsilon_option(),
    bootstrap: int = _bootstrap_option(),
    seed: int = _seed_option(),
) -> None:
    """Grouped bar chart of pairwise accuracy per row and QE system, with bootstrap CI whiskers."""
    from qe.plots import save_accuracy_plot

    result = _accuracy(ctx, by=by, category=category, qe=qe, ties=ties, tie_epsilon=tie_epsilon,
                       bootstrap=bootstrap, seed=seed)
    save_accuracy_plot(result, out)
    typer.echo(f"wrote {out}", err=True)


def _accuracy(ctx: typer.Context, *, by: str, category: str | None, qe: str | None, ties: str | None,
              tie_epsilon: float | None, bootstrap: int, seed: int) -> AccuracyResult:
    from qe.evaluation import AccuracyOptions, accuracy

    names = _names(qe)
    return accuracy(_inputs(ctx, names), AccuracyOptions(by=by, category=category, qe=names, ties=ties,
                                                         tie_epsilon=tie_epsilon, bootstrap=bootstrap, seed=seed))


def _names(qe: str | None) -> tuple[str, ...] | None:
    return None if qe is None else tuple(comma_list(qe))


def _inputs(ctx: typer.Context, names: tuple[str, ...] | None) -> EvaluationInputs:
    from qe.evaluation import read_inputs

    context = app_context(ctx)
    return read_inputs(context.database, context.suite_name, names)
