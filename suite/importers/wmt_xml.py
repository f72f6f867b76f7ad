"""Reading WMT's XML test sets (the wmt-format-tools layout, WMT21 on) into the segments of one test set.

A file is a ``<dataset>`` of ``<doc id= origlang= [testsuite=]>``, each with one ``<src lang=>`` and any
number of ``<ref lang= [translator=]>`` and ``<hyp system= lang=>`` (``wmt-wrap`` writes ``language=``), each
holding ``<p>`` paragraphs of ``<seg id=N>`` (github.com/wmt-conference/wmt-format-tools,
``schema/wmt-schema.rnc``). The segments are read in the order ``wmt-unwrap`` extracts them: documents in file
order, segments by their id within a document, so line N of the unwrapped plain text is segment N here and
both layouts give the same suite.

Documents that belong to a test suite (``testsuite=NAME``; WMT sends them inside the news test set) are left out
of the test set itself, or are all that is read when their test suite is asked for. Several files of one test set
(the sources with references, then each system's returned file) are read together: their documents are matched
by id, and a source repeated in a later file must be the same.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.parsers import expat

from store.domain import NameKind
from store.models import nfc
from suite.importers.limits import MAX_FIELD_CHARS, MAX_WHOLE_FILE_BYTES, size_text
from suite.importers.names import NameChecks
from suite.importers.result import Problems
from suite.references import is_set_name

UNNAMED_REFERENCE = None
"""The set of a ``<ref>`` without a translator."""


@dataclass
class XmlTestSet:
    """The segments of a test set read from XML: sources in order with their (document, segment) ids, and
    every reference set and system as text by segment index (a segment a system or set lacks is absent)."""

    source_lang: str | None = None
    target_lang: str | None = None
    segments: list[tuple[str, int]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    references: dict[str | None, dict[int, str]] = field(default_factory=dict)
    """By translator (None: a ``<ref>`` without one)."""
    systems: dict[str, dict[int, str]] = field(default_factory=dict)
    left_out: set[str] = field(default_factory=set)
    """Ids of the documents of test suites (or, with a test suite chosen, of everything else) not read."""


class _Refused(Exception):
    """What the parser met cannot be read safely: ``message`` says what, at ``line``."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def parse_xml(path: Path, problems: Problems) -> tuple[ET.Element, dict[int, int]] | None:
    """The file's element tree and the line each element starts on (expat's own parser: ElementTree's hides the
    line numbers), for messages that point into the file; texts and attribute values in Unicode NFC.

    The tree is held whole, so the file is bounded as any file read whole (``MAX_WHOLE_FILE_BYTES``), and each
    text as a field (``MAX_FIELD_CHARS``). An entity declaration is refused where it stands, as defusedxml
    does: WMT's files declare none, and a declared entity is how a hostile file expands a few kilobytes to
    gigabytes ("billion laughs") or has the parser read another file (an external entity).
    """
    try:
        size = path.stat().st_size
    except OSError as error:
        problems.error(None, f"cannot read the file: {error.strerror or error}", file=str(path))
        return None
    if size > MAX_WHOLE_FILE_BYTES:
        problems.error(None, f"the file has {size_text(size)}; at most {size_text(MAX_WHOLE_FILE_BYTES)} of XML are "
                             f"read", file=str(path))
        return None
    lines: dict[int, int] = {}
    stack: list[ET.Element] = []
    pieces: list[list[str]] = []
    """Per open element, the parts of its text (expat hands a long text over in parts) and their length."""
    lengths: list[int] = []
    roots: list[ET.Element] = []
    parser = expat.ParserCreate()

    def start(tag: str, attributes: dict[str, str]) -> None:
        element = ET.Element(tag, {name: nfc(value) for name, value in attributes.items()})
        lines[id(element)] = parser.CurrentLineNumber
        if stack:
            stack[-1].append(element)
        else:
            roots.append(element)
        stack.append(element)
        pieces.append([])
        lengths.append(0)

    def end(tag: str) -> None:
        element, parts = stack.pop(), pieces.pop()
        lengths.pop()
        if parts:
            element.text = nfc("".join(parts))

    def text(data: str) -> None:
        if stack and not len(stack[-1]):  # text before any child: a segment's words
            pieces[-1].append(data)
            lengths[-1] += len(data)
            if lengths[-1] > MAX_FIELD_CHARS:
                raise _Refused(parser.CurrentLineNumber, f"<{stack[-1].tag}> holds a text longer than "
                                                         f"{MAX_FIELD_CHARS:,} characters; a segment is one sentence")

    def entity(name: str, *_: object) -> None:
        raise _Refused(parser.CurrentLineNumber, f"the file declares an entity ({name!r}), which WMT's XML never "
                                                 f"does; refused, since an entity can expand to gigabytes or read "
                                                 f"another file")

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, text
    parser.EntityDeclHandler = entity
    try:
        with path.open("rb") as file:
            parser.ParseFile(file)
    except _Refused as refused:
        problems.error(refused.line, refused.message, file=str(path))
        return None
    except expat.ExpatError as error:
        problems.error(error.lineno, f"not well-formed XML: {expat.errors.messages[error.code]} (column "
                                     f"{error.offset + 1})", file=str(path))
        return None
    except OSError as error:
        problems.error(None, f"cannot read the file: {error.strerror or error}", file=str(path))
        return None
    root = roots[0]
    if root.tag != "dataset":
        problems.error(lines.get(id(root)), f"the root element is <{root.tag}>, not <dataset> (WMT's XML test sets "
                                            f"are a <dataset> of <doc>s)", file=str(path))
        return None
    return root, lines


