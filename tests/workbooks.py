"""Minimal XLSX workbooks written part by part, so that a test controls every byte a hostile workbook holds:
its DTD, its shared strings, its sheet's declared dimension, a formula with or without a cached value."""
from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path
from xml.sax.saxutils import escape

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PACKAGE_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"

Cell = str | tuple[str, str | None]
"""A text (an inline string), or (formula, cached value or None)."""


def _cell(reference: str, cell: Cell) -> str:
    if isinstance(cell, tuple):
        formula, cached = cell
        value = "" if cached is None else f"<v>{escape(cached)}</v>"
        kind = "" if cached is None else ' t="str"'
        return f'<c r="{reference}"{kind}><f>{escape(formula)}</f>{value}</c>'
    if cell.startswith("#shared:"):
        return f'<c r="{reference}" t="s"><v>{cell.removeprefix("#shared:")}</v></c>'
    return f'<c r="{reference}" t="inlineStr"><is><t>{escape(cell)}</t></is></c>'


def write_workbook(path: Path, rows: Sequence[Sequence[Cell]], *, shared: Sequence[str] = (), dimension: str = "",
                   doctype: str = "", shared_xml: str | None = None) -> Path:
    """A workbook of one sheet; a cell ``"#shared:N"`` refers to the N-th of ``shared`` (or ``shared_xml``, the
    whole shared-strings part as given); ``doctype`` goes before the sheet's root element."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    sheet_rows = "".join(f'<row r="{n}">' + "".join(_cell(f"{letters[j]}{n}", cell) for j, cell in enumerate(row))
                         + "</row>" for n, row in enumerate(rows, start=1))
    sheet = (f'<?xml version="1.0" encoding="UTF-8"?>{doctype}<worksheet xmlns="{MAIN}">'
             + (f'<dimension ref="{dimension}"/>' if dimension else "")
             + f"<sheetData>{sheet_rows}</sheetData></worksheet>")
    strings = shared_xml if shared_xml is not None else (
        f'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="{MAIN}" count="{len(shared)}" uniqueCount="{len(shared)}">'
        + "".join(f"<si><t>{escape(text)}</t></si>" for text in shared) + "</sst>")
    has_strings = bool(shared) or shared_xml is not None
    parts = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/'
            'workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.spreadsheetml.worksheet+xml"/>'
            + ('<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-'
               'officedocument.spreadsheetml.sharedStrings+xml"/>' if has_strings else "") + "</Types>"),
        "_rels/.rels": (f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{PACKAGE_RELS}"><Relationship '
                        f'Id="rId1" Type="{RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>'),
        "xl/workbook.xml": (f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{MAIN}" xmlns:r="{RELS}">'
                            '<sheets><sheet name="suite" sheetId="1" r:id="rId1"/></sheets></workbook>'),
        "xl/_rels/workbook.xml.rels": (
            f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{PACKAGE_RELS}"><Relationship Id="rId1" '
            f'Type="{RELS}/worksheet" Target="worksheets/sheet1.xml"/>'
            + (f'<Relationship Id="rId2" Type="{RELS}/sharedStrings" Target="sharedStrings.xml"/>' if has_strings
               else "") + "</Relationships>"),
        "xl/worksheets/sheet1.xml": sheet,
    }
    if has_strings:
        parts["xl/sharedStrings.xml"] = strings
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in parts.items():
            archive.writestr(name, text)
    return path


SUITE_HEADER = ["id", "category", "phenomenon", "source", "positive_regex"]
