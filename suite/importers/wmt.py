"""A WMT test set (newstest source, reference(s), one output file per system, or WMT's XML files) imported as a
suite.

The items of such a suite have references and no rules: they feed the metric-based filters (variance-aware
filtering, difficulty-aware BERTScore) rather than the rule-based labelling. Item ids are the 1-based line
numbers, so an item can be found in the original files; positions are 0-based line indices, the ids used by
the released Variance-Aware Test sets.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from store import Database
from store.domain import NameKind
from store.models import STANDARD_REFERENCE, Item, Suite, System
from suite.editing.history import check_author
from suite.editing.item_edit import default_author
from suite.errors import Problem, TsqeError
from suite.importers.names import NameChecks, given_name
from suite.importers.outputs import CHUNK, ImportedOutput, OutputWriter, output_chunks
from suite.importers.result import ImportResult, Problems
from suite.importers.suite_import import place_ids
from suite.importers.table_files import read_lines
from suite.importers.wmt_xml import read_wmt_xml
from suite.references import add_reference_set, check_set_name, is_set_name
from suite.tasks import TaskState, progress_of

LANGUAGE_PAIR = re.compile(r"^([A-Za-z]{2,3})-([A-Za-z]{2,3})$")


@dataclass(frozen=True)
class SystemFile:
    path: Path
    name: str
    languages: tuple[str, str]


def system_file(path: Path) -> tuple[str, tuple[str, str]] | None:
    """System name and language pair of a WMT system output file, or None when the name says neither.

    Two namings: ``<testset>.<SYSTEM>.<src>-<tgt>`` (WMT's submitted-data packages to 2020, whose SYSTEM part is
    exactly the name in WMT's human-score files: ``newstest2019.MSRA.MADL.6910.de-en`` -> ``MSRA.MADL.6910``) and
    ``<testset>.<src>-<tgt>.hyp.<SYSTEM>.<tgt>`` (WMT21's plain-text release,
    ``newstest2021.de-en.hyp.UEdin.en``). The SYSTEM part may hold dots.
    """
    parts = path.name.split(".")
    if len(parts) >= 5 and parts[2] == "hyp" and (pair := LANGUAGE_PAIR.match(parts[1])) is not None \
            and parts[-1].lower() == pair.group(2).lower() and parts[0]:
        return ".".join(parts[3:-1]), (pair.group(1).lower(), pair.group(2).lower())
    if len(parts) < 3:
        return None
    pair = LANGUAGE_PAIR.match(parts[-1])
    name = ".".join(parts[1:-1])
    if pair is None or not parts[0] or not name.strip("."):
        return None
    return name, (pair.group(1).lower(), pair.group(2).lower())


def reference_file_set(path: Path) -> str | None:
    """The reference set a plain-text reference file names: NAME of WMT21's ``<testset>.<src>-<tgt>.ref.NAME.<tgt>``
    (``newstest2021.de-en.ref.A.en`` -> ``A``, the translator of WMT's XML files); None for other names (its
    references join the ``standard`` set)."""
    parts = path.name.split(".")
    if len(parts) == 5 and parts[2] == "ref" and (pair := LANGUAGE_PAIR.match(parts[1])) is not None \
            and parts[-1].lower() == pair.group(2).lower() and is_set_name(parts[3]):
        return parts[3]
    return None


def reference_set_name(path: Path) -> str:
    """The set name a reference file gives when none is named: NAME of WMT21's file names
    (:func:`reference_file_set`), else the file name without its last suffix, with characters a set name cannot
    hold replaced by ``_`` (``wmt19-ende-ar.ref`` -> ``wmt19-ende-ar``)."""
    named = reference_file_set(path)
    if named is not None:
        return named
    stem = path.stem if path.suffix else path.name
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", stem).lstrip("._-")[:100]
    return cleaned or "ref"


def expand_system_paths(paths: Sequence[Path]) -> list[Path]:
    """Files as given, directories replaced by their (non-hidden) files in name order."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")))
        else:
            files.append(path)
    return files


