"""Importing a test suite (DFKI JSON or a generic table), or updating one from an edited file.

Re-importing under an existing name needs ``update=True``: items are matched by their external id, their
source, phenomenon, rules, references and known translations are brought up to date (only where they
changed, so incremental relabelling revisits only those items), new items are added, and items missing
from the file are kept unless ``remove_missing`` asks to delete them (with their outputs and labels; the
history keeps them as it keeps an item removed by an edit, to restore it). Outputs, QE scores and manual
labels of kept items are never touched. An update is in the history as the edits it amounts to, under the
importing author, and bumps the versions those edits would, so an editor who read a changed row is refused.
"""
from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, delete, func, insert, select, update
from sqlalchemy.orm import Session

from store import Database
from store.domain import NameKind
from store.models import (
    Category,
    Item,
    KnownTranslation,
    Phenomenon,
    Reference,
    Rule,
    Suite,
    SystemOutput,
)
from suite.changes import ANYWHERE, Changes
from suite.editing.history import Change, check_author, first_versions, record
from suite.editing.item_edit import default_author
from suite.editing.items import snapshot_items
from suite.editing.suite_edit import change_languages
from suite.editing.taxonomy import remove_empty_phenomena
from suite.engine.rules import compile_error, pattern_problem
from suite.errors import TsqeError
from suite.importers.dfki import parse_dfki
from suite.importers.item_parts import PARTS, ItemRef, Part, PartChanges, StoredPart, fingerprint, stored_parts
from suite.importers.item_spec import ItemSpec
from suite.importers.limits import long_field
from suite.importers.lookups import check_length
from suite.importers.names import given_name
from suite.importers.result import ImportResult, Problems
from suite.importers.suite_table import parse_suite_table
from suite.importers.table_files import TABLE_SUFFIXES
from suite.suites import UNKNOWN_LANGUAGE, language_pair
from suite.tasks import TaskState, progress_of

T = TypeVar("T")
CHUNK = 500
"""Ids per ``IN (...)`` list, well below every database's bound-parameter limit."""
WRITE_CHUNK = 5_000
"""Items whose rows are written at a time: a suite at ``MAX_SUITE_ITEMS`` held every item's rule, known
translation and reference rows (and their history fields) at once and peaked at 700 MB for a 28 MB file."""
CompileErrors = dict[tuple[str, bool], str | None]
"""(pattern, ignore case) -> why it does not compile, None when it does: each distinct pattern compiled once."""



def default_suite_name(path: Path) -> str:
    """The file name without suffix, or the folder name for a generically named file such as the DFKI
    ``testset/de-en/items.json`` (-> ``de-en``)."""
    if path.stem.lower() in {"items", "suite", "testset", "test_suite", "testsuite"} and path.parent.name:
        return path.parent.name
    return path.stem


def import_suite(db: Database, path: str | os.PathLike[str], *, name: str | None = None,
                 source_lang: str | None = None, target_lang: str | None = None, update: bool = False,
                 remove_missing: bool = False, strict: bool = False, author: str | None = None,
                 task: TaskState | None = None) -> ImportResult:
    """Import the suite file at ``path`` (``.json``: DFKI format; ``.tsv``/``.csv``/``.xlsx``: table).

    ``strict`` refuses a file with a pattern that does not compile (by default it becomes an invalid rule,
    with a warning). A new suite whose languages neither the file nor the caller names gets them unknown
    (stored as empty strings, set later with ``suite.editing.suite_edit.set_languages``), with a warning.
    What an update changes is in the history under ``author`` (default: ``suite.editing.item_edit.default_author``).
    """
    path = Path(path)
    author = check_author(author if author is not None else default_author())
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
    if not items and not problems.error_count:
        problems.error(None, "the file holds no items")
    problems.raise_if_any()
    task.progress(1, 3, "checking rules")
    rules = _compile_rules(items, problems, strict)
    problems.raise_if_any()
    languages = _languages(path, file_languages, source_lang, target_lang)
    name = given_name(name or default_suite_name(path), NameKind.SUITE, problems)
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
            change_languages(session, suite, *languages, author)  # fills in languages that were unknown
        counts = _write(session, suite.id, items, rules, problems, remove_missing, author)
        task.progress(3, 3, "suite imported")  # before the commit, so that a cancel here still changes nothing
    return ImportResult(counts={"suite_id": suite.id, **counts}, warnings=problems.warnings,
                        changes=Changes(items=ANYWHERE, references=ANYWHERE, labels=ANYWHERE, outputs=ANYWHERE,
                                        taxonomy=True),
                        summary=_summary(name, counts))


