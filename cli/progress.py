"""A rich progress bar on stderr driven by a ``TaskState``, for commands that run long work."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from suite.tasks import Progress as TaskProgress
from suite.tasks import TaskState


@contextmanager
def progress_bar(description: str) -> Iterator[TaskState]:
    """A ``TaskState`` whose progress reports move a bar; the bar disappears when the work ends and is
    not drawn at all when stderr is not a terminal (logs and pipes get only the messages)."""
    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=not console.is_terminal) as progress:
        bar = progress.add_task(description, total=1.0)

        def show(report: TaskProgress) -> None:
            progress.update(bar, completed=report.fraction,
                            description=f"{description}: {report.message}" if report.message else description)

        yield TaskState(show)
