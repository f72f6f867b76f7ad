"""A contrastive challenge set imported as a suite in one step (``tsqe import challenge``).

Each example becomes an item (category and phenomenon from the set's own fields, its source, its reference in the
reference set named after the layout, ``demetr``, ``aces`` or ``contrastive-tsv``, of kind ``standard``) with
two outputs: the good translation, produced by the system ``good``, and the incorrect one, by ``bad``. Their
labels come from the set's construction (``ConstructedLabel``), not from a reviewer, and are turned into
automatic labels in the same transaction, so the suite is ready for ``tsqe accuracy`` at once: each item makes
exactly one pass/fail pair.

Two things of the data are reported rather than silently dropped: examples the set itself flags as not valid
(DEMETR's ``pert_check`` false: the perturbation could not be applied), which are left out unless asked for, and
examples whose good and incorrect translations are the same text, which are kept (one output produced by both
systems) but have no label by construction and so make no pair.

A set of several source (or target) languages gets ``mul`` as the suite's language, and each item keeps its own.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from store import Database
from store.domain import NameKind
from store.models import (
    CHALLENGE_FORMATS,
    STANDARD_REFERENCE,
    Category,
    ConstructedLabel,
    Item,
    Output,
    Phenomenon,
    Reference,
    Suite,
    System,
    SystemOutput,
)
from store.names import check_name
from suite.engine.label_counts import add_unlabelled
from suite.engine.labelling import relabel_items
from suite.errors import Problem, TsqeError
from suite.importers.challenge_formats import (
    DEMETR_SEVERITIES,
    MULTIPLE_LANGUAGES,
    ChallengeItem,
    ChallengeSource,
    challenge_source,
)
from suite.importers.limits import MAX_SUITE_ITEMS, long_field
from suite.importers.lookups import max_length
from suite.importers.result import Problems
from suite.importers.suite_import import place_ids
from suite.references import check_new_reference_set, reference_rows
from suite.tasks import TaskState, progress_of

GOOD_SYSTEM = "good"
BAD_SYSTEM = "bad"
"""The two systems of a challenge suite: the set's good translations and its incorrect ones."""
INSERT_CHUNK = 5_000
"""Examples written at a time: a set at ``MAX_SUITE_ITEMS`` written in one go made lists of 400,000 row
dictionaries beside its examples (918 MB for a 123 MB DEMETR file)."""


@dataclass(frozen=True)
class ChallengeImport:
    """What ``import_challenge`` did: the suite, its size, and the examples to look at."""

    suite: str
    format: str
    source_lang: str
    target_lang: str
    items: int
    pairs: int
    categories: int
    phenomena: int
    references: int
    identical: list[str]
    """Ids of the items whose good and incorrect translations are the same text (kept, without a pair)."""
    unchecked: list[str]
    """Ids of the examples the set flags as not valid, left out (empty when they were asked for)."""
    warnings: list[Problem] = field(default_factory=list)


def default_challenge_name(path: Path) -> str:
    """The folder or file name without suffix (``demetr`` for the repository, ``dataset`` -> its parent's)."""
    if path.is_dir() and path.name == "dataset" and path.parent.name:
        return path.parent.name
    return path.name if path.is_dir() else path.stem


@dataclass(frozen=True)
class CheckedSet:
    """What checking a set keeps: its size, places, languages and notes, no text (the writing pass reads the
    files again) and a digest of the examples, which that pass must find again."""

    source: ChallengeSource
    """Its files in the suite's order."""
    include_unchecked: bool
    items: int
    places: list[tuple[str, str]]
    languages: tuple[str, str]
    identical: list[str]
    unchecked: list[str]
    ids: set[str]
    digests: dict[str, bytes]
    """A digest of each file's examples."""
    warnings: list[Problem]

    def examples(self, problems: Problems) -> Iterator[ChallengeItem]:
        return (item for item in self.source.examples(problems) if self.include_unchecked or not item.flagged)


