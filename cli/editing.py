"""``tsqe init``, ``tsqe item ...``, ``tsqe rule add|edit|remove``, ``tsqe known ...``, ``tsqe review`` and
``tsqe history``: editing a suite from the command line through ``suite.editing.api``, as the GUI does."""
from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

import typer

from cli.app import app
from cli.context import app_context
from cli.rule_group import rule_app
from store.domain import Label, Polarity
from suite.errors import TsqeError

if TYPE_CHECKING:
    from store import Database
    from suite.editing.api import EditResult, ItemDetail

item_app = typer.Typer(help="Show, add, change and remove items.", no_args_is_help=True)
app.add_typer(item_app, name="item")
known_app = typer.Typer(help="Add and remove an item's known good and bad translations.", no_args_is_help=True)
app.add_typer(known_app, name="known")

AUTHOR_HELP = "Who made the edit, for the history (default: $TSQE_USER, else the login name)."
JSON_HELP = "Print the result as JSON."


def _author(name: str | None) -> str:
    from suite.editing.api import default_author

    return name if name is not None else default_author()


def _json(value: Any) -> str:
    def convert(other: object) -> str:
        if isinstance(other, datetime):
            return other.isoformat()
        raise TypeError(f"cannot write {type(other).__name__} as JSON")

    return json.dumps(value, ensure_ascii=False, indent=2, default=convert)


def _labels(result: EditResult) -> str:
    counts = ", ".join(f"{label} {n}" for label, n in result.labels.items())
    changed = f"; {result.flipped} output(s) changed label" if result.flipped else ""
    return f"automatic labels of item {result.external_id}: {counts}{changed}"


@app.command("init")
def init_command(ctx: typer.Context) -> None:
    """Create an empty database at --db, or bring an existing one to the current schema (every command does)."""
    typer.echo(f"database ready: {app_context(ctx).database.url}")


