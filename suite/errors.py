"""Errors that the front-ends show to users as they are, without a traceback."""
from __future__ import annotations

import errno
from dataclasses import dataclass

from store.errors import DatabaseBusyError, TsqeError

__all__ = ["DatabaseBusyError", "InputFileError", "Problem", "SuiteChoiceError", "TsqeError", "as_user_error"]


class SuiteChoiceError(TsqeError):
    """The database holds no suite or several, and none was named: a front-end adds how to name one."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong in an input file, located as ``FILE:LINE``, or as ``FILE`` (``line`` None) when it is
    the whole file that is wrong (empty, not a workbook, JSON of another shape)."""

    file: str
    line: int | None
    message: str

    @property
    def location(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


class InputFileError(TsqeError):
    """An input file was rejected as a whole; nothing was written. ``problems`` are the first ones found and
    ``more`` counts those left out."""

    def __init__(self, problems: list[Problem], more: int = 0) -> None:
        self.problems = problems
        self.more = more
        super().__init__("\n".join([str(p) for p in problems] + ([f"… and {more:,} more"] if more else [])))


class EditConflict(TsqeError):
    """A save was refused because someone else changed or removed the row since it was read: saving would
    silently undo their edit. The message names who, when, and what the row holds now."""


class PatternError(TsqeError):
    """A rule's pattern was refused because it does not compile; ``position`` (None when unknown) is where the
    editor underlines it and ``reason`` what it shows."""

    def __init__(self, position: int | None, reason: str, message: str) -> None:
        self.position = position
        self.reason = reason
        super().__init__(message)


def file_error(error: OSError, path: object = None) -> TsqeError:
    """An operating system's refusal to read or write a file, naming the file (``path`` when the error does not)."""
    name = error.filename if error.filename is not None else path
    what = "the disk is full (No space left on device)" if error.errno == errno.ENOSPC else \
        error.strerror or str(error)
    return TsqeError(f"{name}: {what}" if name is not None else what)


def as_user_error(error: BaseException, database: str | None = None) -> TsqeError | None:
    """The one sentence a front-end shows for ``error``: itself for a ``TsqeError``; for a database's fault, a
    file the system refused, exhausted memory or input nested too deeply, a ``TsqeError`` saying so; None for
    anything else, a bug, whose traceback someone must see."""
    if isinstance(error, TsqeError):
        return error
    from store.faults import database_fault  # here: SQLAlchemy is not loaded merely to start (issue 16)

    fault = database_fault(error, database)
    if fault is not None:
        return fault
    if isinstance(error, OSError):
        return file_error(error)
    if isinstance(error, MemoryError):
        return TsqeError("tsqe ran out of memory: nothing was changed; close other programs or split the input")
    if isinstance(error, RecursionError):
        return TsqeError("the input is nested too deeply to be read: nothing was changed")
    return None