@dataclass(frozen=True)
class TestSet:
    """A test set as the suite gets it, whichever layout it came in: its sources in order, its references (a
    set name, None for an unnamed one, and text by source index) and each system's outputs by source index."""

    source_lang: str
    target_lang: str
    sources: list[str]
    references: list[tuple[str | None, dict[int, str]]]
    systems: Mapping[str, Mapping[int, str]]
    """Each system's outputs by source index; a mapping that reads a system's file when asked for it keeps one
    system in memory at a time (``add_test_set`` asks for each once)."""
    places: list[tuple[str, str]] = field(default_factory=list)
    """(category, phenomenon) per source, or none at all (a test set without documents)."""
    external_ids: list[str] = field(default_factory=list)
    """The items' ids per source, or none: the 1-based line numbers (an MQM file names its segments itself)."""


class SystemOutputs(Mapping[str, dict[int, str]]):
    """Each system's outputs (by source index, stripped), read from its file when asked for: ``add_test_set``
    writes one system at a time, so a folder of 20 systems holds one system's outputs, not all of them (every
    output held at once: 800 MB for eight systems' plain-text files of 193 MB). The files were checked by the
    importer; one that changed since is refused (the import's transaction rolls back)."""

    def __init__(self, files: dict[str, Path], segments: int) -> None:
        self._files = files
        self._segments = segments

    def __getitem__(self, system: str) -> dict[int, str]:
        path = self._files[system]
        problems = Problems(str(path))
        lines = read_lines(path, problems, file=str(path))
        problems.raise_if_any()
        if lines is None or len(lines) != self._segments:
            raise TsqeError(f"{path}: the file changed while it was imported (it has {len(lines or [])} lines, the "
                            f"test set {self._segments}); nothing was changed")
        return {index: line.strip() for index, line in enumerate(lines)}

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


def import_wmt(db: Database, *, src: Path, refs: Sequence[Path], systems: Sequence[Path], name: str,
               ref_names: Sequence[str] = (), source_lang: str | None = None, target_lang: str | None = None,
               task: TaskState | None = None) -> ImportResult:
    """Create suite ``name`` from a WMT test set; every file is checked before anything is written.

    Each reference file is a reference set (kind standard) named by ``ref_names`` (in the files' order) or
    by the file (:func:`reference_set_name`)."""
    task = progress_of(task)
    problems = Problems(str(src))
    name = given_name(name, NameKind.SUITE, problems)
    if not refs:
        raise TsqeError("a WMT test set needs at least one reference file")
    if ref_names and len(ref_names) != len(refs):
        raise TsqeError(f"{len(ref_names)} reference set names for {len(refs)} reference files: name each file's "
                        "set, in the files' order")
    set_names = [check_set_name(n) for n in ref_names] if ref_names else [reference_set_name(p) for p in refs]
    repeated = sorted({n for n in set_names if set_names.count(n) > 1})
    if repeated:
        raise TsqeError(f"reference set name(s) {', '.join(repeated)} given to several files: name them apart")
    system_paths = expand_system_paths(systems)
    if not system_paths:
        raise TsqeError("a WMT test set needs at least one system output file (none was given or found)")

    task.progress(0, 2, "reading the WMT test set")
    sources = read_lines(src, problems, file=str(src))
    references = [read_lines(path, problems, file=str(path)) for path in refs]
    parsed = _system_files(system_paths, problems)
    languages = _languages(parsed, source_lang, target_lang, problems)

    if sources is not None:
        for number, line in enumerate(sources, start=1):
            if not line.strip():
                problems.error(number, "empty source line")
        for path, lines in zip(refs, references):
            if lines is not None:
                _check_aligned(path, lines, src, len(sources), problems)
                for number, line in enumerate(lines, start=1):
                    if not line.strip():
                        problems.error(number, "empty reference line", file=str(path))
        for file in parsed:  # checked here, read again as they are written (``SystemOutputs``)
            lines = read_lines(file.path, problems, file=str(file.path))
            if lines is not None:
                _check_aligned(file.path, lines, src, len(sources), problems)
            del lines
    problems.raise_if_any()
    assert sources is not None and languages is not None
    test_set = TestSet(languages[0], languages[1], [line.strip() for line in sources],
                       [(set_name, {index: text.strip() for index, text in enumerate(lines or [])})
                        for set_name, lines in zip(set_names, references)],
                       SystemOutputs({file.name: file.path for file in parsed}, len(sources)))
    task.progress(1, 2, "writing the WMT test set")
    return write_test_set(db, name, test_set, problems.warnings, task)


