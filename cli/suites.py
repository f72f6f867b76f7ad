"""``tsqe suite edit``: rename a suite or set its languages."""
from __future__ import annotations

import typer

from cli.context import app_context
from cli.main import app
from suite.suites import SuiteInfo, rename_suite, set_languages, suite_info

suite_app = typer.Typer(help="Change a suite itself (its name, its languages).", no_args_is_help=True)
app.add_typer(suite_app, name="suite")


@suite_app.command("edit")
def edit_suite_command(
    ctx: typer.Context,
    name: str = typer.Option(None, "--name", help="A new name for the suite."),
    source_lang: str = typer.Option(None, "--source-lang", help="The source language, e.g. de."),
    target_lang: str = typer.Option(None, "--target-lang", help="The target language, e.g. en."),
) -> None:
    """Rename the suite (--suite, or the only one) and/or set its source and target language."""
    context = app_context(ctx)
    info = suite_info(context.database, context.suite_name)
    if source_lang is not None or target_lang is not None:
        info = set_languages(context.database, source_lang, target_lang, suite_name=info.name)
    if name is not None:
        info = rename_suite(context.database, name, suite_name=info.name)
    typer.echo(_describe(info))


def _describe(info: SuiteInfo) -> str:
    return f"suite {info.name!r}: {info.source_lang or '?'} -> {info.target_lang or '?'}"
