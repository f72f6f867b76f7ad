"""Reading a tabular input file (TSV, CSV or XLSX) into rows that remember their line in the file."""
from __future__ import annotations

import csv
import warnings
import zipfile
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, BinaryIO, NoReturn
from xml.etree import ElementTree

from store.models import nfc
from suite.importers.characters import unstorable
from suite.importers.limits import (
    MAX_COLUMNS,
    MAX_FIELD_CHARS,
    MAX_LINE_BYTES,
    MAX_SHARED_STRINGS_BYTES,
    MAX_TABLE_FILE_BYTES,
    MAX_TABLE_ROWS,
    MAX_WHOLE_FILE_BYTES,
    MAX_WORKBOOK_BYTES,
    size_text,
)
from suite.importers.result import Problems
from suite.safe_export import from_spreadsheet

TABLE_SUFFIXES = (".tsv", ".csv", ".xlsx")
BINARY_ADVICE = " (a binary or UTF-16 file read as UTF-8 does); save the file as UTF-8 text"


class TableRow:
    """One row of a table: its line and its fields, read by column name (a column the row leaves out, as a
    spreadsheet leaves out trailing empty cells, reads as ""). The header's column positions are shared by
    every row, so that a row of a two-million-row file costs no dictionary of its own."""

    __slots__ = ("_columns", "_fields", "line")

    def __init__(self, line: int, fields: list[str], columns: dict[str, int]) -> None:
        self.line = line
        self._fields = fields
        self._columns = columns

    def __getitem__(self, column: str) -> str:
        index = self._columns.get(column)
        return self._fields[index] if index is not None and index < len(self._fields) else ""

    @property
    def values(self) -> dict[str, str]:
        return {column: self[column] for column in self._columns}


def normalise_column(name: str) -> str:
    """Headers are matched leniently ("Item ID" = "item_id") because people write them by hand."""
    return "_".join(name.strip().lower().split())


def read_text(path: Path, problems: Problems, file: str | None = None) -> str | None:
    """The file as text (UTF-8, an optional BOM dropped, in Unicode NFC as everything is stored), or None after
    reporting, as ``file`` (default: the problems' file), why it cannot be read.

    NUL characters are refused as well (``suite.importers.characters``): valid UTF-8 may hold them (a UTF-16
    file of ASCII text decodes without error), but no sentence does, and PostgreSQL cannot store them. The file
    is read whole, so it is bounded by ``MAX_WHOLE_FILE_BYTES``.
    """
    try:
        size = path.stat().st_size
        if size > MAX_WHOLE_FILE_BYTES:
            problems.error(None, f"the file has {size_text(size)}; at most {size_text(MAX_WHOLE_FILE_BYTES)} are read "
                                 f"as one text", file=file)
            return None
        data = path.read_bytes()
    except OSError as error:
        problems.error(None, f"cannot read the file: {error.strerror or error}", file=file)
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        problems.error(data.count(b"\n", 0, error.start) + 1,
                       f"not valid UTF-8 (byte {data[error.start]:#04x}); save the file as UTF-8", file=file)
        return None
    bad = unstorable(text)
    if bad is not None:
        problems.error(bad.line, bad.message(BINARY_ADVICE), file=file)
        return None
    return nfc(text)


def read_lines(path: Path, problems: Problems, file: str | None = None) -> list[str] | None:
    """The lines of a plain-text file (``read_text``, split by ``split_lines``), or None after reporting, as
    ``file``, why it cannot be read (an empty file included). A line is one sentence, so it is held to the
    limit of a table's field: a line over it is reported (and the import refused), as a cell would be."""
    text = read_text(path, problems, file=file)
    if text is None:
        return None
    if not text.strip():
        problems.error(None, "the file is empty", file=file)
        return None
    lines = split_lines(text)
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_FIELD_CHARS:
            problems.error(number, f"the line is longer than {MAX_FIELD_CHARS:,} characters; a line holds one "
                                   f"sentence", file=file)
    return lines