def _summary(name: str, c: dict[str, int]) -> tuple[str, ...]:
    removed = (f", {c['items_removed']:,} removed with {c['outputs_removed']:,} outputs and "
               f"{c['manual_labels_removed']:,} manual labels" if c["items_removed"] else "")
    return (f"suite {name!r}: {c['items']:,} items in the file ({c['items_added']:,} added, {c['items_updated']:,} "
            f"updated, {c['items_unchanged']:,} unchanged{removed})",
            f"{c['categories']:,} categories, {c['phenomena']:,} phenomena, {c['rules']:,} rules "
            f"({c['invalid_rules']:,} invalid), {c['known_translations']:,} known translations, "
            f"{c['references']:,} references")


def _check_unique_ids(items: list[ItemSpec], problems: Problems) -> None:
    """Ids once each, and every name and text within what is stored (a table's cells are bounded as they are read;
    a JSON suite's strings are not until here)."""
    first_line: dict[str, int] = {}
    for item in items:
        check_length(item.external_id, Item.external_id, "item id", item.line, problems)
        check_length(item.category, Category.name, "category", item.line, problems)
        check_length(item.phenomenon, Phenomenon.name, "phenomenon", item.line, problems)
        for reference in item.references:
            check_length(reference.kind, Reference.kind, "reference kind", item.line, problems)
        texts = [("the source", item.source), ("the comment", item.comment or ""),
                 *(("a reference", reference.text) for reference in item.references),
                 *(("a known translation", text) for text in (*item.good, *item.bad))]
        for what, text in texts:
            if (problem := long_field(text, what)) is not None:
                problems.error(item.line, problem)
        if item.external_id in first_line:
            problems.error(item.line, f"duplicate item id {item.external_id!r} (first at line "
                                      f"{first_line[item.external_id]})")
        else:
            first_line[item.external_id] = item.line


def _compile_rules(items: list[ItemSpec], problems: Problems, strict: bool) -> CompileErrors:
    """Every distinct pattern compiled once; a pattern that does not compile is kept as an invalid rule, with a
    warning, so the linguist can fix it in place instead of losing the item (``strict`` refuses the file instead).
    The rows are made an item at a time as they are written (:func:`_rule_rows`), not held for the whole file."""
    errors: CompileErrors = {}
    for item in items:
        for rule in item.rules:
            polarity = rule.polarity
            key = (rule.pattern, rule.ignore_case)
            if key not in errors:
                errors[key] = compile_error(rule.pattern, rule.ignore_case)
            error = errors[key]
            if error is not None:
                if strict:
                    problem = pattern_problem(rule.pattern, rule.ignore_case)
                    problems.error(item.line, f"{polarity} regex {_quoted(rule.pattern)} of item {item.external_id!r}: "
                                              f"{problem or error}")
                else:
                    problems.warn(item.line, f"{polarity} regex {_quoted(rule.pattern)} of item {item.external_id!r} "
                                             f"does not compile ({error}); imported as an invalid rule")
    return errors


def _rule_rows(item: ItemSpec, errors: CompileErrors) -> list[dict[str, object]]:
    """The item's rule rows, each valid or not as :func:`_compile_rules` found its pattern."""
    rows: list[dict[str, object]] = []
    for position, rule in enumerate(item.rules):
        error = errors[(rule.pattern, rule.ignore_case)]
        rows.append({"polarity": rule.polarity, "pattern": rule.pattern, "ignore_case": rule.ignore_case,
                     "valid": error is None, "error": error, "position": position})
    return rows


def _quoted(pattern: str) -> str:
    """A pattern as a message quotes it: whole up to 80 characters, else its start and its length."""
    return repr(pattern) if len(pattern) <= 80 else f"{pattern[:40]!r}… ({len(pattern):,} characters)"


def _languages(path: Path, from_file: tuple[str, str] | None, source_lang: str | None,
               target_lang: str | None) -> tuple[str, str] | None:
    if (source_lang is None) != (target_lang is None):
        raise TsqeError("give both the source and the target language, or neither")
    given = (source_lang.lower(), target_lang.lower()) if source_lang and target_lang else None
    if from_file is not None and given is not None and given != from_file:
        raise TsqeError(f"{path} is {from_file[0]}-{from_file[1]} (langpair), not {given[0]}-{given[1]}")
    return from_file or given


