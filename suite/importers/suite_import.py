"""Importing a test suite (DFKI JSON or a generic table), or updating one from an edited file.

Re-importing under an existing name needs ``update=True``: items are matched by their external id, their
source, phenomenon, rules, references and known translations are brought up to date (only where they
changed, so incremental relabelling revisits only those items), new items are added, and items missing
from the file are kept unless ``remove_missing`` asks to delete them (with their outputs and labels).
Outputs, QE scores and manual labels of kept items are never touched.
"""
from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from sqlalchemy import ColumnElement, Select, delete, func, insert, select, update
from sqlalchemy.orm import Session

from store import Database
from store.models import (
    Category,
    Item,
    KnownTranslation,
    ManualLabel,
    Output,
    Phenomenon,
    Reference,
    Rule,
    Suite,
    SystemOutput,
)
from suite.errors import TsqeError
from suite.importers.dfki import parse_dfki
from suite.importers.item_spec import ItemSpec
from suite.importers.lookups import check_length
from suite.importers.result import ImportResult, Problems
from suite.importers.suite_table import parse_suite_table
from suite.importers.tables import TABLE_SUFFIXES
from suite.rules import compile_error, pattern_problem
from suite.suites import UNKNOWN_LANGUAGE, language_pair
from suite.tasks import TaskState, progress_of

T = TypeVar("T")
_ChildModel = type[Rule | KnownTranslation | Reference]
CHUNK = 500
"""Ids per ``IN (...)`` list, well below every database's bound-parameter limit."""



def default_suite_name(path: Path) -> str:
    """The file name without suffix, or the folder name for a generically named file such as the DFKI
    ``testset/de-en/items.json`` (-> ``de-en``)."""
    if path.stem.lower() in {"items", "suite", "testset", "test_suite", "testsuite"} and path.parent.name:
        return path.parent.name
    return path.stem


def import_suite(db: Database, path: str | os.PathLike[str], *, name: str | None = None,
                 source_lang: str | None = None, target_lang: str | None = None, update: bool = False,
                 remove_missing: bool = False, strict: bool = False, task: TaskState | None = None) -> ImportResult:
    """Import the suite file at ``path`` (``.json``: DFKI format; ``.tsv``/``.csv``/``.xlsx``: table).

    ``strict`` refuses a file with a pattern that does not compile (by default it becomes an invalid rule,
    with a warning). A new suite whose languages neither the file nor the caller names gets them unknown
    (stored as empty strings, set later with ``suite.suite_edit.set_languages``), with a warning.
    """
    path = Path(path)
    task = progress_of(task)
    if not path.is_file():
        raise TsqeError(f"{path}: no such file")
    if remove_missing and not update:
        raise TsqeError("removing items missing from the file only makes sense when updating a suite")
    problems = Problems(str(path))
    task.progress(0, 3, "reading the suite")
    suffix = path.suffix.lower()
    if suffix == ".json":
        items, file_languages = parse_dfki(path, problems)
    elif suffix in TABLE_SUFFIXES:
        items, file_languages = parse_suite_table(path, problems), None
    else:
        raise TsqeError(f"{path}: unknown suite format {suffix!r}; expected .json (DFKI) or .tsv/.csv/.xlsx")
    _check_unique_ids(items, problems)
    if not items and not problems.errors:
        problems.error(None, "the file holds no items")
    problems.raise_if_any()
    task.progress(1, 3, "checking rules")
    rules = _rules(items, problems, strict)
    problems.raise_if_any()
    languages = _languages(path, file_languages, source_lang, target_lang)
    name = name or default_suite_name(path)
    if len(name) > 200:
        raise TsqeError(f"a suite name has at most 200 characters, not {len(name)}")
    task.progress(2, 3, "writing the suite")
    with db.transaction() as session:
        suite = session.scalar(select(Suite).where(Suite.name == name))
        if suite is not None and not update:
            raise TsqeError(f"a suite named {name!r} exists already: import the file as an update "
                            f"or under another name")
        if suite is None:
            if languages is None:
                problems.warn(1, f"the file does not name the languages of suite {name!r}: they are unknown "
                                 f"until they are set")
            source, target = languages or (UNKNOWN_LANGUAGE, UNKNOWN_LANGUAGE)
            suite = Suite(name=name, source_lang=source, target_lang=target)
            session.add(suite)
            session.flush()
        elif languages is not None:
            known = (suite.source_lang, suite.target_lang)
            if any(old not in (UNKNOWN_LANGUAGE, new) for old, new in zip(known, languages, strict=True)):
                raise TsqeError(f"suite {name!r} is {language_pair(*known)}, the file is {language_pair(*languages)}")
            suite.source_lang, suite.target_lang = languages  # fills in languages that were unknown
        counts = _write(session, suite.id, items, rules, problems, remove_missing)
        task.progress(3, 3, "suite imported")  # before the commit, so that a cancel here still changes nothing
    return ImportResult(counts={"suite_id": suite.id, **counts}, warnings=problems.warnings)


