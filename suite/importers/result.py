"""What an import did, and the collector that turns every problem in a file into one rejection."""
from __future__ import annotations

from dataclasses import dataclass, field

from suite.errors import InputFileError, Problem


@dataclass
class ImportResult:
    """Counts of what was written (keys depend on the importer) and non-fatal ``FILE:LINE`` warnings."""

    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)


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

    def for_file(self, file: str) -> Problems:
        """A view that files its problems under ``file`` (one of several files of an import) into these lists."""
        view = Problems(file)
        view.errors, view.warnings = self.errors, self.warnings
        return view

    def raise_if_any(self) -> None:
        if self.errors:
            raise InputFileError(self.errors)
