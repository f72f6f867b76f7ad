"""A rich progress bar on stderr driven by a ``TaskState``, for commands that run long work."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from suite.tasks import TaskState


@contextmanager
def progress_bar(description: str) -> Iterator[TaskState]:
    """A ``TaskState`` whose progress reports move a bar; the bar disappears when the work ends and is
    not drawn at all when stderr is not a terminal (logs and pipes get only the messages)."""
    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as progress:
        bar = progress.add_task(description, total=None)

        def show(done: int, total: int, what: str) -> None:
            progress.update(bar, completed=done, total=total,
                            description=f"{description}: {what}" if what else description)

        yield TaskState(show)
