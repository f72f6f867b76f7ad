"""What an import did, and the collector that turns every problem in a file into one rejection."""
from __future__ import annotations

from dataclasses import dataclass, field

from suite.changes import NOTHING, Changes
from suite.engine.label_run import LabelRun
from suite.errors import InputFileError, Problem
from suite.importers.limits import SHOWN_PROBLEMS


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
    a file with any error is rejected as a whole and the database stays as it was. The first
    ``SHOWN_PROBLEMS`` of each kind are kept and the rest counted (``error_count``): a file of two million
    broken rows must not be two million messages in memory and on the screen.
    """

    def __init__(self, file: str) -> None:
        self.file = file
        self.errors: list[Problem] = []
        self.warnings: list[Problem] = []
        self._counts = [0, 0]
        """Errors and warnings reported, shown or not: shared with every ``for_file`` view."""

    @property
    def error_count(self) -> int:
        return self._counts[0]

    @property
    def warning_count(self) -> int:
        return self._counts[1]

    def error(self, line: int | None, message: str, *, file: str | None = None) -> None:
        self._counts[0] += 1
        if len(self.errors) < SHOWN_PROBLEMS:
            self.errors.append(Problem(file or self.file, line, message))

    def warn(self, line: int | None, message: str, *, file: str | None = None) -> None:
        self._counts[1] += 1
        if len(self.warnings) < SHOWN_PROBLEMS:
            self.warnings.append(Problem(file or self.file, line, message))
        elif self._counts[1] == SHOWN_PROBLEMS + 1:
            self.warnings.append(Problem(file or self.file, None, "… and more warnings like these"))

    def for_file(self, file: str) -> Problems:
        """A view that files its problems under ``file`` (one of several files of an import) into these lists
        and counts."""
        view = Problems(file)
        view.errors, view.warnings, view._counts = self.errors, self.warnings, self._counts
        return view

    def raise_if_any(self) -> None:
        if self.error_count:
            raise InputFileError(self.errors, self.error_count - len(self.errors))
