"""``tsqe``: the command-line front-end.

Each area registers its commands from its own module; this module owns the global ``--db``/``--suite``
options and turns user errors into ``error: ...`` on stderr with exit status 2.
"""
from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from cli.context import AppContext
from suite.errors import SuiteChoiceError, TsqeError

HINTS: dict[type[TsqeError], str] = {
    SuiteChoiceError: "name one with --suite NAME; add one with `tsqe import suite FILE` or `tsqe demo`",
}
"""What to do about a kind of core error in terms of this command line; the core's messages speak of data."""


class _UserErrors(TyperGroup):
    """Reports a ``TsqeError`` as ``error: ...`` with exit status 2 from inside the command tree, so the
    installed script and ``typer.testing.CliRunner`` behave the same."""

    def invoke(self, ctx: Any) -> Any:  # typer declares it with the click Context it vendors privately
        try:
            return super().invoke(ctx)
        except TsqeError as error:
            hint = next((text for kind, text in HINTS.items() if isinstance(error, kind)), None)
            typer.echo(f"error: {error}" + (f" ({hint})" if hint else ""), err=True)
            raise typer.Exit(2) from error
        except OSError as error:  # a file given on the command line cannot be read or written
            typer.echo(f"error: {error.filename or ''}: {error.strerror or error}", err=True)
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
