"""Writing a suite back to a file the importers read, so a suite can be edited in a spreadsheet and come back.

By suffix: ``.tsv``, ``.csv`` and ``.xlsx`` write the table layout of ``suite.importers.suite_table``;
``.json`` writes the DFKI layout of ``suite.importers.dfki``, with tsqe's extensions only on items that need
them (several rules of one polarity, ignore case, references).

Importing the written file gives the same items, in the same order, with the same rules (patterns, flags,
order within each polarity), references (texts, kinds, sets, order), known translations and comments. What a
layout cannot carry is refused rather than written wrongly:

- an item without a phenomenon (a WMT test set imported as a suite): both layouts need one;
- an empty pattern, or an entry that the `` ||| `` separator of a table cell would split or strip
  differently (e.g. a pattern containing `` ||| ``, a reference with surrounding whitespace);
- a JSON export of a suite whose languages are unknown (the DFKI layout names them on every item).

A table does not carry the suite's languages: give them when importing it. Positive rules are written
before negative ones, so rules that an edit interleaved come back grouped by polarity.
"""
from __future__ import annotations

import csv
import json
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from store import Database
from store.models import STANDARD_REFERENCE, Category, Item, KnownTranslation, Phenomenon, Reference, Rule
from suite.errors import TsqeError
from suite.importers.suite_table import COLUMNS, IGNORE_CASE_FLAG, SEPARATOR
from suite.safe_export import neutralise_workbook, spreadsheet_text, writing, writing_text
from suite.suites import find_suite

SUFFIXES = (".tsv", ".csv", ".xlsx", ".json")


@dataclass
class _Item:
    external_id: str
    category: str | None
    phenomenon: str | None
    source: str
    comment: str | None
    positive: list[tuple[str, bool]] = field(default_factory=list)
    negative: list[tuple[str, bool]] = field(default_factory=list)
    references: list[tuple[str, str, str]] = field(default_factory=list)
    """(text, kind, set name)."""
    good: list[str] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)


