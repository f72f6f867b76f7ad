"""``tsqe``: the command-line front-end, started by ``cli.entry``: every command module registered, then run."""
from __future__ import annotations

import os
import sys
from typing import NoReturn

import cli.commands  # noqa: F401  # each command module adds its commands to the group when imported
from cli.app import INTERRUPTED_STATUS, app

__all__ = ["app", "main"]


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:  # before a command started (loading its modules), or after click let it go
        print("interrupted: nothing was changed", file=sys.stderr)
        _exit_interrupted()
    except SystemExit as end:
        if end.code == INTERRUPTED_STATUS:
            _exit_interrupted()
        raise


def _exit_interrupted() -> NoReturn:
    """End with the interrupted status as it is. An interrupt that passed through an ``exec`` (SQLAlchemy compiles
    some of its code lazily so) leaves CPython set to end the process by SIGINT at exit, whatever the status."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(INTERRUPTED_STATUS)
