"""Progress reporting and cooperative cancellation for long work (after Orange3's ``TaskState``).

Long operations take an optional ``TaskState``: the CLI turns its progress into a progress bar, the GUI
into a signal or a polled ``fraction``, and either can ask the work to stop between two steps (from any
thread). Work made of steps hands each step a ``child`` covering its share of the range, so the overall
fraction only moves forward however the steps count their own progress.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from suite.changes import Changes


@dataclass(frozen=True)
class Progress:
    """One progress report as the listener sees it."""

    fraction: float
    """Of the whole work (the root ``TaskState``), 0..1."""
    message: str
    """What is being done, e.g. "labelling item 1,204 of 2,767"."""
    done: int
    total: int
    """The reporting step's own count, for a listener that shows "N of M"."""


ProgressCallback = Callable[[Progress], None]


class Cancelled(Exception):
    """Raised inside the work when its ``TaskState`` was cancelled; the caller rolls back."""


class CancelledPartway(Cancelled):
    """Raised by work that writes in several transactions (labelling, chunk by chunk) when it was cancelled after
    some of them had committed: those stay, the message says what they hold and ``changes`` what they changed,
    for the screens to show."""

    def __init__(self, message: str, changes: Changes) -> None:
        super().__init__(message)
        self.changes = changes


class TaskState:
    def __init__(self, on_progress: ProgressCallback | None = None) -> None:
        self._on_progress = on_progress
        self._cancelled = False
        self._fraction = 0.0
        self._message = ""
        self._root = self
        self._start, self._end = 0.0, 1.0

    def progress(self, done: int, total: int, message: str = "") -> None:
        """Report that ``done`` of ``total`` steps are done (no total: nothing to do), then stop here if
        cancellation was requested."""
        self.raise_if_cancelled()
        share = min(max(done / total, 0.0), 1.0) if total > 0 else 1.0
        root = self._root
        root._fraction = self._start + (self._end - self._start) * share
        root._message = message
        if root._on_progress is not None:
            root._on_progress(Progress(root._fraction, message, done, total))

    def child(self, start: float, end: float) -> TaskState:
        """A ``TaskState`` for one step, whose 0..1 is this one's ``start``..``end`` (fractions of this
        one's range); it reports to this one's listener and shares its cancellation."""
        if not 0.0 <= start <= end <= 1.0:
            raise ValueError(f"a step's range must lie within 0..1, not {start}..{end}")
        child = TaskState()
        child._root = self._root
        width = self._end - self._start
        child._start, child._end = self._start + width * start, self._start + width * end
        return child

    @property
    def fraction(self) -> float:
        """The last reported fraction of the whole work, for a front-end that polls."""
        return self._root._fraction

    @property
    def message(self) -> str:
        """The last reported message of the whole work."""
        return self._root._message

    def cancel(self) -> None:
        self._root._cancelled = True

    @property
    def cancelled(self) -> bool:
        return self._root._cancelled

    def raise_if_cancelled(self) -> None:
        if self._root._cancelled:
            raise Cancelled()


def progress_of(task: TaskState | None) -> TaskState:
    """Let work report unconditionally, whether or not the caller wants to listen."""
    return task if task is not None else TaskState()
