"""The ``tsqe`` command group: its global ``--db``/``--suite`` options, and user errors turned into
``error: ...`` on stderr with exit status 2.

The command modules (``cli.commands`` lists them) add their commands to ``app`` and ``import_app`` here; ``cli.main``
imports them and runs the group. Keeping the group apart from ``main`` is what lets the command modules import it
without an import cycle.
"""
from __future__ import annotations

import os
from typing import Any

import click
import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from cli.context import CREATING, AppContext
from suite.errors import SuiteChoiceError, TsqeError, as_user_error


def hint(error: TsqeError) -> str | None:
    """What to do about a kind of core error in terms of this command line; the core's messages speak of data."""
    from store.faults import DatabaseDamagedError  # here: SQLAlchemy is not loaded merely to start (issue 16)

    hints: dict[type[TsqeError], str] = {
        SuiteChoiceError: "name one with --suite NAME; add one with `tsqe import suite FILE` or `tsqe demo`",
        DatabaseDamagedError: "`tsqe check` lists what is damaged",
    }
    return next((text for kind, text in hints.items() if isinstance(error, kind)), None)


DEBUG_ENV = "TSQE_DEBUG"
"""Set, an unexpected failure (a bug) shows its traceback instead of one line."""
INTERRUPTED_STATUS = 130
"""The exit status of a command stopped by Ctrl+C, as shells report one killed by SIGINT (128 + 2)."""


def reader_gone() -> bool:
    """Whether standard output is a pipe whose reader has closed it (``tsqe status | head -1``): then a
    ``BrokenPipeError`` is the reader's choice, not a failure (one from a worker's pipe or a socket still is), and
    click's own handling ends the command quietly with status 1, as it does for a closed pipe outside a command."""
    import select  # here: only a failure needs it

    try:
        poller = select.poll()
        poller.register(1, select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError):
        return False


class _UserErrors(TyperGroup):
    """Reports every failure as one line ``error: ...`` with exit status 2 from inside the command tree, so the
    installed script and ``typer.testing.CliRunner`` behave the same: a ``TsqeError``, and whatever
    ``suite.errors.as_user_error`` turns into one (a full disk, a read-only or damaged database, an unreachable
    server, a file the system refused, exhausted memory); a bug says it is one. Ctrl+C rolls back what was under
    way and says so."""

    def invoke(self, ctx: Any) -> Any:  # typer declares it with the click Context it vendors privately
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException, click.exceptions.Exit, click.exceptions.Abort,
                click.ClickException):
            raise  # the command line's own ways to end
        except KeyboardInterrupt as error:
            typer.echo("interrupted: nothing was changed", err=True)
            raise typer.Exit(INTERRUPTED_STATUS) from error
        except Exception as error:  # noqa: BLE001 - every failure ends in one sentence, never a traceback
            if isinstance(error, BrokenPipeError) and reader_gone():
                raise
            root = ctx.find_root().obj
            user_error = as_user_error(error, root.name_in_messages() if isinstance(root, AppContext) else None)
            if user_error is None:
                if os.environ.get(DEBUG_ENV):
                    raise
                first_line = (str(error).strip().splitlines() or [""])[0][:200]
                typer.echo(f"error: tsqe failed unexpectedly ({type(error).__name__}: {first_line}); this is a "
                           f"bug: run the command again with {DEBUG_ENV}=1 to see where, and report it", err=True)
                raise typer.Exit(2) from error
            advice = hint(user_error)
            typer.echo(f"error: {user_error}" + (f" ({advice})" if advice else ""), err=True)
            raise typer.Exit(2) from error


app = typer.Typer(cls=_UserErrors, help="Linguistically-motivated MT test suites and fine-grained QE evaluation.",
                  no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
import_app = typer.Typer(help="Import suites, MT outputs, QE scores and reviewed labels.", no_args_is_help=True)
app.add_typer(import_app, name="import")


def _print_version(asked: bool) -> None:
    if asked:
        from suite.version import VERSION

        typer.echo(f"tsqe {VERSION}")
        raise typer.Exit()


@app.callback()
def main_options(
    ctx: typer.Context,
    db: str = typer.Option(None, "--db", envvar="TSQE_DB",
                           help="Database file path or SQLAlchemy URL (default: a file in the user data dir)."),
    suite: str = typer.Option(None, "--suite", help="Suite to work on (needed when the database holds several)."),
    _version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                  help="Print tsqe's version and exit."),
) -> None:
    ctx.obj = AppContext(db=db, suite_name=suite, create=ctx.invoked_subcommand in CREATING)
