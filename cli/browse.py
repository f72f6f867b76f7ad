"""``tsqe outputs`` and ``tsqe tree``: browsing outputs by label state and the suite tree (``suite.reading.browse``,
``suite.reading.tree``)."""
from __future__ import annotations

import dataclasses
import json
import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.table import Table

from cli.app import app
from cli.context import app_context
from store.domain import Label
from suite.errors import TsqeError
from suite.tables import terminal_text

if TYPE_CHECKING:
    from suite.assist.groups import OutputGroup
    from suite.engine.label_counts import LabelCounts
    from suite.reading.browse import OutputRow
    from suite.reading.impact import PairsAdded


class Sort(StrEnum):
    item = "item"
    label = "label"
    category = "category"
    systems = "systems"
    text = "text"
    impact = "impact"


class Format(StrEnum):
    text = "text"
    tsv = "tsv"
    json = "json"


def _console() -> Console:
    # A pipe gets the full table rather than rich's 80-column fallback. No markup: an output "[bold]x" or
    # "[link=…]" is text, and the cells are escaped for the terminal (suite.tables.terminal_text).
    return Console(markup=False, highlight=False, emoji=False) if sys.stdout.isatty() else \
        Console(width=160, markup=False, highlight=False, emoji=False)


@app.command("outputs")
def outputs_command(
    ctx: typer.Context,
    label: Label = typer.Option(None, "--label", help="Effective label (a review, else the automatic label)."),
    auto_label: Label = typer.Option(None, "--auto-label", help="Automatic label."),
    reviewed: bool = typer.Option(None, "--reviewed/--not-reviewed", help="Only outputs with / without a review."),
    disagree: bool = typer.Option(False, "--disagree", help="Only reviews that differ from the automatic label."),
    category: str = typer.Option(None, "--category", help="Category name."),
    phenomenon: str = typer.Option(None, "--phenomenon", help="Phenomenon name."),
    item: str = typer.Option(None, "--item", help="Item id (as in the suite file)."),
    system: str = typer.Option(None, "--system", help="Only outputs this MT system produced."),
    contains: str = typer.Option(None, "--contains", help="Substring of the output, case-insensitive."),
    grouped: bool = typer.Option(False, "--grouped", help="Show outputs of an item that differ only in case, "
                                                          "punctuation, quotes, spaces or Unicode form, and have "
                                                          "one automatic label, once (the first stands for them)."),
    degenerate: bool = typer.Option(False, "--degenerate", help="Only outputs that are empty, a placeholder or "
                                    "identical to their source (see `tsqe suite edit --empty-output`)."),
    sort: Sort = typer.Option(Sort.item, "--sort", help="Order of the rows (ties in suite order); impact: "
                                                        "undecided outputs whose decision adds the most pass/fail "
                                                        "pairs first, those of items with one label only before "
                                                        "all."),
    desc: bool = typer.Option(False, "--desc", help="Reverse the order."),
    limit: int = typer.Option(100, "--limit", min=0, help="Rows to print."),
    offset: int = typer.Option(0, "--offset", min=0, help="Rows to skip first."),
    fmt: Format = typer.Option(Format.text, "--format", help="text (a table), tsv or json."),
) -> None:
    """Distinct outputs of the suite filtered by label state, item or system, one page at a time."""
    from suite.assist.groups import output_groups
    from suite.reading.browse import ROW_FIELDS, OutputFilter, browse_outputs, plain, write_rows_tsv
    from suite.reading.impact import pairs_added

    context = app_context(ctx)
    page = browse_outputs(
        context.database,
        OutputFilter(label=label, auto_label=auto_label, reviewed=reviewed,
                     disagree=disagree, category=category, phenomenon=phenomenon, item=item, system=system,
                     contains=contains, grouped=grouped, degenerate=degenerate),
        suite_name=context.suite_name, sort=sort.value, descending=desc, limit=limit, offset=offset)
    groups = output_groups(context.database, [row.output_id for row in page.rows]) if grouped else {}
    pairs = pairs_added(context.database, [(row.output_id, row.item_id, row.effective_label) for row in page.rows]) \
        if sort is Sort.impact else {}
    if fmt is Format.json:
        rows = [{**{name: plain(getattr(row, name)) for name in ROW_FIELDS}, **_extras(row, groups, pairs)}
                for row in page.rows]
        typer.echo(json.dumps({"total": page.total, "rows": rows}, ensure_ascii=False, indent=2))
    elif fmt is Format.tsv:
        write_rows_tsv(page.rows, sys.stdout)
    else:
        table = Table(title=f"outputs {offset + 1 if page.rows else offset}–{offset + len(page.rows)} "
                            f"of {page.total}")
        extra = (("alike",) if grouped else ()) + (("pairs",) if pairs or sort is Sort.impact else ())
        for column in ("id", "item", "output", "systems", "auto", "manual", "effective", *extra):
            table.add_column(column)
        for row in page.rows:
            group = groups.get(row.output_id)
            systems = group.systems if group is not None else row.systems
            cells = ([str(group.size - 1) if group is not None and group.size > 1 else ""] if grouped else []) + \
                ([_pairs_text(row.output_id, group, pairs)] if "pairs" in extra else [])
            table.add_row(str(row.output_id), terminal_text(row.external_id), terminal_text(row.text),
                          terminal_text(", ".join(systems)), row.auto_label or "", row.manual_label or "",
                          row.effective_label or "", *cells)
        _console().print(table)


