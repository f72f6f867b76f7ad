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

import re
from collections.abc import Iterator, Sequence
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


@dataclass(slots=True)
class XmlSegment:
    """A ``<seg>``: its id as written, its full text content (stripped, NFC) and the line it starts on."""

    id: str
    text: str
    line: int

    @property
    def number(self) -> int | None:
        """The id as a positive number, or None when it is not one (``1``, ``042``; not ``1a``, ``-1``, ``²``, or
        a number of more digits than any test set has segments)."""
        return int(self.id) if _NUMBER.fullmatch(self.id) and int(self.id) > 0 else None


@dataclass(slots=True)
class XmlSide:
    """A ``<src>``, ``<ref>`` or ``<hyp>`` of a document with the segments under it (in ``<p>``s or not)."""

    tag: str
    attributes: dict[str, str]
    line: int
    segments: list[XmlSegment] = field(default_factory=list)

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.attributes.get(name, default)


@dataclass(slots=True)
class XmlDocument:
    """A ``<doc>``: its attributes, line and sides, in file order."""

    attributes: dict[str, str]
    line: int
    sides: list[XmlSide] = field(default_factory=list)

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.attributes.get(name, default)


SIDES = ("src", "ref", "hyp")
CHUNK_BYTES = 1 << 20
"""Bytes handed to the parser at a time: a document is passed on as soon as it is closed, so that the memory of
reading a file is that of what is kept from it, never that of its elements."""
MAX_DEPTH = 64
"""Elements open at once (WMT's deepest is ``dataset/doc/src/p/seg``, a few more with inline markup)."""
_NUMBER = re.compile("[0-9]{1,12}")


