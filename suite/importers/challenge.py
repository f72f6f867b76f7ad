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

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from store import Database
from store.domain import NameKind
from store.models import (
    CHALLENGE_FORMATS,
    STANDARD_REFERENCE,
    Base,
    Category,
    ConstructedLabel,
    Item,
    Output,
    Phenomenon,
    Suite,
    System,
    SystemOutput,
)
from store.names import check_name
from suite.engine.label_counts import add_unlabelled
from suite.engine.labelling import relabel_items
from suite.errors import Problem, TsqeError
from suite.importers.challenge_formats import (
    MULTIPLE_LANGUAGES,
    ChallengeItem,
    ChallengeSet,
    challenge_files,
    read_aces,
    read_contrastive_table,
    read_demetr,
)
from suite.importers.limits import MAX_SUITE_ITEMS, long_field
from suite.importers.lookups import max_length
from suite.importers.result import Problems
from suite.importers.suite_import import place_ids
from suite.references import add_reference_set
from suite.tasks import TaskState, progress_of

GOOD_SYSTEM = "good"
BAD_SYSTEM = "bad"
"""The two systems of a challenge suite: the set's good translations and its incorrect ones."""
INSERT_CHUNK = 5_000
"""Rows inserted at a time."""


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


def read_challenge_set(path: Path, format: str, *,
                       include_unchecked: bool = False) -> tuple[ChallengeSet, list[Problem]]:
    """The set in ``path`` (a file, or a folder of files of one set), every file checked, and the warnings;
    raises with every problem found."""
    if format not in CHALLENGE_FORMATS:
        raise TsqeError(f"unknown challenge-set format {format!r} (known: {', '.join(CHALLENGE_FORMATS)})")
    if not path.exists():
        raise TsqeError(f"{path}: no such file or folder")
    files = challenge_files(path, format)
    problems = Problems(str(path))
    if format == "demetr":
        challenge = read_demetr(files, problems, include_unchecked=include_unchecked)
    elif format == "aces":
        challenge = read_aces(files, problems)
    else:
        challenge = read_contrastive_table(files, problems)
    _check(challenge, problems)
    problems.raise_if_any()
    if not challenge.items:
        raise TsqeError(f"{path}: no example to import" + (f" ({len(challenge.unchecked)} are flagged as not valid)"
                                                           if challenge.unchecked else ""))
    return challenge, problems.warnings


def _check(challenge: ChallengeSet, problems: Problems) -> None:
    """Ids once each, names and texts within what is stored (a table's cells are bounded as they are read,
    DEMETR's JSON strings only here), and no more examples than a suite file may hold."""
    if len(challenge.items) > MAX_SUITE_ITEMS:
        problems.error(None, f"the set holds {len(challenge.items):,} examples; a suite may be imported with at "
                             f"most {MAX_SUITE_ITEMS:,} at once")
        return
    seen: dict[str, ChallengeItem] = {}
    for item in challenge.items:
        if item.external_id in seen:
            first = seen[item.external_id]
            problems.error(item.line, f"example id {item.external_id!r} again (first in {first.file}"
                                      + (f":{first.line})" if first.line else ")"), file=item.file)
            continue
        seen[item.external_id] = item
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


