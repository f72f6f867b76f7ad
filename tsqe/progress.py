"""How a caller of the API listens to long work and stops it: the ``TaskState`` of ``suite.tasks``."""
from __future__ import annotations

from suite.tasks import ProgressCallback, TaskState

ProgressArgument = ProgressCallback | TaskState | None
"""A callback given each ``Progress`` report, or a ``TaskState`` (its ``cancel()`` stops the work), or None."""


def task_of(progress: ProgressArgument) -> TaskState | None:
    """The ``TaskState`` the core's work reports to: the caller's own, or one that calls the callback."""
    if progress is None or isinstance(progress, TaskState):
        return progress
    return TaskState(progress)