def import_wmt_xml(db: Database, paths: Sequence[Path], *, name: str, testsuite: str | None = None,
                   source_lang: str | None = None, target_lang: str | None = None,
                   task: TaskState | None = None) -> ImportResult:
    """Create suite ``name`` from WMT XML files (``suite.importers.wmt_xml``): the sources, every reference set
    (named by its translator) and every system; with ``testsuite``, that test suite's documents instead of the
    test set's own."""
    task = progress_of(task)
    if not paths:
        raise TsqeError("name at least one XML file of the test set")
    problems = Problems(str(paths[0]))
    name = given_name(name, NameKind.SUITE, problems)
    task.progress(0, 2, "reading the WMT XML test set")
    found = read_wmt_xml(paths, problems, testsuite=testsuite)
    chosen = (source_lang or found.source_lang, target_lang or found.target_lang)
    for given, read, side in ((source_lang, found.source_lang, "source"), (target_lang, found.target_lang, "target")):
        if given is not None and read is not None and given != read:
            problems.error(None, f"the files' {side} language is {read!r}, not {given!r}")
    if not problems.errors and (chosen[0] is None or chosen[1] is None):
        problems.error(None, "the files name no " + ("source" if chosen[0] is None else "target") +
                       " language: give it")
    if not problems.errors and not found.systems:
        problems.error(None, "the files hold no system output (<hyp system=...>)")
    problems.raise_if_any()
    assert chosen[0] is not None and chosen[1] is not None
    test_set = TestSet(chosen[0], chosen[1], found.sources, list(found.references.items()), found.systems)
    task.progress(1, 2, "writing the WMT XML test set")
    result = write_test_set(db, name, test_set, problems.warnings, task)
    result.counts["documents_left_out"] = len(found.left_out)
    return result


def write_test_set(db: Database, name: str, test_set: TestSet, warnings: list[Problem],
                   task: TaskState) -> ImportResult:
    """Create the suite ``name`` holding ``test_set``: items 1..N (their line numbers), references, systems."""
    with db.transaction() as session:
        written = add_test_set(session, name, test_set)
        task.progress(2, 2, "WMT test set imported")  # before the commit: a cancel here still changes nothing
    return ImportResult(counts=written.counts, warnings=warnings)


@dataclass(frozen=True)
class WrittenTestSet:
    """What ``add_test_set`` wrote, for a caller that writes more with it (scores of its outputs, which it finds
    through the system outputs of ``system_ids`` and ``item_ids``)."""

    suite_id: int
    item_ids: dict[int, int]
    """Source index -> item id."""
    system_ids: dict[str, int]
    counts: dict[str, int]


