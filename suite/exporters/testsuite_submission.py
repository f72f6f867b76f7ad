"""What a test-suite author sends to WMT: the suite's sources as a WMT XML test set and as plain text, with the
map that brings the systems' returned translations back to the items (``suite.importers.submission``).

Per language pair (a suite of several, ``mul``, is split by its items' own languages), three files:

- ``NAME.SRC-TGT.src.xml``: a ``<dataset>`` in the wmt-format-tools layout (``schema/wmt-schema.rnc``) of one
  ``<doc id="NAME-ITEM" origlang="SRC" testsuite="NAME">`` per item, holding its source as ``<seg id="1">``;
- ``NAME.SRC-TGT.src.SRC``: the same sources as plain text, one a line, in the same order (``wmt-unwrap`` of the
  XML gives exactly this file);
- ``NAME.SRC-TGT.map.tsv``: ``line, doc_id, seg_id, item_id`` for every line.

One document per item: WMT's systems translate whole documents, and items of a test suite are independent
sentences, which must not become one another's context (a system would see the other items of a paradigm).
"""
from __future__ import annotations

import csv
import io
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from sqlalchemy import select

from store import Database
from store.models import Item
from suite.errors import TsqeError
from suite.file_names import safe_file_name
from suite.safe_export import spreadsheet_text, write_text_files
from suite.suites import find_suite

MAP_COLUMNS = ("line", "doc_id", "seg_id", "item_id")
SEGMENT = 1
"""Each item's document holds one segment."""


@dataclass(frozen=True)
class SubmissionFiles:
    """The files written for one language pair, and how many items they hold."""

    languages: tuple[str, str]
    xml: Path
    text: Path
    map: Path
    items: int


def document_id(name: str, external_id: str) -> str:
    return f"{name}-{external_id}"


def export_testsuite_submission(db: Database, folder: str | os.PathLike[str], *, name: str | None = None,
                                suite_name: str | None = None) -> list[SubmissionFiles]:
    """Write the submission files of the suite into ``folder`` (created if missing); ``name`` is the test suite's
    name in the files (default: the suite's)."""
    folder = Path(folder)
    with db.session() as session:
        suite = find_suite(session, suite_name)
        name = (name or suite.name).strip()
        rows = session.execute(select(Item.external_id, Item.source, Item.source_lang, Item.target_lang)
                               .where(Item.suite_id == suite.id).order_by(Item.position, Item.id)).all()
        suite_languages = (suite.source_lang, suite.target_lang)
    if not name or any(c.isspace() or c in "/\\" for c in name):
        raise TsqeError(f"a test suite's name in WMT's files has no spaces or slashes: {name!r}")
    by_pair: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    for external_id, source, source_lang, target_lang in rows:
        pair = (source_lang or suite_languages[0], target_lang or suite_languages[1])
        if not pair[0] or not pair[1] or "mul" in pair:
            raise TsqeError(f"item {external_id!r} has no known language pair (the suite's is "
                            f"{suite_languages[0] or '?'}-{suite_languages[1] or '?'}): set the suite's languages")
        by_pair[pair].append((external_id, source))
    if not by_pair:
        raise TsqeError(f"suite {suite_name or name!r} has no items to submit")
    written = []
    texts: dict[Path, str] = {}
    for (source_lang, target_lang), items in by_pair.items():
        # the languages are the items' own (a mul suite's come from the data): file names of their own too
        file_source, file_target = (safe_file_name(language, blanks=False) for language in (source_lang, target_lang))
        stem = folder / f"{safe_file_name(name, blanks=False)}.{file_source}-{file_target}"
        files = SubmissionFiles((source_lang, target_lang), Path(f"{stem}.src.xml"), Path(f"{stem}.src.{file_source}"),
                                Path(f"{stem}.map.tsv"), len(items))
        texts[files.xml] = _xml(name, source_lang, items)
        texts[files.text] = "".join(f"{_one_line(source)}\n" for _, source in items)
        texts[files.map] = _map(name, items)
        written.append(files)
    write_text_files(texts)
    return written


def _one_line(text: str) -> str:
    """A source as one line of plain text (a line break inside it would shift every later line)."""
    return " ".join(text.split("\n")).strip()


def _xml(name: str, source_lang: str, items: list[tuple[str, str]]) -> str:
    docs = "".join(
        f"  <doc id={quoteattr(document_id(name, external_id))} origlang={quoteattr(source_lang)} "
        f"testsuite={quoteattr(name)}>\n    <src lang={quoteattr(source_lang)}>\n      <p>\n"
        f"        <seg id=\"{SEGMENT}\">{escape(_one_line(source))}</seg>\n      </p>\n    </src>\n  </doc>\n"
        for external_id, source in items)
    return f"<?xml version='1.0' encoding='utf-8'?>\n<dataset id={quoteattr(name)}>\n{docs}</dataset>\n"


def _map(name: str, items: list[tuple[str, str]]) -> str:
    """The map as a TSV whose ids no spreadsheet runs as formulas (``suite.safe_export``; the importer takes the
    apostrophe off again)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(MAP_COLUMNS)
    for line, (external_id, _) in enumerate(items, start=1):
        writer.writerow((line, spreadsheet_text(document_id(name, external_id)), SEGMENT,
                         spreadsheet_text(external_id)))
    return buffer.getvalue()