def iter_lines(path: Path, problems: Problems, max_bytes: int) -> Iterator[tuple[int, str]]:
    """The lines of a UTF-8 text file (numbered from 1, without their line end), read one at a time and each
    checked as a table's lines are (UTF-8, no NUL, a bounded length, NFC); a file over ``max_bytes`` or a line
    that cannot be read is reported and ends the lines, so that the caller, having reported nothing itself, can
    tell a whole file from a refused one by ``problems``."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            problems.error(None, f"the file has {size_text(size)}; tsqe reads files of at most {size_text(max_bytes)}")
            return
        file = path.open("rb")
    except OSError as error:
        problems.error(None, f"cannot read the file: {error.strerror or error}")
        return
    with file:
        try:
            for number, line in enumerate(_Lines(file, problems), start=1):
                yield number, line.removesuffix("\n")
        except _Refused:
            return


def split_lines(text: str) -> list[str]:
    """Lines split on newlines only: ``str.splitlines`` also splits on form feeds, U+2028 and other
    characters that occur inside real MT outputs, which would misalign line-aligned files."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def read_table(path: Path, problems: Problems, required: Sequence[str], optional: Sequence[str] = (), *,
               max_rows: int | None = None) -> list[TableRow]:
    """Every row of ``iter_table``, as a list."""
    return list(iter_table(path, problems, required, optional, max_rows=max_rows))


def iter_table(path: Path, problems: Problems, required: Sequence[str], optional: Sequence[str] = (), *,
               max_rows: int | None = None) -> Iterator[TableRow]:
    """Rows of a table whose first row is a header naming ``required`` and maybe ``optional`` columns, read one
    at a time (a TSV or CSV line by line, a workbook in openpyxl's read-only mode), so that a file of millions of
    rows takes the memory of a few.

    Header problems are reported at line 1 and give no rows (the rows cannot be read without it); rows
    with the wrong number of fields are reported and left out. Blank rows are skipped. Every limit of
    ``suite.importers.limits`` is checked as the rows come: a field over ``MAX_FIELD_CHARS``, a row over
    ``MAX_COLUMNS`` fields, a table over ``max_rows`` rows (default ``MAX_TABLE_ROWS``; reading stops there).
    """
    max_rows = MAX_TABLE_ROWS if max_rows is None else max_rows
    is_xlsx = path.suffix.lower() == ".xlsx"
    errors_before = problems.error_count
    records = _xlsx_records(path, problems) if is_xlsx else _delimited_records(path, problems)
    header: list[str] | None = None
    columns: dict[str, int] = {}
    rows = 0
    for line, fields in records:
        if not any(field.strip() for field in fields):
            continue
        if header is None:
            header = [normalise_column(field) for field in fields]
            while header and not header[-1]:
                header.pop()
            if not _header_ok(header, problems, line, required, optional):
                return
            columns = {name: index for index, name in enumerate(header)}
            continue
        rows += 1
        if rows > max_rows:
            problems.error(line, f"the table goes on past {max_rows:,} rows, the most one file may hold; split it")
            return
        # Spreadsheets leave trailing empty cells out; in a text table a missing field means a broken row.
        too_many = any(field.strip() for field in fields[len(header):])
        if too_many or (len(fields) < len(header) and not is_xlsx):
            problems.error(line, f"expected {len(header)} fields ({', '.join(header)}), found {len(fields)}")
            continue
        yield TableRow(line, fields, columns)
    if header is None and problems.error_count == errors_before:
        problems.error(None, f"empty file: expected a header row with the columns {', '.join(required)}")


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
    """CSV-quoted records (``strict``, so a stray quote is reported instead of silently eaten), read line by line."""
    dialect = "excel" if path.suffix.lower() == ".csv" else "excel-tab"
    try:
        size = path.stat().st_size
        if size > MAX_TABLE_FILE_BYTES:
            problems.error(None, f"the file has {size_text(size)}; a table may have at most "
                                 f"{size_text(MAX_TABLE_FILE_BYTES)}")
            return
        file = path.open("rb")
    except OSError as error:
        problems.error(None, f"cannot read the file: {error.strerror or error}")
        return
    lines = _Lines(file, problems)
    reader = csv.reader(lines, dialect=dialect, strict=True)
    start = 1
    try:
        while True:
            try:
                fields = next(reader)
            except StopIteration:
                return
            except _Refused:
                return
            except csv.Error as error:
                if "field larger than field limit" in str(error):
                    problems.error(start, f"a field is longer than {MAX_FIELD_CHARS:,} characters; this is not a "
                                          f"table of sentences")
                    return
                unclosed = " (it is never closed)" if "end of data" in str(error) else ""
                problems.error(start, f"malformed quoting{unclosed}: a field that starts with a double quote must "
                                      f"end with one, and quotes inside it must be doubled")
                return
            if len(fields) > MAX_COLUMNS:
                problems.error(start, f"the row has {len(fields):,} fields; a table has at most {MAX_COLUMNS}")
            else:
                yield start, [from_spreadsheet(field) for field in fields]
            start = reader.line_num + 1
    finally:
        file.close()