def _check_unique_ids(items: list[ItemSpec], problems: Problems) -> None:
    first_line: dict[str, int] = {}
    for item in items:
        check_length(item.external_id, Item.external_id, "item id", item.line, problems)
        check_length(item.category, Category.name, "category", item.line, problems)
        check_length(item.phenomenon, Phenomenon.name, "phenomenon", item.line, problems)
        for reference in item.references:
            check_length(reference.kind, Reference.kind, "reference kind", item.line, problems)
        if item.external_id in first_line:
            problems.error(item.line, f"duplicate item id {item.external_id!r} (first at line "
                                      f"{first_line[item.external_id]})")
        else:
            first_line[item.external_id] = item.line


def _rules(items: list[ItemSpec], problems: Problems, strict: bool) -> dict[str, list[dict[str, object]]]:
    """Rule rows per external id; a pattern that does not compile is kept as an invalid rule, with a warning,
    so the linguist can fix it in place instead of losing the item (``strict`` refuses the file instead)."""
    errors: dict[tuple[str, bool], str | None] = {}
    rules: dict[str, list[dict[str, object]]] = {}
    for item in items:
        rows = []
        for position, (polarity, rule) in enumerate(
                [("positive", r) for r in item.positive] + [("negative", r) for r in item.negative]):
            key = (rule.pattern, rule.ignore_case)
            if key not in errors:
                errors[key] = compile_error(rule.pattern, rule.ignore_case)
            error = errors[key]
            if error is not None:
                if strict:
                    problem = pattern_problem(rule.pattern, rule.ignore_case)
                    problems.error(item.line, f"{polarity} regex {rule.pattern!r} of item {item.external_id!r}: "
                                              f"{problem or error}")
                else:
                    problems.warn(item.line, f"{polarity} regex {rule.pattern!r} of item {item.external_id!r} "
                                             f"does not compile ({error}); imported as an invalid rule")
            rows.append({"polarity": polarity, "pattern": rule.pattern, "ignore_case": rule.ignore_case,
                         "valid": error is None, "error": error, "position": position})
        rules[item.external_id] = rows
    return rules


def _languages(path: Path, from_file: tuple[str, str] | None, source_lang: str | None,
               target_lang: str | None) -> tuple[str, str] | None:
    if (source_lang is None) != (target_lang is None):
        raise TsqeError("give both the source and the target language, or neither")
    given = (source_lang.lower(), target_lang.lower()) if source_lang and target_lang else None
    if from_file is not None and given is not None and given != from_file:
        raise TsqeError(f"{path} is {from_file[0]}-{from_file[1]} (langpair), not {given[0]}-{given[1]}")
    return from_file or given