def _pairs_text(output_id: int, group: OutputGroup | None, pairs: dict[int, PairsAdded]) -> str:
    added = pairs.get(output_id)
    return "" if added is None else added.times(group.size if group is not None else 1).text()


def _extras(row: OutputRow, groups: dict[int, OutputGroup], pairs: dict[int, PairsAdded]) -> dict[str, Any]:
    """A grouped row's alike outputs and all its systems; an impact-ordered row's pairs its decision adds."""
    extras: dict[str, Any] = {}
    group = groups.get(row.output_id)
    if group is not None:
        extras.update(alike=[m.output_id for m in group.others], group_systems=list(group.systems))
    added = pairs.get(row.output_id)
    if added is not None:
        added = added.times(group.size if group is not None else 1)
        extras["pairs_added"] = {"if_pass": added.if_pass, "if_fail": added.if_fail}
    return extras


def _counts_json(counts: LabelCounts) -> dict[str, Any]:
    return {**dataclasses.asdict(counts), "undecided": counts.undecided, "pass_rate": counts.pass_rate}


def _rate(counts: LabelCounts) -> str:
    return "" if counts.pass_rate is None else f"{100 * counts.pass_rate:.1f}%"


@app.command("tree")
def tree_command(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print the tree as JSON."),
    order: str = typer.Option("suite", "--order", help="suite: suite order; undecided: at every level the nodes "
                              "with the most unknown, conflict or error outputs first."),
    undecided_only: bool = typer.Option(False, "--undecided-only",
                                        help="Only nodes with an output still unknown, conflict or error."),
    search: str = typer.Option("", "--search", help="Only items whose id, source or a rule pattern contains this "
                               "(any case), and categories and phenomena whose name does."),
) -> None:
    """The suite as category → phenomenon → item, with effective label counts over distinct outputs."""
    from suite.reading.search import search_tree, suite_search
    from suite.reading.tree import TREE_ORDERS, arranged_tree, suite_tree

    context = app_context(ctx)
    if order not in TREE_ORDERS:
        raise TsqeError(f"the tree is ordered by {' or '.join(TREE_ORDERS)}, not {order!r}")
    tree = suite_tree(context.database, context.suite_name)
    if search.strip():
        tree = search_tree(tree, suite_search(context.database, tree, context.suite_name), search)
    tree = arranged_tree(tree, order, undecided_only)
    if as_json:
        typer.echo(json.dumps({
            "suite": tree.suite, "counts": _counts_json(tree.counts),
            "categories": [{
                "category_id": c.category_id, "name": c.name, "counts": _counts_json(c.counts),
                "phenomena": [{
                    "phenomenon_id": p.phenomenon_id, "name": p.name, "counts": _counts_json(p.counts),
                    "items": [{"item_id": i.item_id, "external_id": i.external_id, "source": i.source,
                               "rules": i.rules, "counts": _counts_json(i.counts)} for i in p.items],
                } for p in c.phenomena],
            } for c in tree.categories],
        }, ensure_ascii=False, indent=2))
        return
    table = Table(title=f"suite {tree.suite}")
    for column in ("node", "outputs", "pass", "fail", "conflict", "unknown", "error", "undecided", "reviewed",
                   "pass rate"):
        table.add_column(column, justify="left" if column == "node" else "right")

    def add(name: str, counts: LabelCounts) -> None:
        numbers = (counts.outputs, counts.passed, counts.failed, counts.conflict, counts.unknown, counts.error,
                   counts.undecided, counts.reviewed)
        table.add_row(terminal_text(name), *(str(n) for n in numbers), _rate(counts))

    for category in tree.categories:
        add(category.name, category.counts)
        for phenomenon in category.phenomena:
            add(f"  {phenomenon.name}", phenomenon.counts)
            for item in phenomenon.items:
                add(f"    {item.external_id}", item.counts)
    add("all", tree.counts)
    _console().print(table)
