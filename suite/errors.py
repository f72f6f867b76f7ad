"""Errors that the front-ends show to users as they are, without a traceback."""
from __future__ import annotations

from dataclasses import dataclass

from store.errors import DatabaseBusyError, TsqeError

__all__ = ["DatabaseBusyError", "InputFileError", "Problem", "SuiteChoiceError", "TsqeError"]


class SuiteChoiceError(TsqeError):
    """The database holds no suite or several, and none was named: a front-end adds how to name one."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong in an input file, located as ``FILE:LINE``."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class InputFileError(TsqeError):
    """An input file was rejected as a whole; nothing was written."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
