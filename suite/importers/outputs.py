"""Importing MT outputs: a TSV ``item_id, system, output``, or one system's plain-text output file.

A plain-text file has one output per line, aligned either with the suite's item order or, given the
source file it was translated from, by exact (stripped) source text, which is how WMT distributes system
outputs of a test set that contains the suite's sentences among others.

Outputs are stored once per distinct stripped text per item and linked to each system that produced them.
Re-importing a system's output for an item replaces the link, with a history entry (entity ``output``, the
output the system no longer produces, its text before and the new one after); the old text is deleted only
when no other system produced it and no reviewer labelled it, so a reviewed output is never lost, and a
reviewer who still holds a deleted one is refused with who replaced it.
"""
from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import case, delete, exists, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store import Database
from store.locks import lock_outputs_of_suite
from store.models import Item, LabelFingerprint, ManualLabel, Output, System, SystemOutput
from suite.changes import Changes, Where
from suite.engine.label_run import LabelRun
from suite.errors import TsqeError
from suite.history import Change, check_author, record
from suite.importers.lookups import SuiteIndex, check_length, max_length, output_ids, resolve_item
from suite.importers.result import ImportResult, Problems
from suite.importers.tables import read_table, read_text, split_lines
from suite.item_edit import default_author
from suite.label_counts import add_unlabelled, automatic_counts, refresh_counts
from suite.labelling import relabel_items
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of

CHUNK = 500
_UNIQUE_VIOLATION = "23505"
"""PostgreSQL's code for a row whose key another transaction took."""


@dataclass(frozen=True)
class OutputRow:
    line: int
    item_id: int
    system: str
    text: str


def import_outputs(db: Database, path: str | os.PathLike[str], *, suite_name: str | None = None,
                   system: str | None = None, source: str | os.PathLike[str] | None = None,
                   author: str | None = None, label: bool = False, task: TaskState | None = None) -> ImportResult:
    """Import MT outputs; ``system`` makes ``path`` a plain-text file of that system's outputs. A replaced
    output is in the history under ``author`` (default: ``suite.item_edit.default_author``).

    ``label`` also labels the new outputs, in the same transaction: outputs are of no use to a reviewer
    unlabelled, and an import whose labelling failed or was cancelled must not stay half done (imported, not
    labelled). The labelling runs in this process (``suite.labelling.relabel_items``): worker processes read
    through their own connections and could not see outputs that are not committed yet."""
    path = Path(path)
    author = check_author(author if author is not None else default_author())
    task = progress_of(task)
    for file in (path, source):
        if file is not None and not Path(file).is_file():
            raise TsqeError(f"{file}: no such file")
    if system is not None and not 0 < len(system.strip()) <= max_length(System.name):
        raise TsqeError(f"a system name has 1 to {max_length(System.name)} characters, not {len(system.strip())}")
    if source is not None and system is None:
        raise TsqeError("a source file aligns a plain-text output file: also name its system")
    problems = Problems(str(path))
    counts: dict[str, int] = {}
    with _raced_as_user_error(path), db.transaction() as session:
        suite = find_suite(session, suite_name)
        index = SuiteIndex.load(session, suite.id)
        task.progress(0, 2, "reading MT outputs")
        if system is None:
            rows = _table_rows(path, index, problems)
        elif source is None:
            rows = _aligned_rows(session, suite.id, path, system, problems)
        else:
            rows = _rows_by_source(session, suite.id, path, Path(source), system, problems, counts)
        problems.raise_if_any()
        steps = 3 if label else 2
        task.progress(1, steps, "writing MT outputs")
        lock_outputs_of_suite(session, suite.id, labelling=label)  # before the new outputs take their ids
        counts.update(_write(session, suite.id, index, rows, author))
        touched = Where.of(row.item_id for row in rows)
        labelled = _label(session, suite.id, touched.ids, task.child(2 / steps, 1.0)) if label else None
        task.progress(steps, steps, "MT outputs imported")  # before the commit: a cancel here still changes nothing
    summary = _summary(counts) + ((f"labelling: {labelled.summary()}",) if labelled is not None else ())
    return ImportResult(counts=counts, warnings=problems.warnings, changes=Changes(outputs=touched, labels=touched),
                        summary=summary, labelled=labelled)


def _label(session: Session, suite_id: int, item_ids: frozenset[int], task: TaskState) -> LabelRun:
    """Label what the import added, inside its transaction, and say what that changed."""
    items = select(Item.id).where(Item.id.in_(sorted(item_ids)))
    before = automatic_counts(session.connection(), items)
    relabel_items(session, suite_id, item_ids, task=task)
    return LabelRun({}, before, automatic_counts(session.connection(), items))