def check_challenge_set(path: Path, format: str, *, include_unchecked: bool = False) -> CheckedSet:
    """The set in ``path`` (a file, or a folder of files of one set), every example checked; raises with every
    problem found.

    Ids once each, names and texts within what is stored (a table's cells are bounded as they are read,
    DEMETR's JSON strings only here), and no more examples than a suite file may hold."""
    if format not in CHALLENGE_FORMATS:
        raise TsqeError(f"unknown challenge-set format {format!r} (known: {', '.join(CHALLENGE_FORMATS)})")
    if not path.exists():
        raise TsqeError(f"{path}: no such file or folder")
    source = challenge_source(path, format)
    problems = Problems(str(path))
    seen: dict[str, tuple[str, int | None]] = {}
    ranks: dict[str, tuple[int, int, str] | None] = {}
    places: dict[tuple[str, str], None] = {}
    named: tuple[set[str], set[str]] = (set(), set())
    unnamed = False
    identical: list[str] = []
    unchecked: list[str] = []
    digests = _Digests()
    for item in source.examples(problems):
        ranks.setdefault(item.file, item.rank)
        if item.flagged and not include_unchecked:
            unchecked.append(item.external_id)
            continue
        if len(seen) == MAX_SUITE_ITEMS:
            problems.error(None, f"the set holds more than {MAX_SUITE_ITEMS:,} examples; a suite may be imported "
                                 f"with at most {MAX_SUITE_ITEMS:,} at once")
            break
        if item.external_id in seen:
            file, line = seen[item.external_id]
            problems.error(item.line, f"example id {item.external_id!r} again (first in {file}"
                                      + (f":{line})" if line else ")"), file=item.file)
            continue
        seen[item.external_id] = (item.file, item.line)
        _check(item, problems)
        digests.add(item)
        places[(item.category, item.phenomenon)] = None
        if item.languages is None:
            unnamed = True
        else:
            named[0].add(item.languages[0])
            named[1].add(item.languages[1])
        if item.good == item.bad:
            identical.append(item.external_id)
    problems.raise_if_any()
    if not seen:
        raise TsqeError(f"{path}: no example to import" + (f" ({len(unchecked)} are flagged as not valid)"
                                                           if unchecked else ""))
    if any(rank is not None for rank in ranks.values()):
        source = replace(source, files=tuple(sorted(source.files, key=lambda file: (
            ranks.get(str(file)) or (len(DEMETR_SEVERITIES), 0, file.name)))))
    languages = (_suite_language(named[0], unnamed), _suite_language(named[1], unnamed))
    return CheckedSet(source, include_unchecked, len(seen), list(places), languages, identical, unchecked,
                      set(seen), digests.done(), problems.warnings)


def _check(item: ChallengeItem, problems: Problems) -> None:
    for value, column, what in ((item.external_id, Item.external_id, "example id"),
                                (item.category, Category.name, "category"),
                                (item.phenomenon, Phenomenon.name, "phenomenon")):
        if len(value) > max_length(column):
            problems.error(item.line, f"{what} {value[:30]!r}... has {len(value):,} characters; at most "
                                      f"{max_length(column)} are stored", file=item.file)
    for text, what in ((item.source, "the source"), (item.reference or "", "the reference"),
                       (item.good, "the good translation"), (item.bad, "the incorrect translation")):
        if (problem := long_field(text, what)) is not None:
            problems.error(item.line, f"example {item.external_id}: {problem}", file=item.file)


class _Digests:
    """A digest of each file's examples, as they are read."""

    def __init__(self) -> None:
        self._files: dict[str, hashlib.blake2b] = {}

    def add(self, item: ChallengeItem) -> None:
        self._files.setdefault(item.file, hashlib.blake2b()).update(repr((
            item.external_id, item.category, item.phenomenon, item.source, item.reference, item.good, item.bad,
            item.languages)).encode("utf-8", "surrogatepass"))

    def done(self) -> dict[str, bytes]:
        return {file: digest.digest() for file, digest in self._files.items()}


def import_challenge(db: Database, path: str | os.PathLike[str], format: str, *, name: str | None = None,
                     include_unchecked: bool = False, task: TaskState | None = None) -> ChallengeImport:
    """Create the suite ``name`` (default: from the path) from a challenge set, labelled by construction."""
    task = progress_of(task)
    path = Path(path)
    named = check_name(name or default_challenge_name(path), NameKind.SUITE)
    name = named.text
    task.progress(0, 3, f"reading {path.name}")
    checked = check_challenge_set(path, format, include_unchecked=include_unchecked)
    warnings = checked.warnings
    if named.note is not None:
        warnings = [Problem(str(path), None, named.note), *warnings]
    source_lang, target_lang = checked.languages
    task.progress(1, 3, f"writing {checked.items:,} examples")
    with db.transaction() as session:
        if session.scalar(select(Suite.id).where(Suite.name == name)) is not None:
            raise TsqeError(f"a suite named {name!r} already exists: import the set under another name")
        suite = Suite(name=name, source_lang=source_lang, target_lang=target_lang, challenge=format)
        session.add(suite)
        session.flush()
        references = _Writer(session, suite.id, checked).write(path)
        task.progress(2, 3, "labelling by construction")
        relabel_items(session, suite.id, session.scalars(select(Item.id).where(Item.suite_id == suite.id)).all())
        task.progress(3, 3, "challenge set imported")  # before the commit: a cancel here still changes nothing
    return ChallengeImport(
        suite=name, format=format, source_lang=source_lang, target_lang=target_lang, items=checked.items,
        pairs=checked.items - len(checked.identical), categories=len({category for category, _ in checked.places}),
        phenomena=len(checked.places), references=references, identical=checked.identical,
        unchecked=checked.unchecked, warnings=warnings)


