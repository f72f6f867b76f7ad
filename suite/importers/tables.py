"""Reading a tabular input file (TSV, CSV or XLSX) into rows that remember their line in the file."""
from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from store.models import nfc
from suite.importers.result import Problems
from suite.safe_export import from_spreadsheet

TABLE_SUFFIXES = (".tsv", ".csv", ".xlsx")


@dataclass(frozen=True)
class TableRow:
    line: int
    values: dict[str, str]

    def __getitem__(self, column: str) -> str:
        return self.values.get(column, "")


def normalise_column(name: str) -> str:
    """Headers are matched leniently ("Item ID" = "item_id") because people write them by hand."""
    return "_".join(name.strip().lower().split())


def read_text(path: Path, problems: Problems) -> str | None:
    """The file as text (UTF-8, an optional BOM dropped, in Unicode NFC as everything is stored), or None after
    reporting where decoding failed.

    NUL characters are refused as well: valid UTF-8 may hold them (a UTF-16 file of ASCII text decodes
    without error), but no sentence does, and PostgreSQL cannot store them.
    """
    try:
        data = path.read_bytes()
    except OSError as error:
        problems.error(None, f"cannot read the file: {error.strerror or error}")
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        problems.error(data.count(b"\n", 0, error.start) + 1,
                       f"not valid UTF-8 (byte {data[error.start]:#04x}); save the file as UTF-8")
        return None
    nul = text.find("\x00")
    if nul >= 0:
        problems.error(text.count("\n", 0, nul) + 1, "holds a NUL character, as a binary or UTF-16 file does; "
                                                     "save the file as UTF-8 text")
        return None
    return nfc(text)


def split_lines(text: str) -> list[str]:
    """Lines split on newlines only: ``str.splitlines`` also splits on form feeds, U+2028 and other
    characters that occur inside real MT outputs, which would misalign line-aligned files."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def read_table(path: Path, problems: Problems, required: Sequence[str],
               optional: Sequence[str] = ()) -> list[TableRow]:
    """Rows of a table whose first row is a header naming ``required`` and maybe ``optional`` columns.

    Header problems are reported at line 1 and give no rows (the rows cannot be read without it); rows
    with the wrong number of fields are reported and left out. Blank rows are skipped.
    """
    is_xlsx = path.suffix.lower() == ".xlsx"
    errors_before = len(problems.errors)
    records = _xlsx_records(path, problems) if is_xlsx else _delimited_records(path, problems)
    header: list[str] | None = None
    rows: list[TableRow] = []
    for line, fields in records:
        if not any(field.strip() for field in fields):
            continue
        if header is None:
            header = [normalise_column(field) for field in fields]
            while header and not header[-1]:
                header.pop()
            if not _header_ok(header, problems, line, required, optional):
                return []
            continue
        # Spreadsheets leave trailing empty cells out; in a text table a missing field means a broken row.
        too_many = any(field.strip() for field in fields[len(header):])
        if too_many or (len(fields) < len(header) and not is_xlsx):
            problems.error(line, f"expected {len(header)} fields ({', '.join(header)}), found {len(fields)}")
            continue
        rows.append(TableRow(line, dict(zip(header, fields, strict=False))))
    if header is None and len(problems.errors) == errors_before:
        problems.error(None, f"empty file: expected a header row with the columns {', '.join(required)}")
    return rows


def _header_ok(header: list[str], problems: Problems, line: int, required: Sequence[str],
               optional: Sequence[str]) -> bool:
    known = (*required, *optional)
    ok = True
    unknown = [name for name in header if name not in known]
    if unknown:
        problems.error(line, f"unknown column(s) {', '.join(map(repr, unknown))}; "
                             f"expected {', '.join(required)}" + (f" and optionally {', '.join(optional)}"
                                                                   if optional else ""))
        ok = False
    missing = [name for name in required if name not in header]
    if missing:
        problems.error(line, f"missing column(s) {', '.join(missing)} in the header")
        ok = False
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        problems.error(line, f"column(s) {', '.join(repeated)} appear more than once in the header")
        ok = False
    return ok


def _delimited_records(path: Path, problems: Problems) -> Iterator[tuple[int, list[str]]]:
    """CSV-quoted records (``strict``, so a stray quote is reported instead of silently eaten)."""
    text = read_text(path, problems)
    if text is None:
        return
    dialect = "excel" if path.suffix.lower() == ".csv" else "excel-tab"
    # A file saved with Windows line ends has them inside quoted multi-line cells too: read it as if saved
    # with newlines, so the same table gives the same texts wherever it was saved.
    text = text.replace("\r\n", "\n")
    reader = csv.reader(io.StringIO(text, newline=""), dialect=dialect, strict=True)
    start = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            if "field larger than field limit" in str(error):
                problems.error(start, f"a field is longer than {csv.field_size_limit():,} characters; this is not "
                                      f"a table of sentences")
                return
            unclosed = " (it is never closed)" if "end of data" in str(error) else ""
            problems.error(start, f"malformed quoting{unclosed}: a field that starts with a double quote must "
                                  f"end with one, and quotes inside it must be doubled")
            return
        yield start, [from_spreadsheet(field) for field in fields]
        start = reader.line_num + 1


def _xlsx_records(path: Path, problems: Problems) -> Iterator[tuple[int, list[str]]]:
    """Rows of the first worksheet; the line of a row is its spreadsheet row number."""
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError, ValueError) as error:
        problems.error(None, f"not an XLSX workbook ({error}); save the table as .xlsx, or as .tsv or .csv")
        return
    try:
        if not workbook.worksheets:
            problems.error(None, "the workbook has no worksheet")
            return
        sheet = workbook.worksheets[0]
        for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
            yield number, [_cell_text(value) for value in values]
    finally:
        workbook.close()


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return nfc(str(value))
