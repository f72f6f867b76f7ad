"""Reading the systems' translations of a submitted test suite back through its map
(``suite.exporters.testsuite_submission``): WMT returns each system's output as XML (the source documents with a
``<hyp system=...>``, or every system's in one file) or as plain text, one line per line of the submitted file.

XML documents are matched by their id and segment id, so a returned file may hold anything else besides (the news
test set, other test suites' documents), which is counted and left alone; plain text is matched by line, so it must
be the translation of the submitted plain-text file itself.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from store.domain import NameKind
from suite.importers.limits import MAX_SUITE_ITEMS
from suite.importers.lookups import resolve_item
from suite.importers.names import NameChecks
from suite.importers.result import Problems
from suite.importers.table_files import iter_table, read_lines
from suite.importers.wmt_xml import parse_xml

MAP_COLUMNS = ("line", "doc_id", "seg_id", "item_id")


@dataclass(frozen=True)
class MappedOutput:
    line: int
    item_id: int
    system: str
    text: str


@dataclass
class SubmissionMap:
    """The submitted lines and segments, each with its item (database id)."""

    by_line: dict[int, int] = field(default_factory=dict)
    by_segment: dict[tuple[str, int], int] = field(default_factory=dict)


def read_map(path: Path, item_ids: Mapping[str, int], problems: Problems) -> SubmissionMap:
    """The map's lines and segments, read row by row; a map has a line per item of a suite, so it is bounded as a
    suite file is (``MAX_SUITE_ITEMS``)."""
    problems = problems.for_file(str(path))
    mapped = SubmissionMap()
    for row in iter_table(path, problems, MAP_COLUMNS, max_rows=MAX_SUITE_ITEMS):
        try:
            line, segment = int(row["line"]), int(row["seg_id"])
        except ValueError:
            problems.error(row.line, "line and seg_id are numbers")
            continue
        item_id = resolve_item(item_ids, row["item_id"].strip(), row.line, problems)
        if item_id is None:
            continue
        if line in mapped.by_line:
            problems.error(row.line, f"line {line} is mapped twice")
        mapped.by_line[line] = item_id
        mapped.by_segment[(row["doc_id"].strip(), segment)] = item_id
    if not mapped.by_line and not problems.errors:
        problems.error(None, "the map holds no line")
    return mapped


@dataclass
class ReturnedOutputs:
    rows: list[MappedOutput]
    documents_elsewhere: int = 0
    """Documents of the returned file that are not the suite's (the news test set, other test suites)."""


def returned_outputs(path: Path, mapped: SubmissionMap, system: str | None, problems: Problems) -> ReturnedOutputs:
    """The systems' translations in ``path`` (XML when its name ends in ``.xml``, else plain text of ``system``)."""
    if path.suffix.lower() == ".xml":
        return _from_xml(path, mapped, system, problems)
    return ReturnedOutputs(_from_text(path, mapped, system, problems))


def _from_text(path: Path, mapped: SubmissionMap, system: str | None, problems: Problems) -> list[MappedOutput]:
    if system is None:
        problems.error(None, "a plain-text file of translations needs the name of its system")
        return []
    lines = read_lines(path, problems)
    if lines is None:
        return []
    if len(lines) != len(mapped.by_line):
        problems.error(min(len(lines), len(mapped.by_line)) + 1,
                       f"the file has {len(lines)} lines but the submitted file had {len(mapped.by_line)}: "
                       f"a returned plain-text file translates the submitted one line by line")
        return []
    return [MappedOutput(number, mapped.by_line[number], system, line.strip())
            for number, line in enumerate(lines, start=1)]


def _from_xml(path: Path, mapped: SubmissionMap, system: str | None, problems: Problems) -> ReturnedOutputs:
    parsed = parse_xml(path, problems)
    if parsed is None:
        return ReturnedOutputs([])
    root, lines = parsed
    returned = ReturnedOutputs([])
    seen: dict[tuple[str, int, str], int] = {}
    names = NameChecks(problems, NameKind.SYSTEM)
    for doc in root.iter("doc"):
        doc_id = doc.get("id", "")
        hyps = [side for side in doc if side.tag == "hyp"]
        if not any((doc_id, number) in mapped.by_segment for number in _numbers(doc)):
            returned.documents_elsewhere += 1
            continue
        for hyp in hyps:
            named = system or (hyp.get("system") or "").strip()
            if not named:
                problems.error(lines.get(id(hyp)), f"document {doc_id!r}: a <hyp> without a system name")
                continue
            name = names.of(named, lines.get(id(hyp)))
            if name is None:
                continue
            for seg in hyp.iter("seg"):
                number = seg.get("id", "")
                item_id = mapped.by_segment.get((doc_id, int(number))) if number.isdigit() else None
                line = lines.get(id(seg), 0)
                if item_id is None:
                    problems.error(line, f"document {doc_id!r} has no segment {number!r} in the map")
                    continue
                if (doc_id, int(number), name) in seen:
                    problems.error(line, f"system {name!r} translates document {doc_id!r} segment {number} twice "
                                         f"(first at line {seen[(doc_id, int(number), name)]})")
                    continue
                seen[(doc_id, int(number), name)] = line
                returned.rows.append(MappedOutput(line, item_id, name, (seg.text or "").strip()))
    if not returned.rows and not problems.errors:
        problems.error(None, "no <hyp> translates a document of the map")
    return returned


def _numbers(doc: ET.Element) -> list[int]:
    return [int(n) for seg in doc.iter("seg") if (n := seg.get("id", "")).isdigit()]