class _Writer:
    """Writes a checked set's examples a chunk at a time: items, references, outputs, the systems' outputs and
    the labels by construction of ``INSERT_CHUNK`` examples, then the next."""

    def __init__(self, session: Session, suite_id: int, checked: CheckedSet) -> None:
        self.session, self.suite_id, self.checked = session, suite_id, checked
        self.places = place_ids(session, suite_id, checked.places)
        self.reference_set = check_new_reference_set(session, suite_id, checked.source.format, STANDARD_REFERENCE)
        session.execute(insert(System), [{"suite_id": suite_id, "name": system}
                                         for system in (GOOD_SYSTEM, BAD_SYSTEM)])
        self.systems = dict(session.execute(select(System.name, System.id).where(System.suite_id == suite_id)).all())

    def write(self, path: Path) -> int:
        """Write every example; returns how many references were written. Raises when the files no longer
        hold what was checked (changed in between): the transaction then writes nothing."""
        problems = Problems(str(path))
        digests = _Digests()
        examples = self.checked.examples(problems)
        ids = set(self.checked.ids)
        position = references = 0
        while chunk := list(islice(examples, INSERT_CHUNK)):
            for item in chunk:
                if item.external_id not in ids:  # an id new or twice: its insert would fail
                    raise self._changed(path)
                ids.remove(item.external_id)
                digests.add(item)
            references += self._write_chunk(chunk, position)
            position += len(chunk)
        if problems.error_count or ids or digests.done() != self.checked.digests:
            raise self._changed(path)
        return references

    @staticmethod
    def _changed(path: Path) -> TsqeError:
        return TsqeError(f"{path}: the set changed while it was being imported; nothing was changed")

    def _write_chunk(self, chunk: list[ChallengeItem], position: int) -> int:
        session, (source_lang, target_lang) = self.session, self.checked.languages
        session.execute(insert(Item), [
            {"suite_id": self.suite_id, "external_id": item.external_id, "position": position + n,
             "phenomenon_id": self.places[(item.category, item.phenomenon)], "source": item.source,
             "source_lang": _own(item, 0, source_lang), "target_lang": _own(item, 1, target_lang)}
            for n, item in enumerate(chunk)])
        item_ids: dict[str, int] = dict(session.execute(
            select(Item.external_id, Item.id).where(Item.suite_id == self.suite_id,
                                                    Item.position >= position,
                                                    Item.position < position + len(chunk))).all())
        references = reference_rows(self.reference_set, STANDARD_REFERENCE, (
            (item_ids[item.external_id], [item.reference]) for item in chunk if item.reference is not None))
        if references:
            session.execute(insert(Reference), references)
        distinct = list({(item_ids[item.external_id], text): None
                         for item in chunk for text in (item.good, item.bad)})
        session.execute(insert(Output), [{"item_id": item_id, "text": text} for item_id, text in distinct])
        add_unlabelled(session.connection(), distinct)
        outputs = {(item_id, text): output_id for output_id, item_id, text in session.execute(
            select(Output.id, Output.item_id, Output.text).where(Output.item_id.in_(list(item_ids.values()))))}
        session.execute(insert(SystemOutput), [
            {"system_id": self.systems[system], "item_id": item_ids[item.external_id],
             "output_id": outputs[(item_ids[item.external_id], text)]}
            for item in chunk for system, text in ((GOOD_SYSTEM, item.good), (BAD_SYSTEM, item.bad))])
        labels = [{"output_id": outputs[(item_ids[item.external_id], text)], "label": label}
                  for item in chunk if item.good != item.bad
                  for text, label in ((item.good, "pass"), (item.bad, "fail"))]
        if labels:
            session.execute(insert(ConstructedLabel), labels)
        return len(references)


def _suite_language(named: set[str], unnamed: bool) -> str:
    """A side's language when all examples share it, else ``mul``; unknown ("") when the set names none."""
    return next(iter(named)) if len(named) == 1 and not unnamed else MULTIPLE_LANGUAGES if named else ""


def _own(item: ChallengeItem, side: int, suite_lang: str) -> str | None:
    """The item's own language on one side, kept only where the suite's is ``mul``."""
    return item.languages[side] if suite_lang == MULTIPLE_LANGUAGES and item.languages is not None else None