def _summary(c: dict[str, int]) -> tuple[str, ...]:
    matched = (f"{c['lines_matched']:,} of {c['lines']:,} lines matched an item's source; {c['items_matched']:,} "
               f"items got an output, {c['items_unmatched']:,} did not",) if "lines" in c else ()
    return (*matched, f"{c['rows']:,} system outputs of {c['systems']:,} systems ({c['systems_added']:,} new): "
                      f"{c['system_outputs_added']:,} added, {c['system_outputs_changed']:,} changed, "
                      f"{c['system_outputs_unchanged']:,} unchanged; {c['distinct_outputs']:,} distinct outputs "
                      f"({c['outputs_added']:,} new, {c['outputs_removed']:,} replaced ones removed)")


@contextmanager
def _raced_as_user_error(path: Path) -> Iterator[None]:
    """Two imports into one suite run side by side on PostgreSQL; when both add the same system or output, the
    later one's insert fails on the key the earlier one's commit took (an import never adds one twice itself,
    and SQLite runs imports one after the other). That import is rolled back whole: the user imports it again."""
    try:
        yield
    except IntegrityError as error:
        if getattr(error.orig, "sqlstate", None) != _UNIQUE_VIOLATION:
            raise
        raise TsqeError(f"{path}: another import added the same system or output to this suite at the same "
                        f"moment; nothing was imported from this file: import it again") from error


def _table_rows(path: Path, index: SuiteIndex, problems: Problems) -> list[OutputRow]:
    rows: list[OutputRow] = []
    first_line: dict[tuple[str, str], int] = {}
    for row in read_table(path, problems, ("item_id", "system", "output")):
        external_id, system = row["item_id"].strip(), row["system"].strip()
        item_id = resolve_item(index, external_id, row.line, problems)
        if not system:
            problems.error(row.line, "empty system")
            continue
        check_length(system, System.name, "system name", row.line, problems)
        key = (external_id, system)
        if key in first_line:
            problems.error(row.line, f"duplicate output of system {system!r} for item {external_id!r} "
                                     f"(first at line {first_line[key]})")
            continue
        first_line[key] = row.line
        if item_id is not None:
            rows.append(OutputRow(row.line, item_id, system, row["output"].strip()))
    return rows


def _items_in_order(session: Session, suite_id: int) -> list[tuple[int, str]]:
    return list(session.execute(select(Item.id, Item.source).where(Item.suite_id == suite_id)
                                .order_by(Item.position, Item.id)))


def _lines(path: Path, problems: Problems, label: str | None = None) -> list[str] | None:
    errors = len(problems.errors)
    text = read_text(path, problems)
    if text is None and label is not None:  # re-label the decoding error with the file it belongs to
        problem = problems.errors.pop(errors)
        problems.error(problem.line, problem.message, file=label)
    if text is None:
        return None
    if not text.strip():
        problems.error(None, "the file is empty", file=label)
        return None
    return split_lines(text)


def _aligned_rows(session: Session, suite_id: int, path: Path, system: str,
                  problems: Problems) -> list[OutputRow]:
    """Line N is the output for the suite's N-th item."""
    lines = _lines(path, problems)
    if lines is None:
        return []
    items = _items_in_order(session, suite_id)
    if len(lines) > len(items):
        problems.error(len(items) + 1, f"the suite has {len(items)} items but the file goes on: one output "
                                       f"per line in item order was expected (or give the source file)")
    elif len(lines) < len(items):
        problems.error(len(lines), f"the file ends after {len(lines)} lines but the suite has {len(items)} "
                                   f"items: one output per line in item order was expected "
                                   f"(or give the source file)")
    return [OutputRow(number, item_id, system, line.strip())
            for number, ((item_id, _), line) in enumerate(zip(items, lines), start=1)]


def _rows_by_source(session: Session, suite_id: int, path: Path, source: Path, system: str,
                    problems: Problems, counts: dict[str, int]) -> list[OutputRow]:
    """Pair line N of the output file with line N of the source file and keep the lines whose source is
    an item's source (every item with that source gets the output).

    When a source sentence occurs on several lines the first occurrence is used; a later occurrence
    translated differently is reported as a warning, not an error, because WMT test sets do repeat
    sentences and systems may translate the repeats differently.
    """
    lines = _lines(path, problems)
    source_lines = _lines(source, problems, label=str(source))
    if lines is None or source_lines is None:
        return []
    if len(lines) != len(source_lines):
        problems.error(min(len(lines), len(source_lines)) + 1,
                       f"the file has {len(lines)} lines but the source file {source} has {len(source_lines)}: "
                       f"they must be line-aligned")
        return []
    items_by_source: dict[str, list[int]] = defaultdict(list)
    for item_id, text in _items_in_order(session, suite_id):
        items_by_source[text.strip()].append(item_id)
    rows: list[OutputRow] = []
    first: dict[str, tuple[int, str]] = {}
    for number, (source_line, line) in enumerate(zip(source_lines, lines), start=1):
        key, text = source_line.strip(), line.strip()
        if key not in items_by_source:
            continue
        if key in first:
            first_number, first_text = first[key]
            if text != first_text:
                problems.warn(number, f"source line {number} repeats line {first_number} but is translated "
                                      f"differently; kept the output of line {first_number}")
            continue
        first[key] = (number, text)
        rows += [OutputRow(number, item_id, system, text) for item_id in items_by_source[key]]
    counts.update({"lines": len(lines), "lines_matched": len(first), "items_matched": len(rows),
                   "items_unmatched": sum(len(ids) for ids in items_by_source.values()) - len(rows)})
    return rows


