"""The ``tsqe`` script's first code: Ctrl+C is answered in one line even while the command line is still loading.

Loading the command modules (SQLAlchemy, typer, the core) takes a second or more, before any ``try`` of theirs can
catch an interrupt; until they are loaded, SIGINT ends the process at once with the sentence ``cli.main`` prints
for an interrupted command (nothing was started, so nothing was changed), instead of an import's traceback.
"""
from __future__ import annotations

import os
import signal
from types import FrameType

INTERRUPTED = b"interrupted: nothing was changed\n"


def _interrupted_while_loading(_signum: int, _frame: FrameType | None) -> None:
    os.write(2, INTERRUPTED)
    os._exit(130)


def main() -> None:
    signal.signal(signal.SIGINT, _interrupted_while_loading)
    from cli.main import main as run

    signal.signal(signal.SIGINT, signal.default_int_handler)  # from here on a command rolls back and says so
    run()