class _Refused(Exception):
    """A line that cannot be read was reported; reading the table stops."""


class _Lines:
    """The lines of a UTF-8 file for ``csv.reader``: decoded one at a time, each checked (UTF-8, no NUL, at most
    ``MAX_LINE_BYTES``), the byte-order mark dropped, Windows line ends read as newlines (also inside quoted
    cells, so that the same table gives the same texts wherever it was saved), in Unicode NFC."""

    def __init__(self, file: BinaryIO, problems: Problems) -> None:
        self._file = file
        self._problems = problems
        self._number = 0

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        raw = self._file.readline(MAX_LINE_BYTES + 1)
        if not raw:
            raise StopIteration
        self._number += 1
        if len(raw) > MAX_LINE_BYTES:
            self._refuse(f"the line is longer than {size_text(MAX_LINE_BYTES)}; this is not a table of sentences")
        if self._number == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            self._refuse(f"not valid UTF-8 (byte {raw[error.start]:#04x}); save the file as UTF-8")
        bad = unstorable(text)
        if bad is not None:
            self._refuse(bad.message(BINARY_ADVICE))
        if text.endswith("\r\n"):
            text = text[:-2] + "\n"
        return nfc(text)

    def _refuse(self, message: str) -> NoReturn:
        self._problems.error(self._number, message)
        raise _Refused


_XML_ERRORS: tuple[type[BaseException], ...] = (ElementTree.ParseError, SyntaxError)
"""What a workbook's damaged or hostile XML raises: the standard library's parser error (also for the entity
expansion of a "billion laughs" file, which expat refuses since 2.4, and for an external entity, which it does not
fetch), lxml's (a SyntaxError); defusedxml's (``_defused_errors``) when it is installed."""


def _xlsx_records(path: Path, problems: Problems) -> Iterator[tuple[int, list[str]]]:
    """Rows of the first worksheet, streamed (openpyxl's read-only mode and its sheet parser); the line of a
    row is its spreadsheet row number.

    The sizes its zip directory declares are checked first (a zip bomb unpacks a few kilobytes to gigabytes,
    and openpyxl holds every shared string in memory). A formula cell is read as the value it had when the
    workbook was last saved, which is said in a warning; a formula without such a value (a workbook written by
    a program that does not calculate) is refused: read as empty, it would silently drop a rule.
    """
    from openpyxl.utils.exceptions import InvalidFileException

    if not _xlsx_sizes_ok(path, problems):
        return
    damaged: tuple[type[BaseException], ...] = (zipfile.BadZipFile, InvalidFileException, KeyError, OSError,
                                                ValueError, TypeError, IndexError, *_XML_ERRORS, *_defused_errors())
    try:
        workbook = _read_only_workbook(path)
    except damaged as error:
        problems.error(None, f"not a valid XLSX workbook ({_first_line(error)}); save the table as .xlsx, or as "
                             f".tsv or .csv")
        return
    try:
        if workbook.sheet is None:
            problems.error(None, "the workbook has no worksheet")
            return
        yield from _sheet_rows(workbook, problems)
    except damaged as error:
        problems.error(None, f"not a valid XLSX workbook ({_first_line(error)}); save the table as .xlsx, or as "
                             f".tsv or .csv")
    finally:
        workbook.close()


