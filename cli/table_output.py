"""The ``--format``/``--out`` pair of every command that writes a table, over ``suite.tables`` only."""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from suite.errors import TsqeError
from suite.tables import FORMATS, Table, render, suffix_format, write_table

if TYPE_CHECKING:
    from suite.reading.status import Unlabelled

FORMAT_HELP = (f"Table format: {', '.join(FORMATS)} (default: text, or what the --out file's suffix names: "
               ".txt .csv .tsv .json .md .tex .html .xlsx).")


def format_option() -> Any:
    return typer.Option(None, "--format", help=FORMAT_HELP)


def out_option() -> Any:
    return typer.Option(None, "--out", help="Write the table to this file instead of standard output.",
                        dir_okay=False)


def heat_map_option(help_text: str) -> Any:
    return typer.Option(None, "--heat-map", dir_okay=False, help=f"{help_text}: .png, .svg or .pdf.")


def terminal_width() -> int | None:
    """The columns a table printed to standard output must fit: ``$COLUMNS``, else the terminal's; None for a pipe
    (which gets the full layout, as a file does)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def emit_result(table: Table, document: str, as_json: bool, fmt: str | None, out: Path | None) -> None:
    """A result with a JSON document of its own: ``--json`` prints the document, else the table is emitted as
    ``emit_table`` does (the document standing for the table's JSON in a file or ``--format json``)."""
    if as_json:
        typer.echo(document)
    else:
        emit_table(table, fmt, out, document=document + "\n")


def emit_table(table: Table, fmt: str | None, out: Path | None, *, document: str | None = None,
               unlabelled: Unlabelled | None = None) -> None:
    """Print or write the table; ``document`` replaces the table's own JSON when the result has a richer one.
    Printed as text, it fits the terminal (``terminal_width``) and shows control characters escaped; a file keeps
    the full layout and the text as it is.
    ``unlabelled`` (``cli.unlabelled.say_unlabelled``, which has said it on standard error): while outputs are not
    labelled, a JSON document gets their count as ``unlabelled_outputs``; other formats stay as they are."""
    if fmt is not None and fmt not in FORMATS:
        raise TsqeError(f"--format {fmt!r} is not one of: {', '.join(FORMATS)}")
    if unlabelled is not None and unlabelled.outputs and \
            (fmt or (suffix_format(out) if out is not None else "text")) == "json":
        shown = json.loads(render(table, "json", document=document))
        if isinstance(shown, dict):
            shown["unlabelled_outputs"] = unlabelled.outputs
        document = json.dumps(shown, indent=2, ensure_ascii=False) + "\n"
    if out is None:
        fmt = fmt or "text"
        if fmt == "xlsx":
            raise TsqeError("--format xlsx writes a workbook: give a file with --out FILE.xlsx")
        sys.stdout.write(render(table, fmt, document=document, width=terminal_width(), terminal=True))
        return
    write_table(table, out, fmt, document=document)
    typer.echo(f"wrote {out}", err=True)