def export_suite(db: Database, path: str | os.PathLike[str], suite_name: str | None = None) -> int:
    """Write the suite to ``path`` (its suffix chooses the layout) and return the number of items written.

    Everything is checked before the file is opened, and the file is replaced whole or not at all, so a refused
    or failed export leaves the previous file as it was. Texts a spreadsheet would run as formulas are written so
    that it does not (``suite.safe_export``) and import back as they were.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise TsqeError(f"{path}: unknown suite format {suffix!r}; expected .tsv, .csv, .xlsx or .json")
    with db.session() as session:
        suite = find_suite(session, suite_name)
        items = _items(session, suite.id)
        languages = (suite.source_lang, suite.target_lang)
    for item in items:
        if item.category is None or item.phenomenon is None:
            raise TsqeError(f"item {item.external_id!r} belongs to no phenomenon; a suite file needs a category "
                            f"and a phenomenon for every item")
        empty = [pattern for pattern, _ in item.positive + item.negative if not pattern.strip()]
        if empty:
            raise TsqeError(f"item {item.external_id!r} has an empty pattern, which a suite file cannot hold")
    if suffix == ".json":
        if not all(languages):
            raise TsqeError(f"the languages of suite {suite.name!r} are unknown; the DFKI layout names them on "
                            f"every item, so set them first")
        _write_json(path, items, f"{languages[0]}-{languages[1]}")
    else:
        rows = [_row(item) for item in items]
        if suffix == ".xlsx":
            _write_xlsx(path, rows)
        else:
            with writing_text(path) as file:
                writer = csv.writer(file, dialect="excel" if suffix == ".csv" else "excel-tab", lineterminator="\n")
                writer.writerow(COLUMNS)
                writer.writerows([spreadsheet_text(cell) for cell in row] for row in rows)
    return len(items)


def _items(session: Any, suite_id: int) -> list[_Item]:
    items: dict[int, _Item] = {}
    query = (select(Item.id, Item.external_id, Category.name, Phenomenon.name, Item.source, Item.comment)
             .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
             .outerjoin(Category, Category.id == Phenomenon.category_id)
             .where(Item.suite_id == suite_id).order_by(Item.position, Item.id))
    for item_id, external_id, category, phenomenon, source, comment in session.execute(query):
        items[item_id] = _Item(external_id, category, phenomenon, source, comment)
    rules = (select(Rule.item_id, Rule.polarity, Rule.pattern, Rule.ignore_case).join(Item, Item.id == Rule.item_id)
             .where(Item.suite_id == suite_id).order_by(Rule.item_id, Rule.position, Rule.id))
    for item_id, polarity, pattern, ignore_case in session.execute(rules):
        getattr(items[item_id], polarity).append((pattern, bool(ignore_case)))
    references = (select(Reference.item_id, Reference.text, Reference.kind, Reference.set_name)
                  .join(Item, Item.id == Reference.item_id)
                  .where(Item.suite_id == suite_id).order_by(Reference.item_id, Reference.id))
    for item_id, text, kind, set_name in session.execute(references):
        items[item_id].references.append((text, kind or STANDARD_REFERENCE, set_name or kind or STANDARD_REFERENCE))
    known = (select(KnownTranslation.item_id, KnownTranslation.kind, KnownTranslation.text)
             .join(Item, Item.id == KnownTranslation.item_id)
             .where(Item.suite_id == suite_id).order_by(KnownTranslation.item_id, KnownTranslation.id))
    by_kind: dict[tuple[int, str], list[str]] = defaultdict(list)
    for item_id, kind, text in session.execute(known):
        by_kind[(item_id, kind)].append(text)
    for item_id, item in items.items():
        item.good, item.bad = by_kind[(item_id, "good")], by_kind[(item_id, "bad")]
    return list(items.values())


def _row(item: _Item) -> list[str]:
    rules = item.positive + item.negative
    flags = [IGNORE_CASE_FLAG if ignore_case else "" for _, ignore_case in rules]
    kinds = [kind for _, kind, _ in item.references]
    sets = [set_name for _, _, set_name in item.references]
    return [
        item.external_id, item.category or "", item.phenomenon or "", item.source,
        _cell(item, "positive pattern", [pattern for pattern, _ in item.positive], stripped=False),
        _cell(item, "negative pattern", [pattern for pattern, _ in item.negative], stripped=False),
        SEPARATOR.join(flags) if any(flags) else "",
        _cell(item, "reference", [text for text, _, _ in item.references], stripped=True),
        SEPARATOR.join(kinds) if any(kind != STANDARD_REFERENCE for kind in kinds) else "",
        SEPARATOR.join(sets) if any(set_name != kind for set_name, kind in zip(sets, kinds)) else "",
        _cell(item, "good translation", item.good, stripped=True),
        _cell(item, "bad translation", item.bad, stripped=True),
        item.comment or "",
    ]


def _cell(item: _Item, what: str, entries: list[str], *, stripped: bool) -> str:
    """Entries joined by the separator, refused when the importer would not read the same entries back."""
    cell = SEPARATOR.join(entries)
    parts = cell.split(SEPARATOR) if cell.strip() else []
    read_back = [part.strip() for part in parts if part.strip()] if stripped else parts
    if read_back != entries:
        bad = next((entry for entry in entries if entry not in read_back), entries[0])
        raise TsqeError(f"a {what} of item {item.external_id!r} ({bad!r}) cannot be written to a table cell as it "
                        f"is: entries are separated by {SEPARATOR!r}" + (" and stripped" if stripped else ""))
    return cell


def _write_xlsx(path: Path, rows: list[list[str]]) -> None:
    from openpyxl import Workbook
    from openpyxl.utils.exceptions import IllegalCharacterError

    workbook = Workbook(write_only=False)
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "suite"
    try:
        for row in [list(COLUMNS), *rows]:
            sheet.append(row)
    except IllegalCharacterError as error:
        raise TsqeError(f"a text of the suite holds a control character that XLSX cannot store ({error}); "
                        f"export as TSV or CSV") from error
    neutralise_workbook(workbook)  # a text that starts with "=" is text, not a formula to evaluate
    with writing(path) as temporary:
        workbook.save(temporary)


def _write_json(path: Path, items: list[_Item], langpair: str) -> None:
    documents = []
    for item in items:
        document: dict[str, Any] = {
            "id": item.external_id, "langpair": langpair, "category": item.category,
            "phenomenon": item.phenomenon, "source_sentence": item.source}
        for polarity, rules in (("positive", item.positive), ("negative", item.negative)):
            patterns = [pattern for pattern, _ in rules]
            document[f"{polarity}_regex"] = patterns[0] if len(patterns) == 1 else patterns or ""
            if any(ignore_case for _, ignore_case in rules):
                document[f"{polarity}_ignore_case"] = [ignore_case for _, ignore_case in rules]
        document["positive_tokens"], document["negative_tokens"] = item.good, item.bad
        if item.references:
            _cell(item, "reference", [text for text, _, _ in item.references], stripped=True)
            document["references"] = [{"text": text, "kind": kind, **({"set": set_name} if set_name != kind else {})}
                                      for text, kind, set_name in item.references]
        if item.comment is not None:
            document["comment"] = item.comment
        documents.append(document)
    with writing(path) as temporary:
        temporary.write_text(json.dumps({"items": documents}, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