def _write(session: Session, suite_id: int, items: list[ItemSpec], rules: dict[str, list[dict[str, object]]],
           problems: Problems, remove_missing: bool) -> dict[str, int]:
    phenomenon_ids = _phenomenon_ids(session, suite_id, items)
    existing = {row.external_id: row for row in session.execute(
        select(Item.id, Item.external_id, Item.source, Item.phenomenon_id, Item.comment, Item.position)
        .where(Item.suite_id == suite_id))}
    old = _existing_children(session, suite_id)
    with_outputs = set(session.scalars(select(SystemOutput.item_id).distinct()
                                       .join(Item, Item.id == SystemOutput.item_id)
                                       .where(Item.suite_id == suite_id)))

    in_file = {item.external_id for item in items}
    missing = [row for row in sorted(existing.values(), key=lambda row: row.position)
               if row.external_id not in in_file]
    counts = {"items": len(items), "items_added": 0, "items_updated": 0, "items_unchanged": 0,
              "items_removed": 0, "outputs_removed": 0, "manual_labels_removed": 0}
    if remove_missing and missing:
        counts.update(_remove_items(session, [row.id for row in missing]))
        missing = []

    new_items, item_updates, updated = [], [], set()
    for position, item in enumerate(items):
        values = {"source": item.source, "phenomenon_id": phenomenon_ids[(item.category, item.phenomenon)],
                  "comment": item.comment, "position": position}
        row = existing.get(item.external_id)
        if row is None:
            new_items.append({"suite_id": suite_id, "external_id": item.external_id, **values})
            continue
        if any(getattr(row, key) != value for key, value in values.items()):
            item_updates.append({"id": row.id, **values})
            if (row.source, row.phenomenon_id, row.comment) != (item.source, values["phenomenon_id"],
                                                                 item.comment):
                updated.add(row.id)
        if row.source != item.source and row.id in with_outputs:
            problems.warn(item.line, f"the source of item {item.external_id!r} changed; its existing "
                                     f"MT outputs were made for the old source")
    # Kept items that are no longer in the file follow the file's items, in their old order.
    item_updates += [{"id": row.id, "position": len(items) + offset} for offset, row in enumerate(missing)
                     if row.position != len(items) + offset]
    if new_items:
        session.execute(insert(Item), new_items)
    if item_updates:
        session.execute(update(Item), item_updates)
    item_ids = dict(session.execute(select(Item.external_id, Item.id)
                                    .where(Item.suite_id == suite_id)).all())

    children: dict[_ChildModel, tuple[list[dict[str, object]], list[int]]] = {
        Rule: ([], []), KnownTranslation: ([], []), Reference: ([], [])}
    for item in items:
        item_id = item_ids[item.external_id]
        known: list[dict[str, object]] = [{"kind": "good", "text": text} for text in _present(item.good)]
        known += [{"kind": "bad", "text": text} for text in _present(item.bad)]
        references: list[dict[str, object]] = [{"kind": reference.kind, "text": reference.text}
                                               for reference in item.references]
        wanted: dict[_ChildModel, list[dict[str, object]]] = {
            Rule: rules[item.external_id], KnownTranslation: known, Reference: references}
        for model, rows in wanted.items():
            if _fingerprint(model, rows) != old.get((model, item_id), []):
                children[model][0].extend({"item_id": item_id, **row} for row in rows)
                children[model][1].append(item_id)
                if item.external_id in existing:
                    updated.add(item_id)
    for model, (rows, replaced) in children.items():
        for chunk in _chunks(replaced):
            session.execute(delete(model).where(model.item_id.in_(chunk)))
        if rows:
            session.execute(insert(model), rows)
    _remove_empty_phenomena(session, suite_id)

    counts["items_added"] = len(new_items)
    counts["items_updated"] = len(updated)
    counts["items_unchanged"] = len(items) - len(new_items) - len(updated)
    counts.update(_totals(session, suite_id))
    return counts


def _fingerprint(model: type, rows: Iterable[dict[str, object]]) -> list[tuple[object, ...]]:
    """What decides whether an item's rules, known translations or references changed."""
    if model is Rule:
        return [(r["polarity"], r["pattern"], bool(r["ignore_case"]), r["position"]) for r in rows]
    if model is Reference:  # their order is the order a suite file lists them in
        return [(str(r["kind"]), str(r["text"])) for r in rows]
    return sorted((str(r["kind"]), str(r["text"])) for r in rows)


def _existing_children(session: Session, suite_id: int) -> dict[tuple[type, int], list[tuple[object, ...]]]:
    grouped: dict[tuple[type, int], list[dict[str, object]]] = defaultdict(list)
    queries = {
        Rule: select(Rule.item_id, Rule.polarity, Rule.pattern, Rule.ignore_case, Rule.position)
        .join(Item, Item.id == Rule.item_id).order_by(Rule.item_id, Rule.position),
        KnownTranslation: select(KnownTranslation.item_id, KnownTranslation.kind, KnownTranslation.text)
        .join(Item, Item.id == KnownTranslation.item_id),
        Reference: select(Reference.item_id, Reference.kind, Reference.text)
        .join(Item, Item.id == Reference.item_id).order_by(Reference.item_id, Reference.id),
    }
    for model, query in queries.items():
        for row in session.execute(query.where(Item.suite_id == suite_id)).mappings():
            grouped[(model, row["item_id"])].append(dict(row))
    return {key: _fingerprint(key[0], rows) for key, rows in grouped.items()}