class _Refused(Exception):
    """What the parser met cannot be read safely: ``message`` says what, at ``line``."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def read_documents(path: Path, problems: Problems) -> Iterator[XmlDocument]:
    """The file's ``<doc>``s one by one as the file is read (expat's own parser, fed a chunk at a time: ElementTree's
    hides the line numbers), each with its sides and segments; texts and attribute values in Unicode NFC. What
    stands outside a side's segments (``<p>``, whitespace, anything else) is passed over, not kept, so that a file
    of millions of empty elements costs no memory; a problem is reported and ends the documents.

    A segment's text is its full text content: inline markup (``<seg>Hello <b>big</b> wide world.</seg>``) keeps
    every word and loses its tags, and a warning counts the segments that had any. Refusing them would stop a file
    that is right about its words; reading only the text before the first tag, as ElementTree's ``.text`` does,
    drops words without a word. WMT's schema has no markup in segments, so the warning says which were read so.

    The test set read is held in memory, so the file is bounded as any file read whole (``MAX_WHOLE_FILE_BYTES``)
    and each text as a field (``MAX_FIELD_CHARS``). An entity declaration is refused where it stands, as defusedxml
    does: WMT's files declare none, and a declared entity is how a hostile file expands a few kilobytes to
    gigabytes ("billion laughs") or has the parser read another file (an external entity). A DOCTYPE naming an
    external DTD is refused as well, and so is any entity reference left unexpanded: expat reads no external DTD
    and would silently drop the text of an entity one defines, leaving an empty or shortened segment.
    """
    try:
        size = path.stat().st_size
    except OSError as error:
        problems.error(None, f"cannot read the file: {error.strerror or error}", file=str(path))
        return
    if size > MAX_WHOLE_FILE_BYTES:
        problems.error(None, f"the file has {size_text(size)}; at most {size_text(MAX_WHOLE_FILE_BYTES)} of XML are "
                             f"read", file=str(path))
        return
    reader = _StreamReader(path)
    try:
        with path.open("rb") as file:
            while chunk := file.read(CHUNK_BYTES):
                reader.parser.Parse(chunk, False)
                yield from reader.take()
            reader.parser.Parse(b"", True)
            yield from reader.take()
    except _Refused as refused:
        problems.error(refused.line, refused.message, file=str(path))
        return
    except expat.ExpatError as error:
        problems.error(error.lineno, f"not well-formed XML: {expat.errors.messages[error.code]} (column "
                                     f"{error.offset + 1})", file=str(path))
        return
    except OSError as error:
        problems.error(None, f"cannot read the file: {error.strerror or error}", file=str(path))
        return
    if reader.marked_up:
        first = reader.first_markup
        problems.warn(first[0], f"{reader.marked_up:,} segment(s) hold markup (the first <{first[1]}> here); read "
                                f"as their text content, every word kept and the tags left out", file=str(path))


class _StreamReader:
    """expat's handlers: builds the document being read and hands each over when it is closed (``take``)."""

    def __init__(self, path: Path) -> None:
        self.parser = expat.ParserCreate()
        self.path = path
        self.depth = 0
        self.root_seen = False
        self.document: XmlDocument | None = None
        self.document_depth = 0
        self.side: XmlSide | None = None
        self.segment_line = 0
        self.segment_id: str | None = None
        self.segment_depth = 0
        self.pieces: list[str] = []
        self.length = 0
        self.ready: list[XmlDocument] = []
        self.marked_up = 0
        self.segment_marked = False
        self.first_markup: tuple[int, str] = (0, "")
        parser = self.parser
        parser.StartElementHandler, parser.EndElementHandler = self.start, self.end
        parser.CharacterDataHandler = self.text
        parser.EntityDeclHandler = self.entity
        parser.SkippedEntityHandler = self.skipped
        parser.StartDoctypeDeclHandler = self.doctype

    def take(self) -> list[XmlDocument]:
        ready, self.ready = self.ready, []
        return ready

    def line(self) -> int:
        return int(self.parser.CurrentLineNumber)

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Refused(self.line(), f"elements are nested more than {MAX_DEPTH} deep; WMT's XML nests a few")
        if not self.root_seen:
            self.root_seen = True
            if tag != "dataset":
                raise _Refused(self.line(), f"the root element is <{tag}>, not <dataset> (WMT's XML test sets are a "
                                            f"<dataset> of <doc>s)")
            return
        if self.segment_id is not None:  # inline markup: its text is the segment's
            if tag == "seg":
                raise _Refused(self.line(), "a <seg> inside a <seg>")
            if not self.segment_marked:
                self.segment_marked = True
                self.marked_up += 1
                if self.marked_up == 1:
                    self.first_markup = (self.line(), tag)
            return
        if tag == "doc":
            if self.document is not None:
                raise _Refused(self.line(), "a <doc> inside a <doc>")
            self.document = XmlDocument(_nfc_attributes(attributes), self.line())
            self.document_depth = self.depth
        elif self.document is not None and self.side is None and tag in SIDES \
                and self.depth == self.document_depth + 1:
            self.side = XmlSide(tag, _nfc_attributes(attributes), self.line())
        elif tag == "seg" and self.side is not None:
            self.segment_id = nfc(attributes.get("id", "")).strip()
            self.segment_line, self.segment_depth = self.line(), self.depth
            self.pieces, self.length, self.segment_marked = [], 0, False

    def end(self, tag: str) -> None:
        depth, self.depth = self.depth, self.depth - 1
        if self.segment_id is not None:
            if depth == self.segment_depth:
                assert self.side is not None
                self.side.segments.append(XmlSegment(self.segment_id, nfc("".join(self.pieces)).strip(),
                                                     self.segment_line))
                self.segment_id, self.pieces = None, []
            return
        if self.side is not None and depth == self.document_depth + 1:
            assert self.document is not None
            self.document.sides.append(self.side)
            self.side = None
        elif self.document is not None and depth == self.document_depth:
            self.ready.append(self.document)
            self.document = None

    def text(self, data: str) -> None:
        if self.segment_id is None:
            return
        self.pieces.append(data)
        self.length += len(data)
        if self.length > MAX_FIELD_CHARS:
            raise _Refused(self.line(), f"<seg> holds a text longer than {MAX_FIELD_CHARS:,} characters; a segment "
                                        f"is one sentence")

    def entity(self, name: str, *_: object) -> None:
        raise _Refused(self.line(), f"the file declares an entity ({name!r}), which WMT's XML never does; refused, "
                                    f"since an entity can expand to gigabytes or read another file")

    def skipped(self, name: str, _is_parameter: int) -> None:
        raise _Refused(self.line(), f"the entity &{name}; is not defined in the file; refused, since its text would "
                                    f"be lost")

    def doctype(self, name: str, system_id: str | None, public_id: str | None, _internal: int) -> None:
        if system_id or public_id:
            dtd = system_id or public_id
            raise _Refused(self.line(), f"the file's DOCTYPE names an external DTD ({dtd!r}), which tsqe does not "
                                        f"read; refused, since the entities it defines would be lost (WMT's XML has "
                                        f"no DOCTYPE)")


def _nfc_attributes(attributes: dict[str, str]) -> dict[str, str]:
    return {name: nfc(value) for name, value in attributes.items()}


def read_wmt_xml(paths: Sequence[Path], problems: Problems, *, testsuite: str | None = None) -> XmlTestSet:
    """The test set in ``paths`` (its news documents, or with ``testsuite`` that test suite's documents)."""
    found = XmlTestSet()
    index: dict[tuple[str, int], int] = {}
    documents: dict[str, list[int]] = {}
    for path in paths:
        reader = _FileReader(path, problems, found, index, documents, NameChecks(problems, NameKind.SYSTEM))
        for doc in read_documents(path, problems):
            if doc.get("testsuite") != testsuite:
                found.left_out.add(doc.get("id", "") or "")
                continue
            reader.document(doc)
    if not found.sources and not problems.errors:
        what = f"no document of test suite {testsuite!r}" if testsuite else "no document outside test suites"
        problems.error(None, f"{what} holds a source (<src>)", file=str(paths[0]))
    return found


