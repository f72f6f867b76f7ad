"""The generic suite table (TSV, CSV or XLSX) that linguists keep in a spreadsheet."""
from __future__ import annotations

from pathlib import Path

from suite.importers.item_spec import ItemSpec
from suite.importers.result import Problems
from suite.importers.tables import read_table

REQUIRED_COLUMNS = ("id", "category", "phenomenon", "source", "positive_regex")
OPTIONAL_COLUMNS = ("negative_regex", "reference", "good_translations", "bad_translations", "comment")
SEPARATOR = " ||| "
"""Between several references or known translations in one cell (the Moses/WMT convention)."""


def parse_suite_table(path: Path, problems: Problems) -> list[ItemSpec]:
    items: list[ItemSpec] = []
    for row in read_table(path, problems, REQUIRED_COLUMNS, OPTIONAL_COLUMNS):
        empty = [column for column in ("id", "category", "phenomenon", "source") if not row[column].strip()]
        if empty:
            problems.error(row.line, f"empty {', '.join(empty)}")
            continue
        items.append(ItemSpec(
            line=row.line,
            external_id=row["id"].strip(),
            category=row["category"].strip(),
            phenomenon=row["phenomenon"].strip(),
            source=row["source"],
            positive=[row["positive_regex"]] if row["positive_regex"].strip() else [],
            negative=[row["negative_regex"]] if row["negative_regex"].strip() else [],
            references=_split(row["reference"]),
            good=_split(row["good_translations"]),
            bad=_split(row["bad_translations"]),
            comment=row["comment"].strip() or None,
        ))
    return items


def _split(cell: str) -> list[str]:
    return [part.strip() for part in cell.split(SEPARATOR) if part.strip()]
