"""A suite and tsqe's scores in google-research/mt-metrics-eval's layout (``tsqe export mtme``), so that
mt-metrics-eval's own tools (``EvalSet(name, lp, path=...)``, ``mtme``) read them.

Written under the folder given (the test set's folder, as ``suite.importers.mtme`` reads it):

- ``sources/LP.txt`` and ``documents/LP.docs`` (``DOMAIN DOCNAME``: the item's category and phenomenon, blanks
  turned into ``_``, ``none`` for an item without one; mt-metrics-eval wants a document's segments together, so a
  phenomenon that comes back after another is written as ``NAME#2``);
- ``references/LP.NAME.txt`` per reference set (mt-metrics-eval's names have no ``.`` or ``-``: they become ``_``;
  an item without a reference in the set gets an empty line, and a set with several references for an item
  keeps the first, both counted);
- ``system-outputs/LP/NAME.txt`` per system (an empty line where a system has no output, counted);
- ``human-scores/LP.NAME.sys.score``: the suite's system-level human scores under the name given, and
  ``human-scores/LP.NAME.seg.score`` its segment-level ones (a block of ``SYSNAME SCORE`` lines per system that
  has any, one per item in order, ``None`` where the system has no score for an item, as mt-metrics-eval writes
  a missing score);
- ``metric-scores/LP/NAME-REF.seg.score``: a block of ``SYSNAME SCORE`` lines per system for every QE system and
  every metric tsqe has cached a score of for every output of the suite (a metric stored as a QE system is
  written once, as the metric). REF is ``src`` for QE, the references a metric used otherwise (``all`` when it
  used every set written); a QE system imported from mt-metrics-eval keeps its own ``NAME-REF``.
  ``metric-scores/LP/tsqe-signatures.tsv`` says which full tsqe signature each file holds (mt-metrics-eval
  reads only ``*.score``). A score that covers only some outputs cannot be written in this
  layout (it has no missing metric scores) and is reported instead.

Names come from the data and become file names (``../../x`` is a legal system name): every system, reference set
and metric is written under its ``suite.file_names`` form (one path component, no blanks, since mt-metrics-eval
splits ``SYSNAME SCORE`` lines on them), and the names that had to change are listed in ``tsqe-names.tsv`` beside
their files (``system-outputs/LP/``, ``references/``, ``metric-scores/LP/``), which ``tsqe import mtme`` reads back
so that the round trip gives the original names. Nothing is written outside the folder given.

Everything is read and checked before the first file is written. Importing the written folder gives the same
suite back (tested), and exporting an imported folder gives its files back.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from store import Database
from store.models import (
    STANDARD_REFERENCE,
    Category,
    HumanScore,
    HumanSegmentScore,
    Item,
    MetricScore,
    Output,
    Phenomenon,
    QEScore,
    QESystem,
    Reference,
    System,
    SystemOutput,
)
from suite.errors import TsqeError
from suite.file_names import FileNames, safe_file_name, write_mapping
from suite.importers.mtme import SOURCE_OF_SCORES
from suite.reading.human_kinds import human_kinds
from suite.safe_export import write_text_files
from suite.suites import find_suite, split_language_pair

NO_PLACE = "none"
SIGNATURES_FILE = "tsqe-signatures.tsv"
NAMES_FILE = "tsqe-names.tsv"
"""Beside the files whose names had to change: file name -> original name (``suite.file_names.write_mapping``)."""
_RESERVED_REFERENCES = ("all", "src")


@dataclass
class MtmeExport:
    """What was written, and what the layout could not hold."""

    folder: Path
    lp: str
    items: int = 0
    references: list[str] = field(default_factory=list)
    systems: int = 0
    human_scores: int = 0
    human_segment_scores: int = 0
    metrics: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def number_text(value: float) -> str:
    """A score as mt-metrics-eval's files write it and as it was read: the shortest text that reads back as the same
    number (Python's ``repr``), without the ``.0`` of a whole number, so that ``10`` comes back as ``10``, not
    ``10.0``, and ``0.1`` as ``0.1``. A number is stored, not its text: one written ``10.0`` comes back as ``10``
    (the same number for every reader), and ``1e-05`` stays in Python's exponent form."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def _name(text: str) -> str:
    return "_".join(text.split()) or NO_PLACE


def _reference_name(name: str) -> str:
    cleaned = re.sub(r"[.\-]", "_", safe_file_name(name, blanks=False))
    return f"ref_{cleaned}" if cleaned in _RESERVED_REFERENCES else cleaned


def export_mtme(db: Database, folder: str | os.PathLike[str], *, lp: str | None = None,
                suite_name: str | None = None, human_name: str = "human") -> MtmeExport:
    """Write the suite into ``folder`` in mt-metrics-eval's layout for the language pair ``lp`` (default: the
    suite's languages); its human scores go under ``human_name`` (e.g. ``wmt-z``), each kind under
    ``human_name-KIND`` (``human-mqm``) when the suite holds several."""
    folder = Path(folder)
    if not human_name or any(c in human_name for c in "./ \t"):
        raise TsqeError(f"a human score's name in mt-metrics-eval's files has no '.', '/' or blank: {human_name!r}")
    with db.session() as session:
        suite = find_suite(session, suite_name)
        lp = lp or f"{suite.source_lang}-{suite.target_lang}"
        split_language_pair(lp)
        if "mul" in lp.split("-"):
            raise TsqeError("mt-metrics-eval's layout holds one language pair: this suite has several (mul)")
        files, export = _files(session, suite.id, lp, human_name)
    export.folder = folder
    write_text_files({folder / relative: "".join(f"{line}\n" for line in lines) for relative, lines in files.items()})
    return export


def _one_line(text: str) -> str:
    return " ".join(text.split("\n")).strip()


def _files(session: Session, suite_id: int, lp: str, human_name: str) -> tuple[dict[str, list[str]], MtmeExport]:
    export = MtmeExport(Path(), lp)
    items = session.execute(select(Item.id, Item.source, Category.name, Phenomenon.name)
                            .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
                            .outerjoin(Category, Category.id == Phenomenon.category_id)
                            .where(Item.suite_id == suite_id).order_by(Item.position, Item.id)).all()
    if not items:
        raise TsqeError("the suite has no items to export")
    export.items = len(items)
    position = {item_id: index for index, (item_id, *_) in enumerate(items)}
    files: dict[str, list[str]] = {f"sources/{lp}.txt": [_one_line(source) for _, source, _, _ in items],
                                   f"documents/{lp}.docs": _documents([(c, p) for _, _, c, p in items])}

    sets: dict[str, list[list[str]]] = defaultdict(lambda: [[] for _ in items])
    kinds: dict[str, set[str]] = defaultdict(set)
    for item_id, set_name, kind, text in session.execute(
            select(Reference.item_id, Reference.set_name, Reference.kind, Reference.text)
            .join(Item, Item.id == Reference.item_id).where(Item.suite_id == suite_id).order_by(Reference.id)):
        sets[set_name][position[item_id]].append(_one_line(text))
        kinds[set_name].add(kind)
    written_names: dict[str, str] = {}
    for set_name, per_item in sets.items():
        name = _reference_name(set_name)
        clash = next((other for other, written in written_names.items() if written == name), None)
        if clash is not None:
            raise TsqeError(f"reference sets {set_name!r} and {clash!r} would both be written as {name!r}: "
                            "rename one")
        written_names[set_name] = name
        files[f"references/{lp}.{name}.txt"] = [texts[0] if texts else "" for texts in per_item]
        missing, several = sum(not texts for texts in per_item), sum(len(texts) > 1 for texts in per_item)
        if missing:
            export.notes.append(f"reference set {set_name!r}: {missing} items without a reference (empty lines)")
        if several:
            export.notes.append(f"reference set {set_name!r}: {several} items with several references (the first "
                                f"written)")
    export.references = list(written_names.values())
    _add_mapping(files, f"references/{lp}.{NAMES_FILE}", {written: name for name, written in written_names.items()
                                                                 if written != name})

    system_names = FileNames(blanks=False)
    systems = {system_id: system_names.of(name) for system_id, name in session.execute(
        select(System.id, System.name).where(System.suite_id == suite_id).order_by(System.name))}
    _add_mapping(files, f"system-outputs/{lp}/{NAMES_FILE}", system_names.mapping())
    produced: dict[int, dict[int, int]] = defaultdict(dict)  # system -> position -> output id
    texts: dict[int, str] = {}
    for system_id, item_id, output_id, text in session.execute(
            select(SystemOutput.system_id, SystemOutput.item_id, SystemOutput.output_id, Output.text)
            .join(Output, Output.id == SystemOutput.output_id).where(SystemOutput.system_id.in_(list(systems)))):
        produced[system_id][position[item_id]] = output_id
        texts[output_id] = text
    for system_id, name in systems.items():
        outputs = produced[system_id]
        files[f"system-outputs/{lp}/{name}.txt"] = [_one_line(texts[outputs[i]]) if i in outputs else ""
                                                     for i in range(len(items))]
        if len(outputs) < len(items):
            export.notes.append(f"system {name!r}: {len(items) - len(outputs)} items without an output (empty lines)")
    export.systems = len(systems)

    held = human_kinds(session, suite_id)
    for kind in held:  # each kind under its own name when the suite holds several
        name_of_kind = human_name if len(held) == 1 else f"{human_name}-{kind}"
        human = session.execute(select(System.id, HumanScore.score).join(HumanScore, HumanScore.system_id == System.id)
                                .where(System.id.in_(list(systems)), HumanScore.kind == kind)
                                .order_by(System.name)).all()
        if human:
            files[f"human-scores/{lp}.{name_of_kind}.sys.score"] = [f"{systems[system_id]} {number_text(score)}"
                                                                    for system_id, score in human]
            export.human_scores += len(human)
        segment_scores: dict[str, dict[int, float]] = defaultdict(dict)
        for system_id, item_id, score in session.execute(
                select(System.id, HumanSegmentScore.item_id, HumanSegmentScore.score)
                .join(HumanSegmentScore, HumanSegmentScore.system_id == System.id)
                .where(System.id.in_(list(systems)), HumanSegmentScore.kind == kind).order_by(System.name)):
            segment_scores[systems[system_id]][position[item_id]] = score
        if segment_scores:
            files[f"human-scores/{lp}.{name_of_kind}.seg.score"] = [
                f"{name} {number_text(by_position[i]) if i in by_position else 'None'}"
                for name, by_position in segment_scores.items() for i in range(len(items))]
            export.human_segment_scores += sum(len(by_position) for by_position in segment_scores.values())

    standard = [written_names[name] for name, k in kinds.items() if STANDARD_REFERENCE in k]
    default_refs = "all" if set(standard) == set(written_names.values()) else ".".join(sorted(standard))
    scored, metric_names = _scored(session, suite_id, written_names, default_refs)
    _add_mapping(files, f"metric-scores/{lp}/{NAMES_FILE}", metric_names)
    signatures: list[str] = []
    for file_name, (signature, by_output) in scored.items():
        unscored = sum(produced[system_id].get(i) not in by_output for system_id in systems for i in range(len(items)))
        if unscored:
            export.notes.append(f"{file_name}: not written, {unscored} system outputs have no score")
            continue
        files[f"metric-scores/{lp}/{file_name}.seg.score"] = [
            f"{name} {number_text(by_output[produced[system_id][i]])}" for system_id, name in systems.items()
            for i in range(len(items))]
        signatures.append(f"{file_name}\t{signature}")
        export.metrics.append(file_name)
    if signatures:
        files[f"metric-scores/{lp}/{SIGNATURES_FILE}"] = ["file\tsignature", *signatures]
    return files, export


def _add_mapping(files: dict[str, list[str]], path: str, mapping: dict[str, str]) -> None:
    if mapping:
        files[path] = write_mapping(mapping).splitlines()


def _documents(places: list[tuple[str | None, str | None]]) -> list[str]:
    """``DOMAIN DOCNAME`` per item; a document's lines together (a phenomenon met again becomes ``NAME#2``)."""
    lines: list[str] = []
    blocks: dict[str, int] = {}
    previous: str | None = None
    for category, phenomenon in places:
        document = _name(phenomenon or NO_PLACE)
        if document != previous:
            blocks[document] = blocks.get(document, 0) + 1
            previous = document
        shown = document if blocks[document] == 1 else f"{document}#{blocks[document]}"
        lines.append(f"{_name(category or NO_PLACE)} {shown}")
    return lines


def _scored(session: Session, suite_id: int, reference_names: dict[str, str],
            default_refs: str) -> tuple[dict[str, tuple[str, dict[int, float]]], dict[str, str]]:
    """mt-metrics-eval file name (``NAME-REF``) -> (tsqe's signature or QE system, scores by output id); and the
    file names that are not the name they stand for (-> that name, e.g. the QE system's)."""
    names = FileNames(blanks=False)
    renamed: dict[str, str] = {}

    def file_name_of(base: str, refs: str) -> str:
        written = f"{names.of(base)}-{safe_file_name(refs, blanks=False).replace('-', '_')}"
        if written != f"{base}-{refs}":
            renamed[written] = f"{base}-{refs}"
        return written

    in_suite = select(Output.id).join(Item, Item.id == Output.item_id).where(Item.suite_id == suite_id)
    found: dict[str, tuple[str, dict[int, float]]] = {}
    cached: dict[str, dict[int, float]] = defaultdict(dict)
    for signature, output_id, score in session.execute(select(MetricScore.signature, MetricScore.output_id,
                                                              MetricScore.score)
                                                       .where(MetricScore.output_id.in_(in_suite))):
        cached[signature][output_id] = score
    for signature, scores in sorted(cached.items()):
        fields = signature.split("|")
        label = next((f.split(":", 1)[1] for f in fields[1:] if f.startswith("refs:")), None)
        refs = _refs(label, reference_names, default_refs)
        if refs is not None:
            found[_unique(file_name_of(fields[0], refs), found, signature)] = (signature, scores)
    for qe_id, qe_name, kind, meta in session.execute(select(QESystem.id, QESystem.name, QESystem.kind,
                                                             QESystem.meta).order_by(QESystem.id)):
        meta = json.loads(meta or "{}")
        if kind == "metric" and meta.get("signature") in cached:
            continue  # a metric stored as a QE system: its scores are the metric's, written above
        scores = dict(session.execute(select(QEScore.output_id, QEScore.score)
                                      .where(QEScore.qe_system_id == qe_id, QEScore.output_id.in_(in_suite))).all())
        if not scores:
            continue
        if meta.get("imported_from") == SOURCE_OF_SCORES and "-" in qe_name:
            file_name = file_name_of(*qe_name.rsplit("-", 1))
        elif kind == "metric":
            refs = _refs(meta.get("refs"), reference_names, default_refs)
            if refs is None:
                continue
            file_name = file_name_of(qe_name, refs)
        else:
            file_name = file_name_of(qe_name, "src")
        found[_unique(file_name, found, qe_name)] = (f"qe:{qe_name}", scores)
    return found, renamed


def _refs(label: str | None, reference_names: dict[str, str], default_refs: str) -> str | None:
    """mt-metrics-eval's REF of a tsqe reference choice (``ar+wmt`` -> ``ar.wmt``; the default, labelled
    ``standard``, -> every standard set written); None when it used references the layout does not hold (the
    items' known good translations)."""
    if not label or label == STANDARD_REFERENCE:
        return default_refs
    names = label.split("+")
    if any(name not in reference_names for name in names):
        return None
    return ".".join(reference_names[name] for name in names)


def _unique(file_name: str, taken: Mapping[str, object], what: str) -> str:
    """``file_name``, or with a short hash of ``what`` in its base name when two scores would share a file."""
    if file_name not in taken:
        return file_name
    base, refs = file_name.rsplit("-", 1)
    return f"{base}_{hashlib.sha256(what.encode('utf-8', 'surrogatepass')).hexdigest()[:6]}-{refs}"