def read_wmt_xml(paths: Sequence[Path], problems: Problems, *, testsuite: str | None = None) -> XmlTestSet:
    """The test set in ``paths`` (its news documents, or with ``testsuite`` that test suite's documents)."""
    found = XmlTestSet()
    index: dict[tuple[str, int], int] = {}
    documents: dict[str, list[int]] = {}
    for path in paths:
        parsed = parse_xml(path, problems)
        if parsed is None:
            continue
        root, lines = parsed
        reader = _FileReader(path, lines, problems, found, index, documents, NameChecks(problems, NameKind.SYSTEM))
        for doc in root.iter("doc"):
            if doc.get("testsuite") != testsuite:
                found.left_out.add(doc.get("id", ""))
                continue
            reader.document(doc)
    if not found.sources and not problems.errors:
        what = f"no document of test suite {testsuite!r}" if testsuite else "no document outside test suites"
        problems.error(None, f"{what} holds a source (<src>)", file=str(paths[0]))
    return found


@dataclass
class _FileReader:
    path: Path
    lines: dict[int, int]
    problems: Problems
    found: XmlTestSet
    index: dict[tuple[str, int], int]
    documents: dict[str, list[int]]
    names: NameChecks

    def error(self, element: ET.Element, message: str) -> None:
        self.problems.error(self.lines.get(id(element)), message, file=str(self.path))

    def warn(self, element: ET.Element, message: str) -> None:
        self.problems.warn(self.lines.get(id(element)), message, file=str(self.path))

    def segments(self, side: ET.Element, doc_id: str) -> dict[int, ET.Element] | None:
        """The side's ``<seg>`` elements by number, in number order (as ``wmt-unwrap`` reads them)."""
        segs: dict[int, ET.Element] = {}
        for seg in side.iter("seg"):
            number = seg.get("id", "")
            if not number.isdigit() or int(number) < 1:
                self.error(seg, f"document {doc_id!r}: a <seg> needs a positive number as its id, not {number!r}")
                return None
            if int(number) in segs:
                self.error(seg, f"document {doc_id!r}: segment {number} appears twice in one <{side.tag}>")
                return None
            segs[int(number)] = seg
        return dict(sorted(segs.items()))

    def language(self, side: ET.Element, which: str) -> None:
        lang = (side.get("lang") or side.get("language") or "").strip().lower() or None
        known = getattr(self.found, which)
        if lang is not None and known is not None and lang != known:
            self.error(side, f"<{side.tag} lang={lang!r}> differs from the language {known!r} read before")
        elif lang is not None:
            setattr(self.found, which, lang)

    def document(self, doc: ET.Element) -> None:
        doc_id = doc.get("id", "").strip()
        if not doc_id:
            self.error(doc, "a <doc> without an id")
            return
        sources = [child for child in doc if child.tag == "src"]
        if len(sources) > 1:
            self.error(sources[1], f"document {doc_id!r} has more than one <src>")
            return
        if sources:
            self.language(sources[0], "source_lang")
            segs = self.segments(sources[0], doc_id)
            if segs is None:
                return
            texts = {number: _text(seg) for number, seg in segs.items()}
            if doc_id in self.documents:
                known = [self.found.sources[i] for i in self.documents[doc_id]]
                if known != list(texts.values()):
                    self.error(sources[0], f"document {doc_id!r}: its source differs from the one read before")
                    return
            else:
                self.documents[doc_id] = []
                for number, text in texts.items():
                    if not text:
                        self.error(segs[number], f"document {doc_id!r}: segment {number} has an empty source")
                    self.index[(doc_id, number)] = len(self.found.sources)
                    self.documents[doc_id].append(len(self.found.sources))
                    self.found.segments.append((doc_id, number))
                    self.found.sources.append(text)
        elif doc_id not in self.documents:
            self.error(doc, f"document {doc_id!r} has no <src> here or in a file read before")
            return
        for side in doc:
            if side.tag == "ref":
                translator = side.get("translator") or UNNAMED_REFERENCE
                if translator is not None and not is_set_name(translator):
                    self.error(side, f"document {doc_id!r}: translator {translator!r} cannot name a reference set "
                                     "(letters, digits, '.', '_' and '-')")
                    continue
                self.translations(side, doc_id, translator, self.found.references, "reference set")
            elif side.tag == "hyp":
                system = (side.get("system") or "").strip()
                if not system:
                    self.error(side, f"document {doc_id!r}: a <hyp> without a system name")
                    continue
                checked = self.names.of(side.get("system") or "", self.lines.get(id(side)), file=str(self.path))
                if checked is None:
                    continue
                system = checked
                self.translations(side, doc_id, system, self.found.systems, "system")

    def translations(self, side: ET.Element, doc_id: str, name: Any, into: dict[Any, dict[int, str]],
                     what: str) -> None:
        self.language(side, "target_lang")
        segs = self.segments(side, doc_id)
        if segs is None:
            return
        target = into.setdefault(name, {})
        shown = "the unnamed reference set" if name is None else f"{what} {name!r}"
        missing = [number for number in self.documents_numbers(doc_id) if number not in segs]
        for number, seg in segs.items():
            position = self.index.get((doc_id, number))
            if position is None:
                self.error(seg, f"document {doc_id!r}: {shown} has segment {number}, which the source has not")
                continue
            if position in target:
                self.error(seg, f"document {doc_id!r}: {shown} translates segment {number} twice")
                continue
            target[position] = _text(seg)
        if missing:
            self.warn(side, f"document {doc_id!r}: {shown} lacks segment(s) {', '.join(map(str, missing))}")

    def documents_numbers(self, doc_id: str) -> list[int]:
        return [self.found.segments[i][1] for i in self.documents.get(doc_id, [])]


def _text(seg: ET.Element) -> str:
    return (seg.text or "").strip()
