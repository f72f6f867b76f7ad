"""The one table layer of the project: result tables rendered to text, CSV/TSV, JSON, Markdown, LaTeX, HTML, XLSX.

Every report (the MT systems' pass rates, QE accuracy and stability, variance, correlation, difficulty) turns
its result into a :class:`Table` with ``to_table()`` and both front-ends write it only through :func:`render`
and :func:`write_table`, so the GUI and the CLI write byte for byte the same file for the same options.

The model knows nothing about MT or QE: a table has typed columns (text, count, number, fraction, flag), body
rows, summary rows under a rule, and notes. Display formats (text, md, latex, html) show fractions as
percentages with one decimal like the papers, bold for emphasis and a mark (e.g. a dagger) next to a cell;
data formats (csv, tsv, xlsx) keep fractions in [0, 1], spell intervals and emphasis out as extra columns
and include the ``flag`` columns that display formats fold into marks. JSON keeps the typed cells as they
are (value, interval, bold, mark), so a program reading it loses nothing the table has; a result that has a
JSON document of its own (``to_json``: provenance, settings, counts the table leaves out) is written as that
document instead, which ``render`` and ``write_table`` take as ``document``.

Rows without a category or phenomenon are called :data:`NO_CATEGORY` / :data:`NO_PHENOMENON` in every table,
and every table lists categories and phenomena in suite order (first appearance by item position).
"""
from __future__ import annotations

import csv
import html
import io
import json
import math
import re
import textwrap
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from suite.errors import TsqeError
from suite.safe_export import neutralise_workbook, spreadsheet_frame, writing

if TYPE_CHECKING:
    import pandas as pd

ColumnKind = Literal["text", "count", "number", "fraction", "flag"]
FORMATS = ("text", "csv", "tsv", "json", "md", "latex", "html", "xlsx")
SUFFIXES = {".txt": "text", ".csv": "csv", ".tsv": "tsv", ".json": "json", ".md": "md", ".tex": "latex",
            ".html": "html", ".xlsx": "xlsx"}
MISSING = "–"
NO_CATEGORY = "(no category)"
NO_PHENOMENON = "(no phenomenon)"


@dataclass(frozen=True)
class Column:
    name: str
    kind: ColumnKind
    decimals: int = 2
    """Decimals of a ``number`` shown in display formats (data formats keep the full value)."""
    shaded: bool = True
    """Whether a screen shades a ``fraction`` by its value, as for rates where higher is better (not a tie rate)."""


@dataclass(frozen=True)
class Cell:
    value: str | int | float | bool | None
    ci: tuple[float, float] | None = None
    bold: bool = False
    mark: str = ""
    kind: ColumnKind | None = None
    """Shown as this kind rather than its column's: a summary row of another unit (ACES's score under
    accuracy columns)."""