def _write(session: Session, suite_id: int, index: SuiteIndex, rows: list[OutputRow], author: str) -> dict[str, int]:
    new_systems = list(dict.fromkeys(row.system for row in rows if row.system not in index.system_ids))
    if new_systems:
        session.execute(insert(System), [{"suite_id": suite_id, "name": name} for name in new_systems])
    system_ids = dict(session.execute(select(System.name, System.id)
                                      .where(System.suite_id == suite_id)).all())

    outputs = output_ids(session, suite_id)
    new_outputs = list(dict.fromkeys((row.item_id, row.text) for row in rows
                                     if (row.item_id, row.text) not in outputs))
    if new_outputs:
        session.execute(insert(Output), [{"item_id": item_id, "text": text} for item_id, text in new_outputs])
        outputs = output_ids(session, suite_id)
        add_unlabelled(session.connection(), Counter(item_id for item_id, _ in new_outputs))

    added, changed, replaced = [], [], []
    for row in rows:
        key = (system_ids[row.system], row.item_id)
        output_id = outputs[(row.item_id, row.text)]
        old = index.system_outputs.get(key)
        link = {"system_id": key[0], "item_id": key[1], "output_id": output_id}
        if old is None:
            added.append(link)
        elif old != output_id:
            changed.append(link)
            replaced.append((row, old))
    if added:
        session.execute(insert(SystemOutput), added)
    if changed:
        session.execute(update(SystemOutput), changed)
    _record_replaced(session, suite_id, index, outputs, replaced, author)
    return {
        "rows": len(rows),
        "systems": len({row.system for row in rows}),
        "systems_added": len(new_systems),
        "distinct_outputs": len({(row.item_id, row.text) for row in rows}),
        "outputs_added": len(new_outputs),
        "system_outputs_added": len(added),
        "system_outputs_changed": len(changed),
        "system_outputs_unchanged": len(rows) - len(added) - len(changed),
        "outputs_removed": _remove_orphans(session, sorted({old for _, old in replaced})),
    }


def _record_replaced(session: Session, suite_id: int, index: SuiteIndex, outputs: dict[tuple[int, str], int],
                     replaced: list[tuple[OutputRow, int]], author: str) -> None:
    """One history entry per system output replaced: the output the system no longer produces, and its text
    before and the new one after (``outputs``: every output of the suite by (item id, text))."""
    texts = {output_id: text for (_, text), output_id in outputs.items()}
    external_ids = {item_id: external_id for external_id, item_id in index.item_ids.items()}
    record(session, [Change(suite_id, external_ids[row.item_id], "output", old, "change", author,
                            {"system": row.system, "text": texts[old]}, {"system": row.system, "text": row.text},
                            None) for row, old in replaced])


def _remove_orphans(session: Session, output_ids_: list[int]) -> int:
    """Delete replaced outputs that no system produces any more, unless a reviewer labelled them.

    Their items' labels then cover no further than their largest remaining output
    (``LabelFingerprint.labelled_through``): SQLite gives the next new output the id after the largest one
    left, which must count as new.
    """
    removed = 0
    for start in range(0, len(output_ids_), CHUNK):
        chunk = output_ids_[start:start + CHUNK]
        orphans = session.execute(
            select(Output.id, Output.item_id).where(
                Output.id.in_(chunk),
                ~exists().where(SystemOutput.output_id == Output.id),
                ~exists().where(ManualLabel.output_id == Output.id))).all()
        if orphans:
            session.execute(delete(Output).where(Output.id.in_([output_id for output_id, _ in orphans])))
            largest_left = func.coalesce(select(func.max(Output.id)).where(Output.item_id == LabelFingerprint.item_id)
                                         .scalar_subquery(), 0)
            session.execute(update(LabelFingerprint)
                            .where(LabelFingerprint.item_id.in_(sorted({item_id for _, item_id in orphans})))
                            .values(labelled_through=case((largest_left < LabelFingerprint.labelled_through,
                                                           largest_left), else_=LabelFingerprint.labelled_through)))
            refresh_counts(session.connection(), {item_id for _, item_id in orphans})
            removed += len(orphans)
    return removed
