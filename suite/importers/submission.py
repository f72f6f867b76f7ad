"""Reading the systems' translations of a submitted test suite back through its map
(``suite.exporters.testsuite_submission``): WMT returns each system's output as XML (the source documents with a
``<hyp system=...>``, or every system's in one file) or as plain text, one line per line of the submitted file.

XML documents are matched by their id and segment id, so a returned file may hold anything else besides (the news
test set, other test suites' documents), which is counted and left alone; plain text is matched by line, so it must
be the translation of the submitted plain-text file itself.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from store.domain import NameKind
from suite.importers.limits import MAX_SUITE_ITEMS
from suite.importers.lookups import resolve_item
from suite.importers.names import NameChecks
from suite.importers.result import Problems
from suite.importers.table_files import iter_table, read_lines
from suite.importers.wmt_xml import read_documents

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
    """The ``<hyp>`` segments of the map's documents, read as the test set's XML is (``read_documents``: each
    segment's full text content, entities and external DTDs refused, one document in memory at a time)."""
    returned = ReturnedOutputs([])
    seen: dict[tuple[str, int, str], int] = {}
    names = NameChecks(problems, NameKind.SYSTEM)
    for doc in read_documents(path, problems):
        doc_id = doc.get("id") or ""
        segments = [seg for side in doc.sides for seg in side.segments]
        if not any((doc_id, seg.number) in mapped.by_segment for seg in segments):
            returned.documents_elsewhere += 1
            continue
        for hyp in (side for side in doc.sides if side.tag == "hyp"):
            named = system or (hyp.get("system") or "").strip()
            if not named:
                problems.error(hyp.line, f"document {doc_id!r}: a <hyp> without a system name")
                continue
            name = names.of(named, hyp.line)
            if name is None:
                continue
            for seg in hyp.segments:
                number = seg.number
                if number is None:
                    problems.error(seg.line, f"document {doc_id!r}: a <seg> needs a positive number as its id, not "
                                             f"{seg.id!r}")
                    continue
                item_id = mapped.by_segment.get((doc_id, number))
                if item_id is None:
                    problems.error(seg.line, f"document {doc_id!r} has no segment {seg.id!r} in the map")
                    continue
                if (doc_id, number, name) in seen:
                    problems.error(seg.line, f"system {name!r} translates document {doc_id!r} segment {number} "
                                             f"twice (first at line {seen[(doc_id, number, name)]})")
                    continue
                seen[(doc_id, number, name)] = seg.line
                returned.rows.append(MappedOutput(seg.line, item_id, name, seg.text))
    if not returned.rows and not problems.errors:
        problems.error(None, "no <hyp> translates a document of the map")
    return returned