def numbered_segments(side: XmlSide, doc_id: str, problems: Problems, path: Path) -> dict[int, XmlSegment] | None:
    """The side's segments by number, in number order (as ``wmt-unwrap`` reads them), or None after reporting a
    segment whose id is not a positive number or is repeated."""
    segs: dict[int, XmlSegment] = {}
    for seg in side.segments:
        number = seg.number
        if number is None:
            problems.error(seg.line, f"document {doc_id!r}: a <seg> needs a positive number as its id, not "
                                     f"{seg.id!r}", file=str(path))
            return None
        if number in segs:
            problems.error(seg.line, f"document {doc_id!r}: segment {number} appears twice in one <{side.tag}>",
                           file=str(path))
            return None
        segs[number] = seg
    return dict(sorted(segs.items()))


@dataclass
class _FileReader:
    path: Path
    problems: Problems
    found: XmlTestSet
    index: dict[tuple[str, int], int]
    documents: dict[str, list[int]]
    names: NameChecks

    def error(self, line: int, message: str) -> None:
        self.problems.error(line, message, file=str(self.path))

    def warn(self, line: int, message: str) -> None:
        self.problems.warn(line, message, file=str(self.path))

    def language(self, side: XmlSide, which: str) -> None:
        lang = (side.get("lang") or side.get("language") or "").strip().lower() or None
        known = getattr(self.found, which)
        if lang is not None and known is not None and lang != known:
            self.error(side.line, f"<{side.tag} lang={lang!r}> differs from the language {known!r} read before")
        elif lang is not None:
            setattr(self.found, which, lang)

    def document(self, doc: XmlDocument) -> None:
        doc_id = (doc.get("id") or "").strip()
        if not doc_id:
            self.error(doc.line, "a <doc> without an id")
            return
        sources = [side for side in doc.sides if side.tag == "src"]
        if len(sources) > 1:
            self.error(sources[1].line, f"document {doc_id!r} has more than one <src>")
            return
        if sources:
            self.language(sources[0], "source_lang")
            segs = numbered_segments(sources[0], doc_id, self.problems, self.path)
            if segs is None:
                return
            texts = {number: seg.text for number, seg in segs.items()}
            if doc_id in self.documents:
                known = [self.found.sources[i] for i in self.documents[doc_id]]
                if known != list(texts.values()):
                    self.error(sources[0].line, f"document {doc_id!r}: its source differs from the one read before")
                    return
            else:
                self.documents[doc_id] = []
                for number, text in texts.items():
                    if not text:
                        self.error(segs[number].line, f"document {doc_id!r}: segment {number} has an empty source")
                    self.index[(doc_id, number)] = len(self.found.sources)
                    self.documents[doc_id].append(len(self.found.sources))
                    self.found.segments.append((doc_id, number))
                    self.found.sources.append(text)
        elif doc_id not in self.documents:
            self.error(doc.line, f"document {doc_id!r} has no <src> here or in a file read before")
            return
        for side in doc.sides:
            if side.tag == "ref":
                translator = side.get("translator") or UNNAMED_REFERENCE
                if translator is not None and not is_set_name(translator):
                    self.error(side.line, f"document {doc_id!r}: translator {translator!r} cannot name a reference "
                                          "set (letters, digits, '.', '_' and '-')")
                    continue
                self.translations(side, doc_id, translator, self.found.references, "reference set")
            elif side.tag == "hyp":
                named = (side.get("system") or "").strip()
                if not named:
                    self.error(side.line, f"document {doc_id!r}: a <hyp> without a system name")
                    continue
                checked = self.names.of(named, side.line, file=str(self.path))
                if checked is None:
                    continue
                system = checked
                self.translations(side, doc_id, system, self.found.systems, "system")

    def translations(self, side: XmlSide, doc_id: str, name: Any, into: dict[Any, dict[int, str]],
                     what: str) -> None:
        self.language(side, "target_lang")
        segs = numbered_segments(side, doc_id, self.problems, self.path)
        if segs is None:
            return
        target = into.setdefault(name, {})
        shown = "the unnamed reference set" if name is None else f"{what} {name!r}"
        missing = [number for number in self.documents_numbers(doc_id) if number not in segs]
        for number, seg in segs.items():
            position = self.index.get((doc_id, number))
            if position is None:
                self.error(seg.line, f"document {doc_id!r}: {shown} has segment {number}, which the source has not")
                continue
            if position in target:
                self.error(seg.line, f"document {doc_id!r}: {shown} translates segment {number} twice")
                continue
            target[position] = seg.text
        if missing:
            self.warn(side.line, f"document {doc_id!r}: {shown} lacks segment(s) {', '.join(map(str, missing))}")

    def documents_numbers(self, doc_id: str) -> list[int]:
        return [self.found.segments[i][1] for i in self.documents.get(doc_id, [])]
