"""How large an input file and its parts may be; every importer checks them before anything is written.

Without them, a 426 KB workbook whose one 50 MB shared string filled 20,000 cells wrote a 22.9 GB write-ahead log
in five minutes, a 205 KB workbook stored a 200 MB source, and 2,000,000 identical rows printed 2,000,000 error
lines. The limits are far above anything a test suite or a WMT test set holds (the DFKI suite: 2,767 items, its
longest field 1,022 characters) and keep an import's memory bounded: tables are read row by row, and only files
read whole (JSON suites, plain-text outputs) are bounded by size.
"""
from __future__ import annotations

MAX_FIELD_CHARS = 131_072
"""Characters in one field (a cell): a sentence, a pattern, a list of known translations."""
MAX_COLUMNS = 64
"""Fields in one row (the widest table tsqe reads has 12 columns)."""
MAX_LINE_BYTES = 4 * MAX_FIELD_CHARS * MAX_COLUMNS
"""Bytes in one physical line of a text table (32 MiB: a full row at the field limit in four-byte characters)."""
MAX_TABLE_ROWS = 10_000_000
"""Rows of a table of outputs, reviews or scores (Excel's own limit is 1,048,576)."""
MAX_SUITE_ITEMS = 200_000
"""Items of one suite file (a suite's items are held in memory while it is checked)."""
MAX_WHOLE_FILE_BYTES = 256 * 1024 * 1024
"""A file read whole: a JSON suite, a plain-text or WMT file of outputs, human scores."""
MAX_TABLE_FILE_BYTES = 8 * 1024 ** 3
"""A TSV or CSV table, which is read row by row (2,000,000 outputs take about 250 MB)."""
MAX_WORKBOOK_BYTES = 2 * 1024 ** 3
"""What a workbook's parts unpack to, all together (a zip bomb unpacks a few kilobytes to gigabytes)."""
MAX_SHARED_STRINGS_BYTES = 128 * 1024 * 1024
"""What a workbook's table of shared strings unpacks to: openpyxl holds all of them in memory."""
SHOWN_PROBLEMS = 20
"""Problems listed of one file; the rest are counted ("… and 1,999,980 more")."""


def long_field(text: str, what: str) -> str | None:
    """What is wrong with ``text`` when it is longer than a field may be, None when it is not: for the formats
    whose values no cell bounds (a JSON string, an XML segment)."""
    if len(text) <= MAX_FIELD_CHARS:
        return None
    return f"{what} has {len(text):,} characters; a field holds at most {MAX_FIELD_CHARS:,}"


def size_text(size: int) -> str:
    """Bytes as a person reads them: "256 MiB"."""
    for unit, scale in (("GiB", 1024 ** 3), ("MiB", 1024 ** 2), ("KiB", 1024)):
        if size >= scale:
            return f"{size / scale:,.0f} {unit}" if size % scale == 0 else f"{size / scale:,.1f} {unit}"
    return f"{size:,} bytes"