class SharedStrings:
    """A workbook's shared strings as UTF-8 in one buffer, looked up by index as openpyxl's sheet parser does.

    openpyxl keeps them as a list of Python strings, each with its object's header beside its text. Here the
    900,000 sentences of a workbook whose shared strings come near ``MAX_SHARED_STRINGS_BYTES`` (99 MB of XML) take
    their 85 MB of UTF-8 and eight bytes a string; a cell's string is decoded when it is read.
    """

    def __init__(self) -> None:
        self._text = bytearray()
        self._ends = array("q")
        """Where each string ends in the buffer."""

    def append(self, text: str) -> None:
        self._text += text.encode("utf-8", "surrogatepass")
        self._ends.append(len(self._text))

    def __len__(self) -> int:
        return len(self._ends)

    def __getitem__(self, index: int) -> str:
        if not 0 <= index < len(self._ends):  # a cell naming a string the table does not hold: a damaged file
            raise IndexError(f"shared string {index} of {len(self._ends)}")
        start = self._ends[index - 1] if index else 0
        return self._text[start:self._ends[index]].decode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class _Workbook:
    """A workbook opened to read its first worksheet's rows."""

    book: Any
    """openpyxl's read-only workbook: its archive (closed with it), epoch and date formats."""
    sheet: str | None
    """The first worksheet's part in the archive; None when the workbook has none."""
    strings: SharedStrings | list[str]
    """Empty when the workbook has no shared strings."""

    def close(self) -> None:
        self.book.close()


def _read_only_workbook(path: Path) -> _Workbook:
    """``openpyxl.load_workbook(path, read_only=True, data_only=True)``, but its shared strings read as
    ``SharedStrings`` (as openpyxl's own ``read_string_table`` reads them, through its XML parser, defused where
    defusedxml is installed) and only its first worksheet's place found."""
    from openpyxl.cell.text import Text
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.xml.constants import SHARED_STRINGS, SHEET_MAIN_NS
    from openpyxl.xml.functions import iterparse

    string_tag = f"{{{SHEET_MAIN_NS}}}si"

    class Reader(ExcelReader):  # type: ignore[misc]  # openpyxl is untyped
        def read_strings(self) -> None:
            part = self.package.find(SHARED_STRINGS)
            if part is None:
                return
            strings = SharedStrings()
            with self.archive.open(part.PartName[1:]) as source:
                root = None
                for event, node in iterparse(source, events=("start", "end")):
                    if root is None:
                        root = node
                    elif event == "end" and node.tag == string_tag:
                        strings.append(Text.from_tree(node).content.replace("x005F_", ""))
                        root.clear()  # each string's element let go, not only emptied as openpyxl does
            self.shared_strings = strings

        def read_worksheets(self) -> None:
            """Only where the first worksheet is: openpyxl's read-only worksheet reads the sheet's size when it is
            made, and a sheet without a ``dimension`` element (which a program may leave out) it parsed whole
            into a tree for that, 78 MB of 900,000 rows, before a row was read."""
            self.first_sheet = next((rel.target for _, rel in self.parser.find_sheets()
                                     if rel.target in self.valid_files and "chartsheet" not in rel.Type), None)

    reader = Reader(path, read_only=True, data_only=True)
    with warnings.catch_warnings():  # names bound to sheets find none here, and are not read
        warnings.filterwarnings("ignore", message="Defined names for sheet index")
        reader.read()
    return _Workbook(reader.wb, reader.first_sheet, reader.shared_strings)


def _defused_errors() -> tuple[type[BaseException], ...]:
    try:
        from defusedxml import DefusedXmlException
    except ImportError:  # optional: openpyxl parses with it when it is installed, else expat refuses entity bombs
        return ()
    return (DefusedXmlException,)


def _first_line(error: BaseException) -> str:
    """The reason at the bottom of ``error``: openpyxl wraps a parser's error in "Unable to read workbook", which
    names no cause, and defusedxml's refusal of an entity reads as its class's repr."""
    while (cause := error.__cause__ or error.__context__) is not None:
        error = cause
    name = getattr(error, "name", None)
    if isinstance(error, _defused_errors()) and name is not None:
        return f"it declares the XML entity &{name};, and a workbook's XML is read without entities"
    return (str(error).strip().splitlines() or [type(error).__name__])[0][:200]


