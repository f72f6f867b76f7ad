"""Reading segment-level human scores and WMT's pairwise significance files (``tsqe import human-scores
--segments FILE --significance FILE``).

- Segment scores: WMT's ``ad-seg-scores-*.csv`` (space-separated ``SYS SID RAW.SCR Z.SCR N`` with that header;
  SID is the 1-based line of the test set, the item id ``tsqe import wmt`` gives) or a plain table (TSV, CSV or
  XLSX) with the columns ``system``, ``item_id``, ``score``. The z-score, or the table's score, is what every
  computation uses.
- Significance: WMT's ``ad-DA-diff-wilcoxon-rs-*.csv``, a matrix whose header names the systems and whose row of
  system A holds, per column B, A's z-score minus B's with ``*``/``**``/``***`` when the one-sided Wilcoxon
  rank-sum test finds A better at p < 0.05/0.01/0.001, and ``-`` on the diagonal.

Only reading and checking happens here; :mod:`suite.importers.human_scores` matches the systems to the suite's
and writes everything of one import in one transaction. System names are kept as the file spells them.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from suite.importers.result import Problems
from suite.importers.table_files import iter_table, read_lines

WMT_SEGMENT_HEADER = ("SYS", "SID", "RAW.SCR", "Z.SCR", "N")
TABLE_COLUMNS = ("system", "item_id", "score")
STARS = {1: 0.05, 2: 0.01, 3: 0.001}
"""WMT's significance marks: the number of stars -> the threshold the p-value is below."""


@dataclass(frozen=True, slots=True)
class SegmentScore:
    system: str
    item_id: str
    score: float
    raw: float | None
    judgements: int | None
    line: int


@dataclass(frozen=True)
class SignificanceCell:
    system: str
    other: str
    difference: float
    p_below: float | None
    line: int


def read_score_lines(path: Path, problems: Problems) -> list[str]:
    """The file's lines (``read_lines``: NFC, each within the field limit), or none when it reported a problem: a
    line over the limit is the file's one error, not also the value of the next messages, 131,072 characters
    long."""
    errors = problems.error_count
    lines = read_lines(path, problems)
    return [] if lines is None or problems.error_count > errors else lines


def numbers_campaign_segments(path: Path) -> bool:
    """Whether the file is in WMT's ``SYS SID`` layout, whose SIDs number the segments as WMT's annotation campaign
    served them, not as the test set's lines: they cannot be aligned with the items (newstest2021 de-en, read as
    lines: sentence chrF against the reference correlates with the scores at Pearson 0.014, about 0 at every
    offset, where aligned MQM data give 0.158), so they serve system means and WMT's tests only."""
    return path.suffix.lower() != ".xlsx" and tuple(_first_line(path).split()) == WMT_SEGMENT_HEADER


def iter_segment_scores(path: Path, problems: Problems) -> Iterator[SegmentScore]:
    """Every segment score of the file (WMT's layout or a plain table), one at a time: a table of ten million
    scores is read row by row (516 MB for 26 MB of rows when they were a list). Duplicates and a file without
    scores are found where the scores are written (``human_scores.write_segment_scores``). WMT's layout is
    space-separated text of at most ``MAX_WHOLE_FILE_BYTES``, checked and split as one text."""
    if path.suffix.lower() != ".xlsx" and tuple(_first_line(path).split()) == WMT_SEGMENT_HEADER:
        lines = read_score_lines(path, problems)
        if not problems.error_count:
            yield from _wmt_segment_scores(lines, problems)
        return
    yield from _table_segment_scores(path, problems)


def _first_line(path: Path) -> str:
    """The file's first line that is not blank, to tell WMT's layout from a table (whose reader checks the file;
    a line that cannot be read here is left to it)."""
    try:
        with path.open("rb") as file:
            for raw in file:
                text = raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="replace")
                if text.strip():
                    return text
    except OSError:
        pass
    return ""


