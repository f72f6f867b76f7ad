"""``tsqe suite edit``: rename a suite or set its languages."""
from __future__ import annotations

import typer

from cli.context import app_context
from cli.editing import AUTHOR_HELP
from cli.main import app
from suite.item_edit import default_author
from suite.suite_edit import rename_suite, set_languages
from suite.suites import SuiteInfo, suite_info

suite_app = typer.Typer(help="Change a suite itself (its name, its languages).", no_args_is_help=True)
app.add_typer(suite_app, name="suite")


@suite_app.command("edit")
def edit_suite_command(
    ctx: typer.Context,
    name: str = typer.Option(None, "--name", help="A new name for the suite."),
    source_lang: str = typer.Option(None, "--source-lang", help="The source language, e.g. de."),
    target_lang: str = typer.Option(None, "--target-lang", help="The target language, e.g. en."),
    author: str = typer.Option(None, "--author", help=AUTHOR_HELP),
) -> None:
    """Rename the suite (--suite, or the only one) and/or set its source and target language; both are in the
    suite's history (`tsqe history` without an item)."""
    context = app_context(ctx)
    info = suite_info(context.database, context.suite_name)
    who = author if author is not None else default_author()
    if source_lang is not None or target_lang is not None:
        info = set_languages(context.database, source_lang, target_lang, suite_name=info.name, author=who)
    if name is not None:
        info = rename_suite(context.database, name, suite_name=info.name, author=who)
    typer.echo(_describe(info))


def _describe(info: SuiteInfo) -> str:
    return f"suite {info.name!r}: {info.source_lang or '?'} -> {info.target_lang or '?'}"
