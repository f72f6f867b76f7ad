"""Errors that the front-ends show to users as they are, without a traceback."""
from __future__ import annotations

from dataclasses import dataclass


class TsqeError(Exception):
    """A problem the user can fix (bad input, unknown name); the message is meant for them."""


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