def _wmt_segment_scores(lines: list[str], problems: Problems) -> Iterator[SegmentScore]:
    header_seen = False
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            continue
        if not header_seen:
            header_seen = True
            continue
        if len(fields) != len(WMT_SEGMENT_HEADER):
            problems.error(number, f"expected five fields ({' '.join(WMT_SEGMENT_HEADER)}), found {len(fields)}")
            continue
        system, segment, raw, z, judgements = fields
        values = (_number(raw, "RAW.SCR", number, problems), _number(z, "Z.SCR", number, problems))
        count = _whole(judgements, "N", number, problems)
        if not segment.isdigit() or int(segment) < 1:
            problems.error(number, f"SID {segment!r} is not a segment number (1, 2, ...)")
            continue
        if values[0] is None or values[1] is None or count is None:
            continue
        yield SegmentScore(system, str(int(segment)), values[1], values[0], count, number)


def _table_segment_scores(path: Path, problems: Problems) -> Iterator[SegmentScore]:
    """The table's scores, read row by row."""
    for row in iter_table(path, problems, TABLE_COLUMNS):
        system, item_id = row["system"].strip(), row["item_id"].strip()
        if not system or not item_id:
            problems.error(row.line, "empty system" if not system else "empty item_id")
            continue
        value = _number(row["score"].strip(), "score", row.line, problems)
        if value is not None:
            yield SegmentScore(system, item_id, value, None, None, row.line)


def read_significance(path: Path, problems: Problems) -> list[SignificanceCell]:
    """Every off-diagonal cell of WMT's significance matrix; the whole file is checked."""
    lines = [(number, line) for number, line in enumerate(read_score_lines(path, problems), start=1) if line.strip()]
    if not lines:
        return []
    header_line, header = lines[0][0], lines[0][1].split()
    if len(set(header)) != len(header):
        problems.error(header_line, "a system is named twice in the header")
        return []
    cells: list[SignificanceCell] = []
    rows_seen: dict[str, int] = {}
    for number, line in lines[1:]:
        fields = line.split()
        name, values = fields[0], fields[1:]
        if name not in header:
            problems.error(number, f"row {name!r} is not a system of the header ({' '.join(header)})")
            continue
        if name in rows_seen:
            problems.error(number, f"system {name!r} already has a row at line {rows_seen[name]}")
            continue
        rows_seen[name] = number
        if len(values) != len(header):
            problems.error(number, f"expected {len(header)} cells after the system name, found {len(values)}")
            continue
        for other, cell in zip(header, values):
            if other == name:
                if cell != "-":
                    problems.error(number, f"the cell of {name!r} against itself should be '-', not {cell!r}")
                continue
            parsed = _significance_cell(cell, number, problems)
            if parsed is not None:
                cells.append(SignificanceCell(name, other, parsed[0], parsed[1], number))
    missing = [name for name in header if name not in rows_seen]
    if missing and not problems.errors:
        problems.error(None, f"no row for system(s) {', '.join(missing)}")
    return cells


def _significance_cell(cell: str, line: int, problems: Problems) -> tuple[float, float | None] | None:
    stars = len(cell) - len(cell.rstrip("*"))
    value = _number(cell[:len(cell) - stars], "the difference", line, problems, shown=cell)
    if value is None:
        return None
    if stars > 3:
        problems.error(line, f"{cell!r} has {stars} stars; WMT marks at most three (p < 0.001)")
        return None
    return value, STARS.get(stars)


def _number(text: str, what: str, line: int, problems: Problems, *, shown: str | None = None) -> float | None:
    try:
        value = float(text)
    except ValueError:
        problems.error(line, f"{what} {shown or text!r} is not a number")
        return None
    if not math.isfinite(value):
        problems.error(line, f"{what} {shown or text!r} is not a finite number")
        return None
    return value


def _whole(text: str, what: str, line: int, problems: Problems) -> int | None:
    if not text.isdigit():
        problems.error(line, f"{what} {text!r} is not a whole number of judgements")
        return None
    return int(text)
