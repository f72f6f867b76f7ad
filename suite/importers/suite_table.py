"""The generic suite table (TSV, CSV or XLSX) that linguists keep in a spreadsheet.

The first row names the columns (in any order; ``Positive Regex`` = ``positive_regex``):

- required: ``id``, ``category``, ``phenomenon``, ``source``;
- optional: ``positive_regex``, ``negative_regex``, ``flags``, ``reference``, ``reference_kinds``,
  ``good_translations``, ``bad_translations``, ``comment``. A suite without rules (a challenge set kept as a
  plain table, items with known translations only) needs no empty rule columns.

Several entries in one cell are separated by `` ||| `` (space, three bars, space; the Moses/WMT
convention), in every list column: rules, references, known translations and their flags and kinds.

- ``positive_regex`` and ``negative_regex`` hold the item's rules in order. A pattern is taken exactly as
  written (it is not stripped: a leading space may be part of it); an empty entry between separators is an
  error. A pattern cannot itself contain `` ||| ``.
- ``flags`` holds one entry per rule, the positive rules first, then the negative ones, also separated by
  ``|||``: ``i`` makes that rule ignore case, an empty entry leaves it as is. A blank cell means no flags at
  all. With the rules ``a ||| b`` and ``c``, the cell ``i |||  ||| i`` makes ``a`` and ``c`` ignore case.
- ``reference_kinds`` holds one kind per reference in the same way (e.g. ``standard ||| paraphrase``); an
  empty entry or a blank cell means ``standard``.
- ``reference_sets`` names each reference's set in the same way (e.g. ``wmt ||| ar``); an empty entry or a
  blank cell means the set named after the reference's kind.
- references, known translations, ids, categories, phenomena and comments are stripped of surrounding
  whitespace; the source is kept as written.

A table does not name its languages: give them when importing or set them later (``suite.editing.suite_edit``).
``suite.exporters.suite_file`` writes this layout, so a suite survives a round trip through a spreadsheet.
"""
from __future__ import annotations

from pathlib import Path

from store.domain import Polarity
from store.models import STANDARD_REFERENCE
from suite.engine.rules import RuleSpec
from suite.importers.item_spec import ItemSpec, ReferenceText
from suite.importers.limits import MAX_SUITE_ITEMS
from suite.importers.lookups import StrippedIds
from suite.importers.result import Problems
from suite.importers.table_files import TableRow, iter_table
from suite.references import SET_NAME

REQUIRED_COLUMNS = ("id", "category", "phenomenon", "source")
OPTIONAL_COLUMNS = ("positive_regex", "negative_regex", "flags", "reference", "reference_kinds", "reference_sets",
                    "good_translations", "bad_translations", "comment")
COLUMNS = (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS)
"""Every column, in the order an export writes them."""
SEPARATOR = " ||| "
"""Between several entries in one cell (the Moses/WMT convention)."""
IGNORE_CASE_FLAG = "i"


def parse_suite_table(path: Path, problems: Problems) -> list[ItemSpec]:
    items: list[ItemSpec] = []
    stripped = StrippedIds(problems)
    for row in iter_table(path, problems, REQUIRED_COLUMNS, OPTIONAL_COLUMNS, max_rows=MAX_SUITE_ITEMS):
        errors_before = problems.error_count
        empty = [column for column in ("id", "category", "phenomenon", "source") if not row[column].strip()]
        if empty:
            problems.error(row.line, f"empty {', '.join(empty)}")
        positive = _patterns(row, "positive_regex", problems)
        negative = _patterns(row, "negative_regex", problems)
        flags = _aligned(row, "flags", len(positive) + len(negative), "rules", problems)
        unknown_flags = sorted({flag for flag in flags if flag not in ("", IGNORE_CASE_FLAG)})
        if unknown_flags:
            problems.error(row.line, f"unknown flag(s) {', '.join(map(repr, unknown_flags))}: a rule's flag is "
                                     f"{IGNORE_CASE_FLAG!r} (ignore case) or empty")
        references = [part.strip() for part in row["reference"].split(SEPARATOR)] if row["reference"].strip() else []
        kinds = _aligned(row, "reference_kinds", len(references), "references", problems)
        sets = _aligned(row, "reference_sets", len(references), "references", problems)
        for name in sets:
            if name and not SET_NAME.match(name):
                problems.error(row.line, f"{name!r} cannot name a reference set: use letters, digits, '.', '_' "
                                         "and '-'")
        if "" in references:
            problems.error(row.line, "an empty reference between ' ||| ' separators")
        if problems.error_count > errors_before:
            continue
        ignore_case = [flag == IGNORE_CASE_FLAG for flag in flags] or [False] * (len(positive) + len(negative))
        items.append(ItemSpec(
            line=row.line,
            external_id=stripped.strip(row["id"], row.line),
            category=row["category"].strip(),
            phenomenon=row["phenomenon"].strip(),
            source=row["source"],
            rules=[*(RuleSpec(Polarity.POSITIVE, p, i)
                     for p, i in zip(positive, ignore_case[:len(positive)], strict=True)),
                   *(RuleSpec(Polarity.NEGATIVE, p, i)
                     for p, i in zip(negative, ignore_case[len(positive):], strict=True))],
            references=[ReferenceText(text, kind or STANDARD_REFERENCE, set_name or None)
                        for text, kind, set_name in zip(references, kinds or [""] * len(references),
                                                        sets or [""] * len(references), strict=True)],
            good=_split(row["good_translations"]),
            bad=_split(row["bad_translations"]),
            comment=row["comment"].strip() or None,
        ))
    stripped.report()
    return items


def _patterns(row: TableRow, column: str, problems: Problems) -> list[str]:
    cell = row[column]
    if not cell.strip():
        return []
    patterns = cell.split(SEPARATOR)
    if any(not pattern.strip() for pattern in patterns):
        problems.error(row.line, f"an empty pattern between ' ||| ' separators in {column}")
    return patterns


def _aligned(row: TableRow, column: str, expected: int, what: str, problems: Problems) -> list[str]:
    """The stripped entries of a cell that annotates each rule or reference; [] for a blank cell.

    Entries are split on the bare ``|||`` so that a spreadsheet trimming the cell's trailing space (after
    an empty last entry) does not change their number.
    """
    cell = row[column]
    if not cell.strip():
        return []
    entries = [entry.strip() for entry in cell.split(SEPARATOR.strip())]
    if len(entries) != expected:
        problems.error(row.line, f"{column} has {len(entries)} entries but the item has {expected} {what}: "
                                 f"give one per {what[:-1]}, separated by ' ||| '")
    return entries


def _split(cell: str) -> list[str]:
    return [part.strip() for part in cell.split(SEPARATOR) if part.strip()]
