"""``tsqe meta-eval``: do the metrics' conclusions hold across datasets (Xiang et al. 2022)?

Without ``--table``, ``--format`` or ``--out`` it prints its three tables for people (errors per dataset and
metric, the paper's Table 3 form, disagreement between datasets); ``--table`` picks one for ``--format``/``--out``
(through ``suite.tables``), ``--json`` prints the result's own document and ``--heat-map FILE`` draws the
disagreement between datasets.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

import typer

from cli.app import app
from cli.context import app_context
from cli.metric_options import (
    combine_option,
    device_option,
    layers_option,
    metric_help,
    metric_options,
    model_option,
    ref_choice,
    refs_option,
    tokenize_option,
)
from cli.progress import progress_bar
from cli.table_output import emit_table, format_option, heat_map_option, out_option
from suite.errors import TsqeError
from suite.lists import comma_list
from suite.tables import render

if TYPE_CHECKING:
    from enum import StrEnum

    from filters.metrics import MetricOptions
    from store.domain import HumanScoreKind

    _E = TypeVar("_E", bound=StrEnum)

META_TABLES = ("errors", "ranks", "disagreement")
HUMAN_HELP = ("The kind of human scores to compare with: da, z, esa or mqm (default: the suite's only kind; a suite "
              "holding several needs the choice).")


def parse_human_kind(text: str | None) -> HumanScoreKind | None:
    """``--human``'s kind (None: the suite's only kind), or the usage error naming the kinds."""
    from store.domain import HumanScoreKind, parse

    if text is None:
        return None
    try:
        return parse(HumanScoreKind, text, "human score kind")
    except ValueError as error:
        raise TsqeError(str(error)) from None


@app.command("meta-eval")
def meta_eval_command(
    ctx: typer.Context,
    suites: str = typer.Option(..., "--suites", help="Comma-separated datasets: suites with human scores."),
    metric: str = typer.Option(..., "--metric", help="Comma-separated metrics with a score per output. "
                                                     + metric_help(level="segment")),
    significant_pairs_only: bool = typer.Option(False, "--significant-pairs-only",
                                                help="Count errors and rank on the system pairs the humans "
                                                     "separate significantly only."),
    human_test: str = typer.Option(None, "--human-test",
                                   help="Which pairs the humans separate: imported (WMT's file), wilcoxon or "
                                        "bootstrap on the segment scores (default: imported, else wilcoxon)."),
    resamples: int = typer.Option(1000, "--resamples", help="Bootstrap resamples of the segments for the ranks, "
                                                            "or permutations with --statistic."),
    seed: int = typer.Option(0, "--seed", help="Random seed of the resamples."),
    statistic: str = typer.Option(None, "--statistic",
                                  help="WMT statistics instead of the error numbers, comma-separated: spa, acc-eq, "
                                       "pearson, kendall, kendall-23."),
    level: str = typer.Option("system", "--level", help="With --statistic: system or segment."),
    group: str = typer.Option("none", "--group", help="With --statistic at segment level: compute per item or "
                                                      "per system, then average (none, item, system)."),
    significance: str = typer.Option("permutation", "--significance",
                                     help="With --statistic: permutation (mt-metrics-eval's test between metrics) "
                                          "or none."),
    human: str = typer.Option(None, "--human", help=HUMAN_HELP),
    bars: Path = typer.Option(None, "--bars", help="With --statistic: draw a bar chart per dataset and statistic "
                                                   "with the clusters into this folder."),
    table: str = typer.Option(None, "--table", help=f"The table to write: {', '.join(META_TABLES)} "
                                                     "(default: all three as text, or ranks with --format/--out)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON (errors, pairs and ranks per "
                                                       "dataset and metric, disagreement per two datasets)."),
    heat_map: Path = heat_map_option("Draw the disagreement between datasets"),
    refs: str = refs_option(),
    combine: str = combine_option(),
    model: str = model_option(),
    layers: int = layers_option(),
    device: str = device_option(),
    tokenize: str = tokenize_option(),
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """Errors of metrics on system pairs against human judgement, their significant ranking per dataset, and the
    disagreement between datasets.

    A pair is an error when the metric orders the two systems differently from the human scores. Ranks come from
    a bootstrap over each dataset's segments; metrics not significantly different share a rank.
    """
    from filters.human_judgements import HUMAN_TESTS, HumanTest
    from filters.meta_evaluation import MetaOptions, meta_evaluate
    from suite.figures import save_figure

    if statistic is not None:
        _wmt_statistics(ctx, suites, metric, statistic, level, group, significance, human, resamples, seed, bars,
                        as_json, refs, combine, metric_options(model, layers, device, tokenize), fmt, out)
        return
    if table is not None and table not in META_TABLES:
        raise TsqeError(f"unknown table {table!r} (tables: {', '.join(META_TABLES)})")
    if human_test is not None and human_test not in HUMAN_TESTS:
        raise TsqeError(f"unknown human significance test {human_test!r} (choose one of: {', '.join(HUMAN_TESTS)})")
    options = MetaOptions(suites=tuple(comma_list(suites)), metrics=tuple(comma_list(metric)),
                          significant_pairs_only=significant_pairs_only,
                          human_test=cast("HumanTest | None", human_test), resamples=resamples, seed=seed,
                          refs=ref_choice(refs, combine),
                          metric_options=metric_options(model, layers, device, tokenize),
                          human=parse_human_kind(human))
    context = app_context(ctx)
    with progress_bar("meta-evaluation") as task:
        result = meta_evaluate(context.database, options, task)
    if heat_map is not None:
        save_figure(result.heat_map(), heat_map)
        typer.echo(f"wrote {heat_map}", err=True)
    tables = {"errors": result.errors_table, "ranks": result.ranks_table, "disagreement": result.disagreement_table}
    if as_json:
        typer.echo(result.to_json())
    elif table is not None or fmt is not None or out is not None:
        emit_table(tables[table or "ranks"](), fmt, out, document=result.to_json() + "\n")
    else:
        sys.stdout.write("\n".join(render(make(), "text") for make in tables.values()))


def _wmt_statistics(ctx: typer.Context, suites: str, metric: str, statistic: str, level: str, group: str,
                    significance: str, human: str | None, resamples: int, seed: int, bars: Path | None,
                    as_json: bool, refs: str, combine: str, options: MetricOptions | None, fmt: str | None,
                    out: Path | None) -> None:
    """``--statistic``: the WMT metrics task's statistics (filters.wmt_statistics)."""
    from filters.wmt_statistics import WmtOptions, wmt_meta_evaluate
    from suite.agreement import Setting
    from suite.domain import Grouping, Level, Statistic
    from suite.figures import save_figure
    from suite.file_names import safe_file_name

    def parse(kind: type[_E], text: str, what: str) -> _E:
        from store.domain import parse as parse_value

        try:
            return parse_value(kind, text, what)
        except ValueError as error:
            raise TsqeError(str(error)) from None

    if significance not in ("permutation", "none"):
        raise TsqeError(f"unknown significance test {significance!r} (choose permutation or none)")
    chosen_level = parse(Level, level, "level")
    grouping = parse(Grouping, group, "grouping")
    if chosen_level is Level.SYSTEM and grouping is not Grouping.NONE:
        raise TsqeError("a system-level statistic has one score per system: there is nothing to group")
    statistics = [parse(Statistic, name, "statistic") for name in comma_list(statistic)]
    if chosen_level is Level.SEGMENT and Statistic.SPA in statistics:
        raise TsqeError("soft pairwise accuracy compares systems: ask for it at the system level")
    settings = tuple(Setting(s, grouping) for s in statistics)
    wmt = WmtOptions(suites=tuple(comma_list(suites)), metrics=tuple(comma_list(metric)), level=chosen_level,
                     settings=settings,
                     permutations=resamples if significance == "permutation" else 0, seed=seed,
                     human=parse_human_kind(human),
                     refs=ref_choice(refs, combine), metric_options=options)
    context = app_context(ctx)
    with progress_bar("WMT statistics") as task:
        result = wmt_meta_evaluate(context.database, wmt, task)
    if bars is not None:
        bars.mkdir(parents=True, exist_ok=True)
        for suite in result.datasets:
            for setting in settings:
                path = bars / (safe_file_name(f"{suite}-{level}-{setting}".replace("/", "-")) + ".png")
                save_figure(result.bar_chart(suite, setting), path)
                typer.echo(f"wrote {path}", err=True)
    if as_json:
        typer.echo(result.to_json())
        return
    tables = [result.to_table(suite) for suite in result.datasets]
    if fmt is not None or out is not None:
        emit_table(tables[0], fmt, out, document=result.to_json() + "\n")
    else:
        sys.stdout.write("\n".join(render(table, "text") for table in tables))
