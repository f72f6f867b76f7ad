"""``tsqe suite edit``: rename a suite, set its languages, or its policy for degenerate outputs."""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import typer

from cli.app import app
from cli.context import app_context
from cli.editing import AUTHOR_HELP
from cli.progress import progress_bar

if TYPE_CHECKING:
    from suite.suites import SuiteInfo

suite_app = typer.Typer(help="Change a suite itself (its name, its languages, its policy for empty outputs).",
                        no_args_is_help=True)
app.add_typer(suite_app, name="suite")


@suite_app.command("edit")
def edit_suite_command(
    ctx: typer.Context,
    name: str = typer.Option(None, "--name", help="A new name for the suite."),
    source_lang: str = typer.Option(None, "--source-lang", help="The source language, e.g. de."),
    target_lang: str = typer.Option(None, "--target-lang", help="The target language, e.g. en."),
    empty_output: str = typer.Option(
        None, "--empty-output", metavar="fail|unknown",
        help="What empty outputs and placeholders get: fail, before any rule; or unknown (the default), left to the "
             "rules like any output."),
    untranslated_output: str = typer.Option(
        None, "--untranslated-output", metavar="fail|unknown",
        help="The same for outputs identical to their item's source sentence (not translated)."),
    placeholders: list[str] = typer.Option(
        None, "--placeholder", help="A text systems output instead of a translation, e.g. '####' (repeat the option "
                                    "for several; they replace the suite's list)."),
    no_placeholders: bool = typer.Option(False, "--no-placeholders", help="Empty the suite's list of placeholders."),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Rename the suite (--suite, or the only one), set its source and target language, and/or its policy for
    degenerate outputs (empty, placeholder, untranslated), which relabels the suite and says how many outputs it
    decides; every change is in the suite's history (`tsqe history` without an item), and running the command
    again with the values before undoes it."""
    from suite.editing.item_edit import default_author
    from suite.editing.suite_edit import rename_suite, set_languages, set_output_policy
    from suite.engine.output_policy import EMPTY_OUTPUTS, UNTRANSLATED_OUTPUTS, output_policy, parse_policy_label
    from suite.suites import suite_info

    context = app_context(ctx)
    info = suite_info(context.database, context.suite_name)
    who = author if author is not None else default_author()
    if source_lang is not None or target_lang is not None:
        info = set_languages(context.database, source_lang, target_lang, suite_name=info.name, author=who)
    if name is not None:
        info = rename_suite(context.database, name, suite_name=info.name, author=who)
    typer.echo(_describe(info))
    if empty_output is None and untranslated_output is None and not placeholders and not no_placeholders:
        return
    policy = output_policy(context.database, info.name)
    policy = replace(policy, empty_output=parse_policy_label(empty_output, EMPTY_OUTPUTS) if empty_output
                     else policy.empty_output,
                     untranslated_output=parse_policy_label(untranslated_output, UNTRANSLATED_OUTPUTS)
                     if untranslated_output else policy.untranslated_output,
                     placeholders=() if no_placeholders else tuple(placeholders) if placeholders
                     else policy.placeholders)
    with progress_bar("labelling") as task:
        change = set_output_policy(context.database, policy, suite_name=info.name, author=who, task=task)
    typer.echo(f"degenerate outputs: {change.after.describe()}")
    typer.echo(change.summary() + ("" if change.after != change.before else " (the policy was already so)"))


def _describe(info: SuiteInfo) -> str:
    return f"suite {info.name!r}: {info.source_lang or '?'} -> {info.target_lang or '?'}"