def add_test_set(session: Session, name: str, test_set: TestSet) -> WrittenTestSet:
    """:func:`write_test_set` inside the caller's transaction.

    The outputs go through the outputs importer's writer a system at a time and a chunk at a time, so that only
    the system being written need be held (``TestSet.systems`` may read each from its file when asked): one list
    of every output and system output cost an mt-metrics-eval folder of 50 MB 800 MB (issue 27)."""
    sources = test_set.sources
    if session.scalar(select(Suite.id).where(Suite.name == name)) is not None:
        raise TsqeError(f"a suite named {name!r} already exists: import the test set under another name")
    suite = Suite(name=name, source_lang=test_set.source_lang, target_lang=test_set.target_lang)
    session.add(suite)
    session.flush()
    places = place_ids(session, suite.id, list(dict.fromkeys(test_set.places))) if test_set.places else {}
    for start in range(0, len(sources), CHUNK):
        session.execute(insert(Item), [
            {"suite_id": suite.id, "position": index, "source": sources[index],
             "external_id": test_set.external_ids[index] if test_set.external_ids else str(index + 1),
             "phenomenon_id": places[test_set.places[index]] if test_set.places else None}
            for index in range(start, min(start + CHUNK, len(sources)))])
    item_ids = dict(session.execute(select(Item.position, Item.id).where(Item.suite_id == suite.id)).all())
    sets: dict[str, dict[int, list[str]]] = {}
    for set_name, texts in test_set.references:  # unnamed references pool in the set named after their kind
        pooled = sets.setdefault(set_name or STANDARD_REFERENCE, {})
        for index, text in sorted(texts.items()):
            pooled.setdefault(item_ids[index], []).append(text)
    references = sum(add_reference_set(session, suite.id, set_name, STANDARD_REFERENCE, by_item)
                     for set_name, by_item in sets.items())
    session.execute(insert(System), [{"suite_id": suite.id, "name": system} for system in test_set.systems])
    writer = OutputWriter(session, suite.id, check_author(default_author()))  # a new suite: nothing is replaced
    for system, outputs in test_set.systems.items():
        for chunk in output_chunks(ImportedOutput(index + 1, item_ids[index], system, text)
                                   for index, text in outputs.items()):
            writer.write(chunk)
        del outputs  # the next system's outputs are read while this one's are no longer needed
    written = writer.finish()
    counts = {"items": len(sources), "references": references, "reference_sets": len(sets),
              "systems": len(test_set.systems), "system_outputs": written["system_outputs_added"],
              "distinct_outputs": written["distinct_outputs"]}
    return WrittenTestSet(suite.id, item_ids, dict(writer.system_ids), counts)


def _system_files(paths: Sequence[Path], problems: Problems) -> list[SystemFile]:
    files: list[SystemFile] = []
    seen: dict[str, Path] = {}
    names = NameChecks(problems, NameKind.SYSTEM)
    for path in paths:
        parsed = system_file(path)
        if parsed is None:
            problems.error(None, f"cannot take a system name from the file name {path.name!r}: expected "
                              "<testset>.<SYSTEM>.<src>-<tgt>, e.g. newstest2019.Facebook_FAIR.6750.de-en, or "
                              "<testset>.<src>-<tgt>.hyp.<SYSTEM>.<tgt>, e.g. newstest2021.de-en.hyp.UEdin.en",
                           file=str(path))
            continue
        named, languages = parsed
        name = names.of(named, None, file=str(path))
        if name is None:
            continue
        if name in seen:
            problems.error(None, f"system {name!r} also comes from {seen[name]}; each system needs one file",
                           file=str(path))
            continue
        seen[name] = path
        files.append(SystemFile(path, name, languages))
    return files


def _languages(files: Sequence[SystemFile], source_lang: str | None, target_lang: str | None,
               problems: Problems) -> tuple[str, str] | None:
    """The pair named by the options, which every system file's pair must agree with."""
    pairs = {file.languages for file in files}
    if len(pairs) > 1:
        for file in files:
            problems.error(None, f"language pair {'-'.join(file.languages)} differs from the other files' "
                              f"({', '.join(sorted('-'.join(p) for p in pairs))})", file=str(file.path))
        return None
    found = next(iter(pairs), None)
    chosen = (source_lang or (found[0] if found else None), target_lang or (found[1] if found else None))
    if found is not None and chosen != found:
        problems.error(None, f"the system files are {'-'.join(found)} but the languages given are "
                          f"{chosen[0]}-{chosen[1]}", file=str(files[0].path))
        return None
    if chosen[0] is None or chosen[1] is None:
        return None
    return chosen[0], chosen[1]


def _check_aligned(path: Path, lines: Sequence[str], src: Path, expected: int, problems: Problems) -> None:
    if len(lines) != expected:
        problems.error(min(len(lines), expected) + 1,
                       f"has {len(lines)} lines but the source {src} has {expected}; the files must be "
                       "line-aligned", file=str(path))
