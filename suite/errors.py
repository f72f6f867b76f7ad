"""Errors that the front-ends show to users as they are, without a traceback."""
from __future__ import annotations

from dataclasses import dataclass

from store.errors import DatabaseBusyError, TsqeError

__all__ = ["DatabaseBusyError", "InputFileError", "Problem", "SuiteChoiceError", "TsqeError"]


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
    """An input file was rejected as a whole; nothing was written."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


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
