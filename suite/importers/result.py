"""What an import did, and the collector that turns every problem in a file into one rejection."""
from __future__ import annotations

from dataclasses import dataclass, field

from suite.changes import NOTHING, Changes
from suite.engine.label_run import LabelRun
from suite.errors import InputFileError, Problem


@dataclass
class ImportResult:
    """Counts of what was written (keys depend on the importer) and non-fatal ``FILE:LINE`` warnings."""

    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)
    changes: Changes = NOTHING
    """What the import changed, for the window's screens to refresh from."""
    summary: tuple[str, ...] = ()
    """What it did, a line per fact, in the words both front-ends show (the CLI prints the lines, the window's
    status bar joins them)."""
    labelled: LabelRun | None = None
    """What labelling the new outputs in the import's own transaction changed, when it was asked for."""


class Problems:
    """Collects every error and warning of one input file, so the user sees them all at once.

    Importers validate the whole file before writing anything and call ``raise_if_any`` in between:
    a file with any error is rejected as a whole and the database stays as it was.
    """

    def __init__(self, file: str) -> None:
        self.file = file
        self.errors: list[Problem] = []
        self.warnings: list[Problem] = []

    def error(self, line: int | None, message: str, *, file: str | None = None) -> None:
        self.errors.append(Problem(file or self.file, line, message))

    def warn(self, line: int | None, message: str, *, file: str | None = None) -> None:
        self.warnings.append(Problem(file or self.file, line, message))

    def raise_if_any(self) -> None:
        if self.errors:
            raise InputFileError(self.errors)