@item_app.command("show")
def item_show(
    ctx: typer.Context,
    item_id: str = typer.Argument(..., help="The item's id, as in the imported suite file."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """The item with its rules (with their ids), known translations, references, outputs and labels."""
    from suite.editing.api import find_item, item_detail

    context = app_context(ctx)
    detail = item_detail(context.database, find_item(context.database, item_id, context.suite_name))
    if as_json:  # each rule flat, as this JSON has always had it (polarity, pattern… beside id and version)
        typer.echo(_json({**asdict(detail), "rules": [rule.to_json() for rule in detail.rules]}))
        return
    _print_detail(detail)


def _print_detail(detail: ItemDetail) -> None:
    typer.echo(f"item {detail.external_id} (id {detail.id}, version {detail.version}) of suite {detail.suite}")
    typer.echo(f"  category    {detail.category} / {detail.phenomenon}")
    typer.echo(f"  source      {detail.source}")
    if detail.comment:
        typer.echo(f"  comment     {detail.comment}")
    typer.echo("rules (id, polarity and number as the editor shows them, pattern)")
    for rule in detail.rules:
        spec = rule.spec
        flags = (" [ignore case]" if spec.ignore_case else "") + ("" if rule.valid else f" [invalid: {rule.error}]")
        typer.echo(f"  {rule.id:>6}  {spec.polarity:<8} {rule.position + 1:>2}  {spec.pattern}{flags}")
    typer.echo("known translations (id, kind, text)")
    for known in detail.known:
        typer.echo(f"  {known.id:>6}  {known.kind:<8}  {known.text}")
    typer.echo("references (id, kind, text)")
    for reference in detail.references:
        typer.echo(f"  {reference.id:>6}  {reference.kind:<8}  {reference.text}")
    typer.echo("outputs (id, effective label, systems, text)")
    for output in detail.outputs:
        typer.echo(f"  {output.output_id:>6}  {output.effective_label or 'unlabelled':<8}  "
                   f"{', '.join(output.systems)}: {output.text}")
        typer.echo(f"          automatic {output.auto_label or 'not labelled yet'}"
                   + (f" ({output.decided_by})" if output.decided_by else ""))
        if output.manual_label is not None:
            typer.echo(f"          manual {output.manual_label} by {output.reviewer}"
                       + (f": {output.comment}" if output.comment else ""))


@item_app.command("add")
def item_add(
    ctx: typer.Context,
    item_id: str = typer.Argument(..., help="The new item's id (unique in the suite)."),
    source: str = typer.Option(..., "--source", help="The source sentence."),
    category: str = typer.Option(..., "--category", help="Its category (created when new)."),
    phenomenon: str = typer.Option(..., "--phenomenon", help="Its phenomenon within the category."),
    comment: str = typer.Option(None, "--comment", help="A note for other linguists."),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Add an item at the end of the suite; give it rules with `tsqe rule add`."""
    from suite.editing.api import add_item

    context = app_context(ctx)
    result = add_item(context.database, external_id=item_id, source=source, category=category,
                      phenomenon=phenomenon, comment=comment, suite_name=context.suite_name,
                      author=_author(author))
    typer.echo(f"added item {result.external_id} (id {result.item_id})")


@item_app.command("edit")
def item_edit(
    ctx: typer.Context,
    item_id: str = typer.Argument(..., help="The item's id, as in the imported suite file."),
    source: str = typer.Option(None, "--source", help="The new source sentence."),
    comment: str = typer.Option(None, "--comment", help="The new comment ('' removes it)."),
    category: str = typer.Option(None, "--category", help="Move it to this category (with --phenomenon)."),
    phenomenon: str = typer.Option(None, "--phenomenon", help="Move it to this phenomenon (with --category)."),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Change an item's source or comment, or move it to another category and phenomenon."""
    from suite.editing.api import change_item, find_item, move_item

    if (category is None) != (phenomenon is None):
        raise typer.BadParameter("give both --category and --phenomenon to move an item")
    if source is None and comment is None and category is None:
        raise typer.BadParameter("give --source, --comment or --category with --phenomenon")
    context = app_context(ctx)
    database, who = context.database, _author(author)
    target = find_item(database, item_id, context.suite_name)
    if source is not None or comment is not None:
        result = change_item(database, target, source=source, comment=comment, author=who)
        typer.echo(f"changed item {result.external_id} (version {result.version}); {_labels(result)}")
    if category is not None and phenomenon is not None:
        result = move_item(database, target, category=category, phenomenon=phenomenon, author=who)
        typer.echo(f"moved item {result.external_id} to {category} / {phenomenon}")


@item_app.command("remove")
def item_remove(
    ctx: typer.Context,
    item_id: str = typer.Argument(..., help="The item's id, as in the imported suite file."),
    yes: bool = typer.Option(False, "--yes", help="Do not ask for confirmation."),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Remove an item with its rules, outputs, labels and scores; `tsqe item restore` brings it back."""
    from suite.editing.api import find_item, item_detail, remove_item

    context = app_context(ctx)
    target = find_item(context.database, item_id, context.suite_name)
    if not yes:
        detail = item_detail(context.database, target)
        reviewed = sum(output.manual_label is not None for output in detail.outputs)
        typer.confirm(f"Remove item {detail.external_id} with its {len(detail.rules)} rule(s), "
                      f"{len(detail.outputs)} output(s) and {reviewed} manual label(s)?", abort=True)
    snapshot = remove_item(context.database, target, author=_author(author))
    typer.echo(f"removed item {snapshot.external_id} ({len(snapshot.outputs)} outputs); "
               f"`tsqe item restore {snapshot.external_id}` brings it back")


@item_app.command("restore")
def item_restore(
    ctx: typer.Context,
    item_id: str = typer.Argument(..., help="The removed item's id, as in the imported suite file."),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Bring back the item as it was when it was last removed: rules, outputs, manual labels and scores."""
    from suite.editing.api import restore_removed_item

    context = app_context(ctx)
    result = restore_removed_item(context.database, item_id, context.suite_name, author=_author(author))
    typer.echo(f"restored item {result.external_id} (id {result.item_id}); {_labels(result)}")


def _rule_result(result: EditResult, what: str, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps({"rule_id": result.entity_id, "labels": result.labels, "flipped": result.flipped}))
        return
    typer.echo(f"{what} rule {result.entity_id}; {_labels(result)}")


@rule_app.command("add")
def rule_add(
    ctx: typer.Context,
    item_id: str = typer.Argument(..., help="The item's id, as in the imported suite file."),
    pattern: str = typer.Argument(..., help="The regular expression (put `--` before one that starts with -)."),
    positive: bool = typer.Option(False, "--positive", help="A match means a correct translation."),
    negative: bool = typer.Option(False, "--negative", help="A match means a known error."),
    ignore_case: bool = typer.Option(False, "--ignore-case", help="Match regardless of case."),
    position: int = typer.Option(None, "--position", min=0,
                                 help="Place among the item's rules of that polarity, from 0 (default: last)."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Add a rule to an item and relabel the item's outputs."""
    from suite.editing.api import add_rule, find_item

    if positive == negative:
        raise typer.BadParameter("give exactly one of --positive and --negative")
    context = app_context(ctx)
    target = find_item(context.database, item_id, context.suite_name)
    result = add_rule(context.database, target, Polarity.POSITIVE if positive else Polarity.NEGATIVE, pattern,
                      ignore_case=ignore_case, position=position, author=_author(author))
    _rule_result(result, "added", as_json)


@rule_app.command("edit")
def rule_edit(
    ctx: typer.Context,
    rule_id: int = typer.Argument(..., help="The rule's id (see `tsqe item show`)."),
    pattern: str = typer.Option(None, "--pattern", help="The new regular expression."),
    ignore_case: bool = typer.Option(None, "--ignore-case/--no-ignore-case", help="Match regardless of case."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Change a rule's pattern or case sensitivity and relabel its item's outputs."""
    from suite.editing.api import change_rule

    if pattern is None and ignore_case is None:
        raise typer.BadParameter("give --pattern or --ignore-case/--no-ignore-case")
    result = change_rule(app_context(ctx).database, rule_id, pattern=pattern, ignore_case=ignore_case,
                         author=_author(author))
    _rule_result(result, "changed", as_json)


@rule_app.command("remove")
def rule_remove(
    ctx: typer.Context,
    rule_id: int = typer.Argument(..., help="The rule's id (see `tsqe item show`)."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Remove a rule and relabel its item's outputs."""
    from suite.editing.api import remove_rule

    _rule_result(remove_rule(app_context(ctx).database, rule_id, author=_author(author)), "removed", as_json)


def _known_result(result: EditResult, what: str, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps({"known_id": result.entity_id, "labels": result.labels, "flipped": result.flipped}))
        return
    typer.echo(f"{what} known translation {result.entity_id}; {_labels(result)}")


@known_app.command("add")
def known_add(
    ctx: typer.Context,
    item_id: str = typer.Argument(..., help="The item's id, as in the imported suite file."),
    text: str = typer.Argument(..., help="The translation."),
    good: bool = typer.Option(False, "--good", help="An output equal to it passes (unless a rule decides)."),
    bad: bool = typer.Option(False, "--bad", help="An output equal to it fails (unless a rule decides)."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Add a known good or bad translation to an item and relabel its outputs."""
    from suite.editing.api import add_known, find_item

    if good == bad:
        raise typer.BadParameter("give exactly one of --good and --bad")
    context = app_context(ctx)
    target = find_item(context.database, item_id, context.suite_name)
    result = add_known(context.database, target, "good" if good else "bad", text, author=_author(author))
    _known_result(result, "added", as_json)


@known_app.command("remove")
def known_remove(
    ctx: typer.Context,
    known_id: int = typer.Argument(..., help="The known translation's id (see `tsqe item show`)."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Remove a known translation and relabel its item's outputs."""
    from suite.editing.api import remove_known

    _known_result(remove_known(app_context(ctx).database, known_id, author=_author(author)), "removed", as_json)


REVIEW_CHOICES = ("pass", "fail", "unknown", "clear")


@app.command("review")
def review_command(
    ctx: typer.Context,
    output_id: int = typer.Argument(..., help="The distinct output's id (see `tsqe item show`)."),
    label: str = typer.Argument(..., help="pass, fail or unknown; clear removes the manual label."),
    reviewer: str = typer.Option(None, "--reviewer", help="Who reviewed it (default: $TSQE_USER, else the login "
                                                           "name)."),
    comment: str = typer.Option(None, "--comment", help="Why, for other reviewers."),
    seen_version: int = typer.Option(None, "--seen-version", help="The manual label's version you saw "
                                                                  "(`tsqe item show`): refused if it changed "
                                                                  "since; needed to replace or clear another "
                                                                  "reviewer's decision."),
    as_known: bool = typer.Option(False, "--as-known", help="Also add the output as a known good (pass) or bad "
                                                            "(fail) translation of its item, which relabels "
                                                            "equal outputs; both or neither are stored."),
    group: bool = typer.Option(False, "--group", help="Decide every output alike to it (same item and automatic "
                                                      "label; differing only in case, punctuation, quotes, spaces "
                                                      "or Unicode form) at once: all or none."),
) -> None:
    """Set a reviewer's label for one distinct output (it wins over the automatic label), or clear it."""
    from suite.editing.review import OutputDecision, SeenOutput, decide

    label = label.strip().lower()
    if label not in REVIEW_CHOICES:
        raise typer.BadParameter(f"the label is one of {', '.join(REVIEW_CHOICES)}, not {label!r}")
    if as_known and label not in ("pass", "fail"):
        raise typer.BadParameter("--as-known goes with pass (a known good translation) or fail (a known bad one)")
    database, who = app_context(ctx).database, _author(reviewer)
    if group:
        _review_group(database, output_id, label, who, comment, seen_version, as_known)
        return
    decided = decide(database, [OutputDecision(SeenOutput(output_id, seen_version, comment),
                                               None if label == "clear" else Label(label))], who, as_known=as_known)
    (review,) = decided.reviews
    if as_known:
        kind = "good" if label == "pass" else "bad"
        typer.echo(f"output {output_id} reviewed as {label} by {who} (version {review.version}); "
                   + (f"added as known {kind} translation {decided.known_added[0].known_id}" if decided.known_added
                      else f"it was a known {kind} translation already"))
        return
    if review.after is None:
        typer.echo(f"cleared the manual label of output {output_id}" if review.before is not None
                   else f"output {output_id} had no manual label")
        return
    typer.echo(f"output {output_id} reviewed as {review.after.label} by {review.after.reviewer} "
               f"(version {review.version})")


def _review_group(database: Database, output_id: int, label: str, who: str, comment: str | None,
                  seen_version: int | None, as_known: bool) -> None:
    from suite.assist.groups import group_decisions, output_groups
    from suite.editing.review import decide

    found = output_groups(database, [output_id])
    if output_id not in found:
        raise TsqeError(f"no output with id {output_id}")
    members = found[output_id]
    decided = decide(database, group_decisions(members, None if label == "clear" else Label(label), comment=comment,
                                               seen_version=seen_version), who, as_known=as_known)
    ids = ", ".join(str(change.output_id) for change in decided.reviews)
    done = "cleared the manual labels of" if label == "clear" else f"reviewed as {label} by {who}:"
    typer.echo(f"{done} {members.size} output{'s' if members.size > 1 else ''} alike ({ids})")


@app.command("history")
def history_command(
    ctx: typer.Context,
    item_id: str = typer.Argument(None, help="The item's id, as in the imported suite file (a removed one too); "
                                             "without it, the edits of the suite itself."),
    as_json: bool = typer.Option(False, "--json", help=JSON_HELP),
) -> None:
    """Every edit of the item, its rules, known translations, references, outputs and manual labels, newest
    first; without an item, every edit of the suite itself (name, languages) and of its categories and
    phenomena."""
    from suite.editing.api import item_history, suite_history
    from suite.editing.history import change_text

    context = app_context(ctx)
    records = item_history(context.database, item_id, context.suite_name) if item_id is not None else \
        suite_history(context.database, context.suite_name)
    if as_json:
        typer.echo(_json([asdict(entry) for entry in records]))
        return
    for entry in records:
        what = entry.entity.replace("_", " ") + ("" if entry.entity_id is None else f" {entry.entity_id}")
        version = "" if entry.version is None else f" (version {entry.version})"
        typer.echo(f"{entry.at:%Y-%m-%d %H:%M:%S}  {entry.author}  {entry.action} {what}{version}")
        typer.echo(f"    {change_text(entry)}")