def _write(session: Session, suite_id: int, items: list[ItemSpec], rules: CompileErrors,
           problems: Problems, remove_missing: bool, author: str) -> dict[str, int]:
    """Write the file's items into the suite. An item that was there before changes as an edit would change it:
    a new version when its own fields change, and a history entry for each change (its rules, known
    translations and references: ``suite.importers.item_parts``). The rows read are locked on PostgreSQL until
    the commit, so an editor's save is either read here or refused after it, never silently undone."""
    phenomenon_ids = place_ids(session, suite_id, [(item.category, item.phenomenon) for item in items])
    places: dict[int | None, tuple[str | None, str | None]] = {id_: key for key, id_ in phenomenon_ids.items()}
    existing = {row.external_id: row for row in session.execute(
        select(Item.id, Item.external_id, Item.source, Item.phenomenon_id, Item.comment, Item.position, Item.version)
        .where(Item.suite_id == suite_id).with_for_update())}
    old = stored_parts(session, suite_id)
    with_outputs = set(session.scalars(select(SystemOutput.item_id).distinct()
                                       .join(Item, Item.id == SystemOutput.item_id)
                                       .where(Item.suite_id == suite_id)))

    in_file = {item.external_id for item in items}
    missing = [row for row in sorted(existing.values(), key=lambda row: row.position)
               if row.external_id not in in_file]
    counts = {"items": len(items), "items_added": 0, "items_updated": 0, "items_unchanged": 0,
              "items_removed": 0, "outputs_removed": 0, "manual_labels_removed": 0}
    if remove_missing and missing:
        counts.update(_remove_items(session, [row.id for row in missing], author))
        missing = []

    new_items: list[dict[str, object]] = []
    new_ids: list[str] = []
    item_updates: list[dict[str, object]] = []
    history: list[Change] = []
    updated: set[int] = set()
    for position, item in enumerate(items):
        values = {"source": item.source, "phenomenon_id": phenomenon_ids[(item.category, item.phenomenon)],
                  "comment": item.comment, "position": position}
        row = existing.get(item.external_id)
        if row is None:
            new_items.append({"suite_id": suite_id, "external_id": item.external_id, **values})
            new_ids.append(item.external_id)
            if len(new_items) == WRITE_CHUNK:
                session.execute(insert(Item), new_items)
                new_items = []
            continue
        changed: dict[str, object] = {key: value for key, value in values.items() if getattr(row, key) != value}
        edited = [key for key in changed if key != "position"]
        if edited:
            changed["version"] = row.version + 1
            history.append(Change(suite_id, row.external_id, "item", row.id, "change", author,
                                  _item_fields(row._asdict(), edited, places), _item_fields(values, edited, places),
                                  row.version + 1))
            updated.add(row.id)
        if changed:
            item_updates.append({"id": row.id, **changed})
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
    history += _added_items(session, suite_id, [item_ids[external_id] for external_id in new_ids],
                            places, author, suite_existed=bool(existing))
    record(session, history)
    for start in range(0, len(items), WRITE_CHUNK):
        _write_parts(session, suite_id, items[start:start + WRITE_CHUNK], rules, item_ids, existing, old, updated,
                     author)
    remove_empty_phenomena(session, suite_id)

    counts["items_added"] = len(new_ids)
    counts["items_updated"] = len(updated)
    counts["items_unchanged"] = len(items) - len(new_ids) - len(updated)
    counts.update(_totals(session, suite_id))
    return counts


def _write_parts(session: Session, suite_id: int, items: Sequence[ItemSpec], rules: CompileErrors,
                 item_ids: dict[str, int], existing: dict[str, Any], old: dict[tuple[Part, int], list[StoredPart]],
                 updated: set[int], author: str) -> None:
    """Bring the rules, known translations and references of a chunk of the file's items up to date, adding the
    ids of kept items whose rows changed to ``updated``."""
    parts = {model: PartChanges(model, suite_id, author) for model in PARTS}
    for item in items:
        ref = ItemRef(item_ids[item.external_id], item.external_id, item.external_id not in existing)
        known: list[dict[str, object]] = [{"kind": "good", "text": text} for text in _present(item.good)]
        known += [{"kind": "bad", "text": text} for text in _present(item.bad)]
        references: list[dict[str, object]] = [
            {"kind": reference.kind, "text": reference.text, "set_name": reference.set}
            for reference in item.references]
        wanted: dict[Part, list[dict[str, object]]] = {
            Rule: _rule_rows(item, rules), KnownTranslation: known, Reference: references}
        for model, rows in wanted.items():
            stored = old.get((model, ref.id), [])
            if fingerprint(model, rows) != fingerprint(model, [part.values for part in stored]):
                parts[model].replace(ref, stored, rows)
                if not ref.is_new:
                    updated.add(ref.id)
    for changes in parts.values():
        changes.write(session)


