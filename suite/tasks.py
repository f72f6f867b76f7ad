"""Progress reporting and cooperative cancellation for long work (after Orange3's ``TaskState``).

Long operations take an optional ``TaskState``: the CLI turns its progress into a progress bar, the GUI
into a signal, and either can ask the work to stop between two steps.
"""
from __future__ import annotations

from collections.abc import Callable

ProgressCallback = Callable[[int, int, str], None]


class Cancelled(Exception):
    """Raised inside the work when its ``TaskState`` was cancelled; the caller rolls back."""


class TaskState:
    def __init__(self, on_progress: ProgressCallback | None = None) -> None:
        self._on_progress = on_progress
        self._cancelled = False

    def progress(self, done: int, total: int, what: str = "") -> None:
        """Report progress and stop here if cancellation was requested."""
        self.raise_if_cancelled()
        if self._on_progress is not None:
            self._on_progress(done, total, what)

    def cancel(self) -> None:
        self._cancelled = True

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def raise_if_cancelled(self) -> None:
        if self._cancelled:
            raise Cancelled()


def progress_of(task: TaskState | None) -> TaskState:
    """Let work report unconditionally, whether or not the caller wants to listen."""
    return task if task is not None else TaskState()
