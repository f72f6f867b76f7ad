"""Progress of long work on stderr, driven by a ``TaskState``: a rich bar on a terminal, plain lines elsewhere."""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from suite.tasks import Progress as TaskProgress
from suite.tasks import TaskState

PLAIN_INTERVAL = 5.0
"""Seconds between two plain progress lines: a log of a long run (a batch job, ``nohup``, a pipe) shows that it
moves and how far it is, without a line per step."""


@contextmanager
def progress_bar(description: str) -> Iterator[TaskState]:
    """A ``TaskState`` whose progress reports move a bar that disappears when the work ends; when stderr is not a
    terminal, a plain line ``description: message (NN%, M:SS)`` every ``PLAIN_INTERVAL`` seconds instead."""
    console = Console(stderr=True)
    if not console.is_terminal:
        with _plain_lines(description) as show:
            yield TaskState(show)
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        bar = progress.add_task(description, total=1.0)

        def show_bar(report: TaskProgress) -> None:
            progress.update(bar, completed=report.fraction,
                            description=f"{description}: {report.message}" if report.message else description)

        yield TaskState(show_bar)


@contextmanager
def _plain_lines(description: str) -> Iterator[Callable[[TaskProgress], None]]:
    """The latest report, printed every ``PLAIN_INTERVAL`` seconds by a thread of its own: a step of the work may
    run for minutes between two reports (a chunk of BERTScore), and the log should still show it is alive.
    Work that ends within the interval prints nothing."""
    latest: list[TaskProgress] = []
    stop = threading.Event()
    started = time.monotonic()

    def printer() -> None:
        while not stop.wait(PLAIN_INTERVAL):
            if latest:
                report, elapsed = latest[-1], int(time.monotonic() - started)
                message = f": {report.message}" if report.message else ""
                print(f"{description}{message} ({report.fraction:.0%}, {elapsed // 60}:{elapsed % 60:02d})",
                      file=sys.stderr, flush=True)

    thread = threading.Thread(target=printer, name="progress lines", daemon=True)
    thread.start()
    try:
        yield latest.append
    finally:
        stop.set()
        thread.join()