Places = dict[int | None, tuple[str | None, str | None]]
"""Phenomenon id -> (category, phenomenon) names."""


def _item_fields(values: dict[str, Any], keys: list[str], places: Places) -> dict[str, Any]:
    """An item's fields as its edits' history entries hold them: its category and phenomenon by name."""
    fields: dict[str, Any] = {}
    for key in keys:
        if key == "phenomenon_id":
            fields["category"], fields["phenomenon"] = places.get(values[key], (None, None))
        else:
            fields[key] = values[key]
    return fields


def _added_items(session: Session, suite_id: int, item_ids: list[int], places: Places, author: str, *,
                 suite_existed: bool) -> list[Change]:
    """Give new items a first version above any an earlier item with their id had and, when the suite existed
    before, the history entries of their addition, as ``suite.editing.items.add_item`` writes them."""
    versions = first_versions(session, Item, item_ids)
    later = [{"id": item_id, "version": version} for item_id, version in versions.items() if version > 1]
    if later:
        session.execute(update(Item), later)
    if not suite_existed:
        return []
    changes = []
    for chunk in _chunks(item_ids):
        for item_id, external_id, source, comment, phenomenon_id in session.execute(
                select(Item.id, Item.external_id, Item.source, Item.comment, Item.phenomenon_id)
                .where(Item.id.in_(chunk))):
            category, phenomenon = places.get(phenomenon_id, (None, None))
            changes.append(Change(suite_id, external_id, "item", item_id, "add", author, None,
                                  {"source": source, "comment": comment, "category": category,
                                   "phenomenon": phenomenon}, versions[item_id]))
    return changes


def _present(texts: Sequence[str]) -> list[str]:
    """Known translations without the empty entries that occur in the DFKI data (they say nothing)."""
    return [text for text in texts if text.strip()]


def place_ids(session: Session, suite_id: int, places: Sequence[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """Get or create the (category, phenomenon) places of a file's items in bulk, -> phenomenon id (the same
    phenomenon name may occur in several categories: a phenomenon belongs to its category)."""
    categories = dict(session.execute(select(Category.name, Category.id)
                                      .where(Category.suite_id == suite_id)).all())
    new_categories = list(dict.fromkeys(category for category, _ in places if category not in categories))
    if new_categories:
        session.execute(insert(Category), [{"suite_id": suite_id, "name": name} for name in new_categories])
        categories = dict(session.execute(select(Category.name, Category.id)
                                          .where(Category.suite_id == suite_id)).all())
    query = (select(Category.name, Phenomenon.name, Phenomenon.id)
             .join(Category, Category.id == Phenomenon.category_id).where(Category.suite_id == suite_id))
    phenomena = {(category, name): id_ for category, name, id_ in session.execute(query)}
    new_phenomena = list(dict.fromkeys(place for place in places if place not in phenomena))
    if new_phenomena:
        session.execute(insert(Phenomenon), [{"category_id": categories[category], "name": name}
                                             for category, name in new_phenomena])
        phenomena = {(category, name): id_ for category, name, id_ in session.execute(query)}
    return phenomena


def _remove_items(session: Session, item_ids: list[int], author: str) -> dict[str, int]:
    """Delete items (an explicit request) and say how much went with them; the history keeps a snapshot of
    each, as ``suite.editing.items.remove_item`` does, so ``restore_removed_item`` brings it back."""
    removed = {"items_removed": len(item_ids), "outputs_removed": 0, "manual_labels_removed": 0}
    loaded = {item.id: item for chunk in _chunks(item_ids)
              for item in session.scalars(select(Item).where(Item.id.in_(chunk)))}
    items = [loaded[item_id] for item_id in item_ids]
    removals = []
    for item, snapshot in zip(items, snapshot_items(session, items), strict=True):
        removed["outputs_removed"] += len(snapshot.outputs)
        removed["manual_labels_removed"] += sum(output.manual_label is not None for output in snapshot.outputs)
        removals.append(Change(item.suite_id, item.external_id, "item", item.id, "remove", author,
                               snapshot.to_dict(), None, None))
    for chunk in _chunks(item_ids):
        session.execute(delete(Item).where(Item.id.in_(chunk)))
    record(session, removals)
    return removed


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