def _present(texts: Sequence[str]) -> list[str]:
    """Known translations without the empty entries that occur in the DFKI data (they say nothing)."""
    return [text for text in texts if text.strip()]


def _phenomenon_ids(session: Session, suite_id: int, items: list[ItemSpec]) -> dict[tuple[str, str], int]:
    """Get or create the categories and phenomena of the file (the same phenomenon name may occur in
    several categories: a phenomenon belongs to its category)."""
    categories = dict(session.execute(select(Category.name, Category.id)
                                      .where(Category.suite_id == suite_id)).all())
    new_categories = list(dict.fromkeys(item.category for item in items if item.category not in categories))
    if new_categories:
        session.execute(insert(Category), [{"suite_id": suite_id, "name": name} for name in new_categories])
        categories = dict(session.execute(select(Category.name, Category.id)
                                          .where(Category.suite_id == suite_id)).all())
    query = (select(Category.name, Phenomenon.name, Phenomenon.id)
             .join(Category, Category.id == Phenomenon.category_id).where(Category.suite_id == suite_id))
    phenomena = {(category, name): id_ for category, name, id_ in session.execute(query)}
    new_phenomena = list(dict.fromkeys((item.category, item.phenomenon) for item in items
                                       if (item.category, item.phenomenon) not in phenomena))
    if new_phenomena:
        session.execute(insert(Phenomenon), [{"category_id": categories[category], "name": name}
                                             for category, name in new_phenomena])
        phenomena = {(category, name): id_ for category, name, id_ in session.execute(query)}
    return phenomena


def _remove_items(session: Session, item_ids: list[int]) -> dict[str, int]:
    """Delete items (an explicit request) and say how much went with them."""
    removed = {"items_removed": len(item_ids), "outputs_removed": 0, "manual_labels_removed": 0}
    for chunk in _chunks(item_ids):
        removed["outputs_removed"] += session.scalar(
            select(func.count()).select_from(Output).where(Output.item_id.in_(chunk))) or 0
        removed["manual_labels_removed"] += session.scalar(
            select(func.count()).select_from(ManualLabel).join(Output, Output.id == ManualLabel.output_id)
            .where(Output.item_id.in_(chunk))) or 0
        session.execute(delete(Item).where(Item.id.in_(chunk)))
    return removed


def _remove_empty_phenomena(session: Session, suite_id: int) -> None:
    """An update may move every item out of a phenomenon or category; do not keep empty ones around."""
    used = select(Item.phenomenon_id).where(Item.suite_id == suite_id, Item.phenomenon_id.is_not(None))
    category_ids = select(Category.id).where(Category.suite_id == suite_id)
    session.execute(delete(Phenomenon).where(Phenomenon.category_id.in_(category_ids),
                                             Phenomenon.id.not_in(used)))
    session.execute(delete(Category).where(Category.suite_id == suite_id,
                                           Category.id.not_in(select(Phenomenon.category_id))))


def _totals(session: Session, suite_id: int) -> dict[str, int]:
    """What the suite holds after the import (the file may have updated only part of it)."""
    def count(query: Select) -> int:  # type: ignore[type-arg]
        return session.scalar(query) or 0

    def per_item(model: type[Rule] | type[KnownTranslation] | type[Reference], *where: ColumnElement[bool]) -> int:
        return count(select(func.count()).select_from(model).join(Item, Item.id == model.item_id)
                     .where(Item.suite_id == suite_id, *where))

    return {
        "categories": count(select(func.count()).select_from(Category).where(Category.suite_id == suite_id)),
        "phenomena": count(select(func.count()).select_from(Phenomenon)
                           .join(Category, Category.id == Phenomenon.category_id)
                           .where(Category.suite_id == suite_id)),
        "rules": per_item(Rule),
        "invalid_rules": per_item(Rule, Rule.valid.is_(False)),
        "known_translations": per_item(KnownTranslation),
        "references": per_item(Reference),
    }


def _chunks(values: Sequence[T]) -> Iterator[Sequence[T]]:
    for start in range(0, len(values), CHUNK):
        yield values[start:start + CHUNK]
