"""Which importer a file is for, from its suffix and header: a file dropped on the window needs no menu.

Returns None when the file does not say, so the front-end asks rather than guesses wrong.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Literal

from suite.importers.table_files import normalise_column

ImportKind = Literal["suite", "outputs", "labels"]
IMPORT_KINDS: tuple[ImportKind, ...] = ("suite", "outputs", "labels")

_HEADERS: tuple[tuple[ImportKind, frozenset[str]], ...] = (
    ("suite", frozenset({"id", "category", "phenomenon", "source"})),
    ("labels", frozenset({"item_id", "system", "label", "reviewer"})),
    ("outputs", frozenset({"item_id", "system", "output"})),
)


def import_kind(path: Path) -> ImportKind | None:
    suffix = path.suffix.lower()
    if suffix == ".json":
        return "suite"  # the DFKI format; outputs and labels are tables
    if suffix not in (".tsv", ".csv", ".txt"):
        return None
    try:
        with path.open(encoding="utf-8-sig", newline="") as file:
            first = file.readline()
    except (OSError, UnicodeDecodeError):
        return None
    delimiter = "," if suffix == ".csv" else "\t"
    header = {normalise_column(cell) for row in csv.reader([first], delimiter=delimiter) for cell in row}
    return next((kind for kind, needed in _HEADERS if needed <= header), None)
