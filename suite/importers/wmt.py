"""A WMT test set (newstest source, reference(s), one output file per system) imported as a suite.

The items of such a suite have references and no rules: they feed the metric-based filters (variance-aware
filtering, difficulty-aware BERTScore) rather than the rule-based labelling. Item ids are the 1-based line
numbers, so an item can be found in the original files; positions are 0-based line indices, the ids used by
the released Variance-Aware Test sets.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import insert, select

from store import Database
from store.models import Item, Output, Reference, Suite, System, SystemOutput
from suite.errors import TsqeError
from suite.importers.result import ImportResult, Problems
from suite.importers.tables import read_text, split_lines
from suite.label_counts import add_unlabelled
from suite.tasks import TaskState, progress_of

LANGUAGE_PAIR = re.compile(r"^([A-Za-z]{2,3})-([A-Za-z]{2,3})$")


@dataclass(frozen=True)
class SystemFile:
    path: Path
    name: str
    languages: tuple[str, str]


def read_lines(path: Path, problems: Problems) -> list[str] | None:
    """The lines of a UTF-8 text file, split on newline only (``suite.importers.tables.split_lines``: WMT texts
    may contain characters that ``str.splitlines`` treats as line breaks, which would misalign a system's outputs
    with the source); problems are reported as the file's own."""
    text = read_text(path, problems, file=str(path))
    if text is None:
        return None
    if not text.strip():
        problems.error(None, "the file is empty", file=str(path))
        return None
    return split_lines(text)


def system_file(path: Path) -> tuple[str, tuple[str, str]] | None:
    """System name and language pair of ``<testset>.<SYSTEM>.<src>-<tgt>`` (the SYSTEM part may hold dots).

    This is the naming of WMT's submitted-data packages, and its SYSTEM part is exactly the name used in
    WMT's human-score files (``newstest2019.MSRA.MADL.6910.de-en`` -> ``MSRA.MADL.6910``).
    """
    parts = path.name.split(".")
    if len(parts) < 3:
        return None
    pair = LANGUAGE_PAIR.match(parts[-1])
    name = ".".join(parts[1:-1])
    if pair is None or not parts[0] or not name.strip("."):
        return None
    return name, (pair.group(1).lower(), pair.group(2).lower())


def expand_system_paths(paths: Sequence[Path]) -> list[Path]:
    """Files as given, directories replaced by their (non-hidden) files in name order."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith(".")))
        else:
            files.append(path)
    return files


def import_wmt(db: Database, *, src: Path, refs: Sequence[Path], systems: Sequence[Path], name: str,
               source_lang: str | None = None, target_lang: str | None = None,
               task: TaskState | None = None) -> ImportResult:
    """Create suite ``name`` from a WMT test set; every file is checked before anything is written."""
    task = progress_of(task)
    problems = Problems(str(src))
    if not refs:
        raise TsqeError("a WMT test set needs at least one reference file")
    system_paths = expand_system_paths(systems)
    if not system_paths:
        raise TsqeError("a WMT test set needs at least one system output file (none was given or found)")

    task.progress(0, 2, "reading the WMT test set")
    sources = read_lines(src, problems)
    references = [read_lines(path, problems) for path in refs]
    parsed = _system_files(system_paths, problems)
    outputs = [read_lines(file.path, problems) for file in parsed]
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
        for file, lines in zip(parsed, outputs):
            if lines is not None:
                _check_aligned(file.path, lines, src, len(sources), problems)
    problems.raise_if_any()
    assert sources is not None and languages is not None

    result = ImportResult(warnings=problems.warnings)
    task.progress(1, 2, "writing the WMT test set")
    with db.transaction() as session:
        if session.scalar(select(Suite.id).where(Suite.name == name)) is not None:
            raise TsqeError(f"a suite named {name!r} already exists: import the test set under another name")
        suite = Suite(name=name, source_lang=languages[0], target_lang=languages[1])
        session.add(suite)
        session.flush()
        session.execute(insert(Item), [
            {"suite_id": suite.id, "external_id": str(index + 1), "position": index, "phenomenon_id": None,
             "source": text.strip()}
            for index, text in enumerate(sources)])
        item_ids = dict(session.execute(select(Item.position, Item.id).where(Item.suite_id == suite.id)).all())
        session.execute(insert(Reference), [
            {"item_id": item_ids[index], "text": text.strip(), "kind": "standard"}
            for lines in references if lines is not None for index, text in enumerate(lines)])
        session.execute(insert(System), [{"suite_id": suite.id, "name": file.name} for file in parsed])
        system_ids = dict(session.execute(select(System.name, System.id).where(System.suite_id == suite.id)).all())

        distinct: dict[tuple[int, str], None] = {}
        for lines in outputs:
            assert lines is not None
            for index, text in enumerate(lines):
                distinct[(item_ids[index], text.strip())] = None
        session.execute(insert(Output), [{"item_id": item, "text": text} for item, text in distinct])
        add_unlabelled(session.connection(), Counter(item for item, _ in distinct))
        output_ids = {(item, text): output for output, item, text in session.execute(
            select(Output.id, Output.item_id, Output.text).join(Item).where(Item.suite_id == suite.id))}
        session.execute(insert(SystemOutput), [
            {"system_id": system_ids[file.name], "item_id": item_ids[index],
             "output_id": output_ids[(item_ids[index], text.strip())]}
            for file, lines in zip(parsed, outputs) if lines is not None for index, text in enumerate(lines)])
        task.progress(2, 2, "WMT test set imported")  # before the commit: a cancel here still changes nothing
    result.counts = {"items": len(sources), "references": sum(len(r or []) for r in references),
                     "systems": len(parsed), "system_outputs": len(parsed) * len(sources),
                     "distinct_outputs": len(distinct)}
    return result


def _system_files(paths: Sequence[Path], problems: Problems) -> list[SystemFile]:
    files: list[SystemFile] = []
    seen: dict[str, Path] = {}
    for path in paths:
        parsed = system_file(path)
        if parsed is None:
            problems.error(None, f"cannot take a system name from the file name {path.name!r}: expected "
                              "<testset>.<SYSTEM>.<src>-<tgt>, e.g. newstest2019.Facebook_FAIR.6750.de-en",
                           file=str(path))
            continue
        name, languages = parsed
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
