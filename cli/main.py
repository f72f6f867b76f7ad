"""``tsqe``: the command-line front-end.

Each area registers its commands from its own module; this module owns the global ``--db``/``--suite``
options and turns user errors into ``error: ...`` on stderr with exit status 2.
"""
from __future__ import annotations

import click
import typer
from typer.core import TyperGroup

from cli.context import AppContext
from suite.errors import TsqeError


class _UserErrors(TyperGroup):
    """Reports a ``TsqeError`` as ``error: ...`` with exit status 2 from inside the command tree, so the
    installed script and ``typer.testing.CliRunner`` behave the same."""

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except TsqeError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from error


app = typer.Typer(cls=_UserErrors, help="Linguistically-motivated MT test suites and fine-grained QE evaluation.",
                  no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
import_app = typer.Typer(help="Import suites, MT outputs, QE scores and reviewed labels.", no_args_is_help=True)
app.add_typer(import_app, name="import")


@app.callback()
def main_options(
    ctx: typer.Context,
    db: str = typer.Option(None, "--db", envvar="TSQE_DB",
                           help="Database file path or SQLAlchemy URL (default: a file in the user data dir)."),
    suite: str = typer.Option(None, "--suite", help="Suite to work on (needed when the database holds several)."),
) -> None:
    ctx.obj = AppContext(db=db, suite_name=suite)


def _register_commands() -> None:
    """Import the command modules for their side effect of adding commands to ``app``/``import_app``."""
    import cli.commands  # noqa: F401


def main() -> None:
    _register_commands()
    app()