def _xlsx_sizes_ok(path: Path, problems: Problems) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        problems.error(None, f"not an XLSX workbook ({error}); save the table as .xlsx, or as .tsv or .csv")
        return False
    total = sum(member.file_size for member in members)
    if total > MAX_WORKBOOK_BYTES:
        problems.error(None, f"the workbook unpacks to {size_text(total)}; at most {size_text(MAX_WORKBOOK_BYTES)} "
                             f"are read")
        return False
    strings = sum(member.file_size for member in members if member.filename.lower().endswith("sharedstrings.xml"))
    if strings > MAX_SHARED_STRINGS_BYTES:
        problems.error(None, f"the workbook's shared strings unpack to {size_text(strings)}; at most "
                             f"{size_text(MAX_SHARED_STRINGS_BYTES)} are read (save it as .tsv)")
        return False
    return True


def _sheet_rows(workbook: _Workbook, problems: Problems) -> Iterator[tuple[int, list[str]]]:
    """The sheet's rows from openpyxl's own streaming parser, told to also say which cells hold formulas (its
    read-only worksheet pads rows to the sheet's declared dimension, which a hostile file sets to 16,384 columns
    by a million rows, and hides whether a value came from a formula)."""
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet._reader import DATA_TAG, FORMULA_TAG, ROW_TAG, WorkSheetParser
    from openpyxl.xml.functions import iterparse

    class Parser(WorkSheetParser):  # type: ignore[misc]  # openpyxl is untyped
        def parse_cell(self, element: Any) -> dict[str, Any]:
            cell: dict[str, Any] = super().parse_cell(element)
            cell["formula"] = element.find(FORMULA_TAG) is not None
            return cell

        def parse(self) -> Iterator[tuple[int, list[dict[str, Any]]]]:
            """The rows alone, each let go once read: openpyxl's parser empties a row's element but keeps it in the
            sheet's tree (900,000 emptied rows took 77 MB), and reads the sheet's formatting, which is not used."""
            rows = None
            for event, element in iterparse(self.source, events=("start", "end")):
                if event == "start":
                    if element.tag == DATA_TAG:
                        rows = element
                elif element.tag == ROW_TAG:
                    row: tuple[int, list[dict[str, Any]]] = self.parse_row(element)
                    (rows if rows is not None else element).clear()
                    yield row

    cached: list[str] = []
    book = workbook.book
    assert workbook.sheet is not None
    with book._archive.open(workbook.sheet) as source:
        parser = Parser(source, workbook.strings, data_only=True, epoch=book.epoch, date_formats=book._date_formats,
                        timedelta_formats=book._timedelta_formats)
        for number, cells in parser.parse():
            values: list[str] = []
            refused = False
            for cell in cells:
                column = cell["column"]
                where = f"{get_column_letter(column)}{number}" if column <= 16384 else f"column {column}"
                if column > MAX_COLUMNS:
                    if cell["value"] is not None:
                        problems.error(number, f"a cell in {where}; a table has at most {MAX_COLUMNS} columns")
                        refused = True
                        break
                    continue
                if cell["formula"]:
                    if cell["value"] is None:
                        problems.error(number, f"{where}: a formula without a value; save the workbook with "
                                               f"values (a spreadsheet program does when it saves)")
                        refused = True
                        continue
                    cached.append(where)
                text = _cell_text(cell["value"])
                if len(text) > MAX_FIELD_CHARS:
                    problems.error(number, f"{where}: a cell is longer than {MAX_FIELD_CHARS:,} characters; this is "
                                           f"not a table of sentences")
                    refused = True
                    continue
                bad = unstorable(text)
                if bad is not None:  # XML holds neither, but a reader that unescapes _x0000_ would make one
                    problems.error(number, f"{where}: {bad.message()}")
                    refused = True
                    continue
                values.extend([""] * (column - 1 - len(values)))
                values.append(text)
            if not refused:  # a row with a refused cell is reported for that cell only
                yield number, values
    if cached:
        shown = ", ".join(cached[:3]) + (", …" if len(cached) > 3 else "")
        problems.warn(None, f"{len(cached):,} cell(s) hold a formula ({shown}); the values they had when the workbook "
                            f"was last saved were read")


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return nfc(str(value))