@dataclass(frozen=True)
class Table:
    title: str
    columns: list[Column]
    body: list[list[Cell]]
    footer: list[list[Cell]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    bold_means: str = "best"  # the name of the extra column that spells bold out in data formats
    bold_note: str = ""  # what bold means, shown under the table ("Bold: ..." or "*: ..." in plain text)

    def display_notes(self, bold_prefix: str = "Bold: ") -> list[str]:
        return self.notes + ([bold_prefix + self.bold_note] if self.bold_note else [])


def render(table: Table, fmt: str, *, document: str | None = None, width: int | None = None,
           terminal: bool = False) -> str:
    """The table as text in one of :data:`FORMATS` except xlsx, which is a workbook: see :func:`write_table`.

    In JSON, a result's own ``document`` stands for the table when given, so that no front-end writes a
    poorer JSON than another for the same result. ``width`` and ``terminal``: plain text for a terminal
    (``render_text``).
    """
    if fmt == "json" and document is not None:
        return document
    if fmt == "text":
        return render_text(table, width=width, terminal=terminal)
    renderers = {"text": render_text, "csv": lambda t: render_delimited(t, ","),
                 "tsv": lambda t: render_delimited(t, "\t"), "json": render_json, "md": render_markdown,
                 "latex": render_latex, "html": render_html}
    if fmt == "xlsx":
        raise TsqeError("an xlsx table is a workbook, not text: write it to a file")
    if fmt not in renderers:
        raise TsqeError(f"unknown table format {fmt!r} (formats: {', '.join(FORMATS)})")
    return renderers[fmt](table)


def suffix_format(path: str | Path) -> str:
    """The format a file name asks for by its suffix (.txt .csv .tsv .json .md .tex .html .xlsx)."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise TsqeError(f"{Path(path).name}: cannot tell the table format from the suffix {suffix or '(none)'!r} "
                        f"(known: {', '.join(SUFFIXES)})")
    return SUFFIXES[suffix]


def write_table(table: Table, path: str | Path, fmt: str | None = None, *, document: str | None = None) -> Path:
    """Write the table to ``path`` in ``fmt`` (by default the format its suffix names) and return the path.

    Text formats are written as UTF-8 with ``\n`` line ends on every platform, exactly what :func:`render`
    returns (with ``document`` as there); xlsx goes through pandas and openpyxl with the notes on a second sheet.
    The file is replaced whole or not at all (``suite.safe_export.writing``).
    """
    path = Path(path)
    fmt = suffix_format(path) if fmt is None else fmt
    content = None if fmt == "xlsx" else render(table, fmt, document=document).encode("utf-8")
    with writing(path) as temporary:
        if content is None:
            _write_xlsx(table, temporary)
        else:
            temporary.write_bytes(content)
    return path


def frame(table: Table) -> pd.DataFrame:
    """The data-format view: one row per body/footer row, fractions as numbers, intervals and bold as columns."""
    import pandas as pd  # half a second to import: only data formats need it, not every command that starts

    rows = table.body + table.footer
    any_bold = any(c.bold for row in rows for c in row)
    data: dict[str, list[object]] = {}
    for j, column in enumerate(table.columns):
        cells = [row[j] for row in rows]
        data[column.name] = [_data_value(c.value) for c in cells]
        if column.kind in ("fraction", "number") and any(c.ci is not None for c in cells):
            data[f"{column.name} ci_low"] = [None if c.ci is None else _data_value(c.ci[0]) for c in cells]
            data[f"{column.name} ci_high"] = [None if c.ci is None else _data_value(c.ci[1]) for c in cells]
        if column.kind == "fraction":
            if any_bold:
                data[f"{column.name} {table.bold_means}"] = [c.bold for c in cells]
    result = pd.DataFrame(data)
    for column in table.columns:
        if column.kind == "count":
            result[column.name] = result[column.name].astype("Int64")
    return result


def render_delimited(table: Table, delimiter: str) -> str:
    """CSV or TSV whose text cells no spreadsheet runs as formulas (``suite.safe_export.spreadsheet_text``)."""
    buffer = io.StringIO()
    spreadsheet_frame(frame(table)).to_csv(buffer, sep=delimiter, index=False, lineterminator="\n",
                                           quoting=csv.QUOTE_MINIMAL)
    return buffer.getvalue()


def _write_xlsx(table: Table, path: Path) -> None:
    """An Excel workbook with the data view on the first sheet and the notes on a second; text cells are strings,
    never formulas (``suite.safe_export.neutralise_workbook``)."""
    import pandas as pd

    with pd.ExcelWriter(path, engine="openpyxl") as writer:
        frame(table).to_excel(writer, sheet_name=_sheet_name(table.title), index=False)
        pd.DataFrame({"notes": table.notes}).to_excel(writer, sheet_name="notes", index=False)
        neutralise_workbook(writer.book)


def render_json(table: Table) -> str:
    """The typed table: columns with their kinds, cells with value, interval, bold and mark (NaN as null)."""
    def cell(c: Cell) -> dict[str, object]:
        document: dict[str, object] = {"value": _data_value(c.value)}
        if c.ci is not None:
            document["ci"] = [_data_value(c.ci[0]), _data_value(c.ci[1])]
        if c.bold:
            document["bold"] = True
        if c.mark:
            document["mark"] = c.mark
        if c.kind is not None:
            document["kind"] = c.kind
        return document

    document = {"title": table.title, "columns": [{"name": c.name, "kind": c.kind} for c in table.columns],
                "body": [[cell(c) for c in row] for row in table.body],
                "footer": [[cell(c) for c in row] for row in table.footer],
                "notes": table.notes, "bold": table.bold_note}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\x1b": "\\e"}
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
FULL_WIDTH = 100_000
"""The width a text table is laid out in when nothing bounds it (a file, a pipe): its full layout."""


def terminal_text(text: str) -> str:
    """``text`` as a terminal shows it safely: every control character as a visible escape (``\\e`` for ESC,
    ``\\x07`` for BEL, ``\\n`` for a line break, ``\\u202e`` for a bidirectional override, a lone surrogate as
    ``\\udc80``). An MT output holding ``ESC ]0;…BEL`` retitled the terminal, ``ESC [2J`` cleared it, and a
    right-to-left override reordered what a reader saw; files keep the text as it is."""
    if text.isprintable():
        return text
    out = []
    for c in text:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif c in _BIDI_CONTROLS or unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp"):
            out.append(f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return "".join(out)


def render_text(table: Table, *, width: int | None = None, terminal: bool = False) -> str:
    """A box table; ``*`` marks bold numbers, since plain text has no bold.

    ``terminal``: control characters escaped (``terminal_text``). ``width``: the terminal's columns; a table wider
    than that is printed in blocks of columns that fit, each repeating the row labels (the leading text columns),
    a column group (a system's rate, pass and judged columns: names that start with the group's first name) kept
    together, so that no name is cut ("Onl…" for 19 systems of three columns in 80 or 200 columns). Without a
    width (a file, a pipe) the table keeps its full layout on one block.
    """
    shown = _shown(table)
    text = terminal_text if terminal else str
    keys = [j for j in shown[:next((i for i, j in enumerate(shown) if table.columns[j].kind != "text"), len(shown))]]
    groups = _column_groups(table, [j for j in shown if j not in keys])
    block = _text_block(table, shown, text, table.title)
    notes = [text(note) for note in table.display_notes("* ")]
    if width is not None:  # a terminal wraps a long line anywhere: wrap the notes between words
        notes = [line for note in notes for line in textwrap.wrap(note, width) or [""]]
    if width is None or _block_width(block) <= width or not groups:
        return "\n".join(block + notes) + "\n"
    blocks: list[list[int]] = []
    for group in groups:
        if blocks and _block_width(_text_block(table, keys + blocks[-1] + group, text, "")) <= width:
            blocks[-1] += group
        else:
            blocks.append(list(group))
    lines: list[str] = []
    for number, columns in enumerate(blocks, start=1):
        title = f"{table.title} ({number}/{len(blocks)})" if table.title else ""
        lines += [*(_text_block(table, keys + columns, text, title)), ""]
    return "\n".join(lines + notes) + "\n"


def _column_groups(table: Table, columns: list[int]) -> list[list[int]]:
    groups: list[list[int]] = []
    for j in columns:
        if groups and table.columns[j].name.startswith(table.columns[groups[-1][0]].name + " "):
            groups[-1].append(j)
        else:
            groups.append([j])
    return groups


def _block_width(lines: list[str]) -> int:
    return max((len(line) for line in lines), default=0)


def _text_block(table: Table, shown: list[int], text: Callable[[str], str], title: str) -> list[str]:
    from rich.console import Console
    from rich.table import Table as RichTable

    rich_table = RichTable(title=text(title) if title else None, title_justify="left")
    for j in shown:
        column = table.columns[j]
        rich_table.add_column(text(column.name), justify="left" if column.kind == "text" else "right",
                              overflow="fold")
    for row in table.body:
        rich_table.add_row(*(text(_display(row[j], table.columns[j], bold_marker="*")) for j in shown))
    if table.footer:
        rich_table.add_section()
    for row in table.footer:
        rich_table.add_row(*(text(_display(row[j], table.columns[j], bold_marker="*")) for j in shown))
    buffer = io.StringIO()
    console = Console(file=buffer, width=FULL_WIDTH, color_system=None, highlight=False, markup=False, emoji=False)
    console.print(rich_table)
    return [line.rstrip() for line in buffer.getvalue().splitlines()]


def render_markdown(table: Table) -> str:
    shown = _shown(table)
    header = "| " + " | ".join(_escape_md(table.columns[j].name) for j in shown) + " |"
    align = "|" + "|".join(":---" if table.columns[j].kind == "text" else "---:" for j in shown) + "|"
    lines = [f"**{_escape_md(table.title)}**", "", header, align]
    for row in table.body + table.footer:
        cells = []
        for j in shown:
            cell, column = row[j], table.columns[j]
            text = _escape_md(_display(cell, column, with_ci=False, with_mark=False))
            if cell.bold and text:
                text = f"**{text}**"
            if _interval(cell, column):
                text += f" {_interval(cell, column)}"
            cells.append(text + _escape_md(cell.mark))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.extend(f"{_escape_md(note)}  " for note in table.display_notes())
    return "\n".join(lines) + "\n"


def render_latex(table: Table) -> str:
    r"""A booktabs ``table`` environment (needs ``\usepackage{booktabs}``); bold cells in ``\textbf``."""
    shown = _shown(table)
    spec = "".join("l" if table.columns[j].kind == "text" else "r" for j in shown)

    def row_tex(row: list[Cell]) -> str:
        cells = []
        for j in shown:
            cell, column = row[j], table.columns[j]
            text = _latex_escape(_display(cell, column, with_ci=False, with_mark=False))
            if cell.bold and text:
                text = rf"\textbf{{{text}}}"
            if _interval(cell, column):
                text += r" {\scriptsize" + _interval(cell, column) + "}"
            if cell.mark:
                text += rf"\textsuperscript{{{_latex_escape(cell.mark)}}}"
            cells.append(text)
        return " & ".join(cells) + r" \\"

    lines = [r"% requires \usepackage{booktabs}", r"\begin{table}[ht]", r"\centering", r"\small",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(_latex_escape(table.columns[j].name) for j in shown) + r" \\", r"\midrule"]
    lines.extend(row_tex(row) for row in table.body)
    if table.footer:
        lines.append(r"\midrule")
        lines.extend(row_tex(row) for row in table.footer)
    lines += [r"\bottomrule", r"\end{tabular}",
              r"\caption{" + _latex_escape(" ".join([table.title + "."] + table.display_notes())) + "}", r"\end{table}"]
    return "\n".join(lines) + "\n"


_CSS = """body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:14px}
caption{text-align:left;font-weight:600;margin-bottom:.5em}
th,td{padding:.25em .7em}
thead th{border-top:2px solid #222;border-bottom:1px solid #222}
tbody tr:last-child td{border-bottom:2px solid #222}
tbody.summary tr:first-child td{border-top:1px solid #222}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.ci{color:#777;font-size:85%}
p.note{color:#555;font-size:13px;margin:.3em 0}"""


def render_html(table: Table) -> str:
    """A self-contained HTML page (inline CSS, no scripts, no external resources)."""
    shown = _shown(table)

    def cell_html(cell: Cell, column: Column, tag: str = "td") -> str:
        text = html.escape(_display(cell, column, with_ci=False, with_mark=False))
        if cell.bold and text:
            text = f"<strong>{text}</strong>"
        if _interval(cell, column):
            text += f' <span class="ci">{_interval(cell, column)}</span>'
        if cell.mark:
            text += f"<sup>{html.escape(cell.mark)}</sup>"
        css = "" if column.kind == "text" else ' class="num"'
        return f"<{tag}{css}>{text}</{tag}>"

    def rows_html(rows: list[list[Cell]]) -> str:
        return "\n".join("<tr>" + "".join(cell_html(row[j], table.columns[j]) for j in shown) + "</tr>"
                         for row in rows)

    head = "".join(f"<th{'' if table.columns[j].kind == 'text' else ' class=num'}>"
                   f"{html.escape(table.columns[j].name)}</th>" for j in shown)
    summary = f'<tbody class="summary">\n{rows_html(table.footer)}\n</tbody>\n' if table.footer else ""
    notes = "\n".join(f'<p class="note">{html.escape(n)}</p>' for n in table.display_notes())
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"<title>{html.escape(table.title)}</title>\n<style>\n{_CSS}\n</style>\n</head>\n<body>\n"
            f"<table>\n<caption>{html.escape(table.title)}</caption>\n<thead><tr>{head}</tr></thead>\n"
            f"<tbody>\n{rows_html(table.body)}\n</tbody>\n{summary}</table>\n{notes}\n</body>\n</html>\n")


def _shown(table: Table) -> list[int]:
    return [j for j, c in enumerate(table.columns) if c.kind != "flag"]


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _percent(value: float) -> str:
    return MISSING if _missing(value) else f"{value * 100:.1f}"


def _display(cell: Cell, column: Column, *, with_ci: bool = True, with_mark: bool = True,
             bold_marker: str = "") -> str:
    value = cell.value
    kind = cell.kind or column.kind
    if kind == "fraction":
        text = _percent(value)  # type: ignore[arg-type]
        if bold_marker and cell.bold and not _missing(value):
            text += bold_marker
        if with_ci and _interval(cell, column):
            text += f" {_interval(cell, column)}"
    elif kind == "number":
        text = MISSING if _missing(value) else f"{value:.{column.decimals}f}"
        if bold_marker and cell.bold and not _missing(value):
            text += bold_marker
        if with_ci and _interval(cell, column):
            text += f" {_interval(cell, column)}"
    elif kind == "count":
        text = "" if _missing(value) else str(int(value))  # type: ignore[arg-type]
    else:
        text = "" if value is None else str(value)
    return text + (cell.mark if with_mark else "")


def _interval(cell: Cell, column: Column) -> str:
    """A cell's interval as display formats show it (``[low, high]``, fractions in percent), or nothing."""
    kind = cell.kind or column.kind
    if cell.ci is None or _missing(cell.value) or kind not in ("fraction", "number"):
        return ""
    if kind == "fraction":
        return f"[{_percent(cell.ci[0])}, {_percent(cell.ci[1])}]"
    low, high = (MISSING if _missing(v) else f"{v:.{column.decimals}f}" for v in cell.ci)
    return f"[{low}, {high}]"


def _data_value(value: object) -> object:
    return None if _missing(value) else value


_LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
"""Everything that ends a line somewhere (``str.splitlines``' list): a table row must stay on one."""
_MD_SPECIAL = {"\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "`": "\\`", "[": "\\[", "]": "\\]",
               "<": "&lt;", ">": "&gt;"}
_ENTITY = re.compile(r"&(?=#?\w+;)")
"""An ampersand that would start an HTML entity; any other stays as it is ("Coordination & ellipsis")."""


def _escape_md(text: str) -> str:
    """A cell's text as Markdown shows it: on one line, with no emphasis, code, link, HTML or entity of its own."""
    return "".join(_MD_SPECIAL.get(ch, ch) for ch in _ENTITY.sub("&amp;", _LINE_BREAKS.sub(" ", text)))


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
                  "†": r"\dag{}", "–": "--"}


def _latex_escape(text: str) -> str:
    """A cell's text as LaTeX prints it, on one line (an empty line would end the tabular's paragraph)."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in _LINE_BREAKS.sub(" ", text))


def _sheet_name(title: str) -> str:
    """Excel sheet names: at most 31 characters, none of []:*?/\\."""
    cleaned = "".join(" " if ch in "[]:*?/\\" else ch for ch in title).strip()
    return (cleaned or "table")[:31]