def import_challenge(db: Database, path: str | os.PathLike[str], format: str, *, name: str | None = None,
                     include_unchecked: bool = False, task: TaskState | None = None) -> ChallengeImport:
    """Create the suite ``name`` (default: from the path) from a challenge set, labelled by construction."""
    task = progress_of(task)
    path = Path(path)
    named = check_name(name or default_challenge_name(path), NameKind.SUITE)
    name = named.text
    task.progress(0, 3, f"reading {path.name}")
    challenge, warnings = read_challenge_set(path, format, include_unchecked=include_unchecked)
    if named.note is not None:
        warnings = [Problem(str(path), None, named.note), *warnings]
    items = challenge.items
    source_lang, target_lang = _suite_languages(items)
    identical = [item.external_id for item in items if item.good == item.bad]
    task.progress(1, 3, f"writing {len(items):,} examples")
    with db.transaction() as session:
        if session.scalar(select(Suite.id).where(Suite.name == name)) is not None:
            raise TsqeError(f"a suite named {name!r} already exists: import the set under another name")
        suite = Suite(name=name, source_lang=source_lang, target_lang=target_lang, challenge=challenge.format)
        session.add(suite)
        session.flush()
        places = place_ids(session, suite.id, [(item.category, item.phenomenon) for item in items])
        _insert(session, Item, (
            {"suite_id": suite.id, "external_id": item.external_id, "position": position,
             "phenomenon_id": places[(item.category, item.phenomenon)], "source": item.source,
             "source_lang": _own(item, 0, source_lang), "target_lang": _own(item, 1, target_lang)}
            for position, item in enumerate(items)))
        item_ids = dict(session.execute(select(Item.external_id, Item.id).where(Item.suite_id == suite.id)).all())
        references = add_reference_set(session, suite.id, challenge.format, STANDARD_REFERENCE,
                                       {item_ids[item.external_id]: [item.reference]
                                        for item in items if item.reference is not None})
        session.execute(insert(System), [{"suite_id": suite.id, "name": system}
                                         for system in (GOOD_SYSTEM, BAD_SYSTEM)])
        systems = dict(session.execute(select(System.name, System.id).where(System.suite_id == suite.id)).all())
        distinct = {(item_ids[item.external_id], text): None for item in items for text in (item.good, item.bad)}
        _insert(session, Output, ({"item_id": item_id, "text": text} for item_id, text in distinct))
        add_unlabelled(session.connection(), list(distinct))
        outputs = {(item_id, text): output_id for output_id, item_id, text in session.execute(
            select(Output.id, Output.item_id, Output.text).join(Item).where(Item.suite_id == suite.id))}
        _insert(session, SystemOutput, (
            {"system_id": systems[system], "item_id": item_ids[item.external_id],
             "output_id": outputs[(item_ids[item.external_id], text)]}
            for item in items for system, text in ((GOOD_SYSTEM, item.good), (BAD_SYSTEM, item.bad))))
        _insert(session, ConstructedLabel, (
            {"output_id": outputs[(item_ids[item.external_id], text)], "label": label}
            for item in items if item.good != item.bad for text, label in ((item.good, "pass"), (item.bad, "fail"))))
        task.progress(2, 3, "labelling by construction")
        relabel_items(session, suite.id, list(item_ids.values()))
        task.progress(3, 3, "challenge set imported")  # before the commit: a cancel here still changes nothing
    return ChallengeImport(
        suite=name, format=challenge.format, source_lang=source_lang, target_lang=target_lang, items=len(items),
        pairs=len(items) - len(identical), categories=len({item.category for item in items}),
        phenomena=len({(item.category, item.phenomenon) for item in items}), references=references,
        identical=identical, unchecked=challenge.unchecked, warnings=warnings)


def _insert(session: Session, model: type[Base], rows: Iterable[dict[str, object]]) -> None:
    """Insert ``rows`` a chunk at a time: a set at ``MAX_SUITE_ITEMS`` made lists of 400,000 row dictionaries
    beside its examples (918 MB for a 123 MB DEMETR file)."""
    chunk: list[dict[str, object]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == INSERT_CHUNK:
            session.execute(insert(model), chunk)
            chunk = []
    if chunk:
        session.execute(insert(model), chunk)


def _suite_languages(items: list[ChallengeItem]) -> tuple[str, str]:
    """Each side's language when all examples share it, else ``mul``; unknown ("") when the set names none."""
    sides = []
    for side in (0, 1):
        named = {item.languages[side] for item in items if item.languages is not None}
        unnamed = any(item.languages is None for item in items)
        sides.append(named.pop() if len(named) == 1 and not unnamed else MULTIPLE_LANGUAGES if named else "")
    return sides[0], sides[1]


def _own(item: ChallengeItem, side: int, suite_lang: str) -> str | None:
    """The item's own language on one side, kept only where the suite's is ``mul``."""
    return item.languages[side] if suite_lang == MULTIPLE_LANGUAGES and item.languages is not None else None
