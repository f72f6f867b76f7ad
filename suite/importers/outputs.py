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
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple, cast

from sqlalchemy import (
    Column,
    Connection,
    Integer,
    MetaData,
    Table,
    Text,
    case,
    delete,
    exists,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store import Database
from store.domain import NameKind
from store.locks import lock_outputs_of_suite
from store.models import Item, LabelFingerprint, ManualLabel, Output, System, SystemOutput
from store.names import check_name
from suite.changes import Changes, Where
from suite.editing.history import Change, check_author, record
from suite.editing.item_edit import default_author
from suite.editing.suite_edit import list_letterless
from suite.engine.label_counts import add_unlabelled, automatic_counts, refresh_counts
from suite.engine.label_run import LabelRun
from suite.engine.labelling import relabel_items
from suite.engine.output_policy import letterless
from suite.errors import TsqeError
from suite.importers.lookups import StrippedIds, check_length
from suite.importers.names import NameChecks
from suite.importers.result import ImportResult, Problems
from suite.importers.submission import read_map, returned_outputs
from suite.importers.table_files import iter_table, read_lines
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of

CHUNK = 5_000
"""Rows written at a time: an import's memory is that of a chunk, whatever the file's size."""
LABEL_ITEMS = 20_000
"""Items labelled at a time by an import that labels its outputs (``_label``)."""
LOOKUP = 500
"""(item, text) pairs looked up in one statement, well below every database's bound-parameter limit."""
_UNIQUE_VIOLATION = "23505"
"""PostgreSQL's code for a row whose key another transaction took."""


class ImportedOutput(NamedTuple):
    line: int
    item_id: int
    system: str
    text: str


def import_outputs(db: Database, path: str | os.PathLike[str], *, suite_name: str | None = None,
                   system: str | None = None, source: str | os.PathLike[str] | None = None,
                   submission_map: str | os.PathLike[str] | None = None,
                   author: str | None = None, label: bool = False, task: TaskState | None = None) -> ImportResult:
    """Import MT outputs; ``system`` makes ``path`` a plain-text file of that system's outputs. With
    ``submission_map`` (a test-suite submission's map, ``suite.importers.submission``), ``path`` is a system's
    returned translation of the submitted files: XML (systems named in it) or plain text of ``system``. A
    replaced output is in the history under ``author`` (default: ``suite.editing.item_edit.default_author``).

    ``label`` also labels the new outputs, in the same transaction: outputs are of no use to a reviewer
    unlabelled, and an import whose labelling failed or was cancelled must not stay half done (imported, not
    labelled). The labelling runs in this process (``suite.engine.labelling.relabel_items``): worker processes read
    through their own connections and could not see outputs that are not committed yet."""
    path = Path(path)
    author = check_author(author if author is not None else default_author())
    task = progress_of(task)
    for file in (path, source, submission_map):
        if file is not None and not Path(file).is_file():
            raise TsqeError(f"{file}: no such file")
    if submission_map is not None and source is not None:
        raise TsqeError("a submission's map and a source file both align outputs: give one of them")
    if system is not None:
        system = check_name(system, NameKind.SYSTEM).text
    if source is not None and system is None and submission_map is None:
        raise TsqeError("a source file aligns a plain-text output file: also name its system")
    problems = Problems(str(path))
    counts: dict[str, int] = {}
    steps = 2 if label else 1
    writing = task.child(0.0, 1.0 / steps)
    if system is None and submission_map is None:
        # a table: checked whole first, outside the write transaction, then read again to write
        writing.progress(0, 1, "checking MT outputs")
        with db.session() as session:
            rows_in_file = _count_checked(_table_rows(path, _item_ids(session, find_suite(session, suite_name).id),
                                                      problems))
        problems.raise_if_any()
    with _raced_as_user_error(path), db.transaction() as session:
        suite = find_suite(session, suite_name)
        writing.progress(0, 1, "reading MT outputs")
        rows: Iterable[ImportedOutput]
        if submission_map is not None:
            rows = _mapped_rows(path, Path(submission_map), _item_ids(session, suite.id), system, problems, counts)
            rows_in_file = len(rows)
        elif system is None:
            rows = _table_rows(path, _item_ids(session, suite.id), problems)
        elif source is None:
            rows = _aligned_rows(session, suite.id, path, system, problems)
            rows_in_file = len(rows)
        else:
            rows = _rows_by_source(session, suite.id, path, Path(source), system, problems, counts)
            rows_in_file = len(rows)
        problems.raise_if_any()
        lock_outputs_of_suite(session, suite.id, labelling=label)  # before the new outputs take their ids
        writer = OutputWriter(session, suite.id, author)
        for done, chunk in enumerate(output_chunks(rows), start=1):
            writer.write(chunk)
            writing.progress(min(done * CHUNK, rows_in_file), max(rows_in_file, 1), "writing MT outputs")
        problems.raise_if_any()  # a table that changed since it was checked: roll back
        counts.update(writer.finish())
        touched = Where.of(writer.item_ids)
        labelled = _label(session, suite.id, touched.ids, task.child(1.0 / steps, 1.0)) if label else None
        task.progress(1, 1, "MT outputs imported")  # before the commit: a cancel here still changes nothing
    summary = _summary(counts) + ((f"labelling: {labelled.summary()}",) if labelled is not None else ())
    return ImportResult(counts=counts, warnings=problems.warnings, changes=Changes(outputs=touched, labels=touched),
                        summary=summary, labelled=labelled)


def _label(session: Session, suite_id: int, item_ids: frozenset[int], task: TaskState) -> LabelRun:
    """Label what the import added, inside its transaction, and say what that changed.

    The items are labelled ``LABEL_ITEMS`` at a time: each call lists its items in one statement, and PostgreSQL
    takes at most 65,535 parameters in one (an import of outputs for 100,000 items failed there). Beyond that
    many items, the counts before and after are read for the whole suite: an item the import did not touch has
    the same counts in both."""
    ordered = sorted(item_ids)
    items = select(Item.id).where(Item.id.in_(ordered) if len(ordered) <= LABEL_ITEMS else Item.suite_id == suite_id)
    before = automatic_counts(session.connection(), items)
    parts = range(0, len(ordered), LABEL_ITEMS)
    for n, start in enumerate(parts):
        relabel_items(session, suite_id, ordered[start:start + LABEL_ITEMS],
                      task=task.child(n / len(parts), (n + 1) / len(parts)))
    return LabelRun({}, before, automatic_counts(session.connection(), items))


def _summary(c: dict[str, int]) -> tuple[str, ...]:
    matched = (f"{c['lines_matched']:,} of {c['lines']:,} lines matched an item's source; {c['items_matched']:,} "
               f"items got an output, {c['items_unmatched']:,} did not",) if "lines" in c else ()
    elsewhere = (f"{c['documents_elsewhere']:,} documents of the file are not the suite's (left alone)",) \
        if c.get("documents_elsewhere") else ()
    listed = c.get("placeholders_added", 0)
    placeholders = (f"{listed:,} output text{'s' if listed != 1 else ''} with no letter listed as the suite's "
                    "placeholders: left to the rules, out of Review's impact order",) if listed else ()
    return (*matched, *elsewhere,
            f"{c['rows']:,} system outputs of {c['systems']:,} systems ({c['systems_added']:,} new): "
            f"{c['system_outputs_added']:,} added, {c['system_outputs_changed']:,} changed, "
            f"{c['system_outputs_unchanged']:,} unchanged; {c['distinct_outputs']:,} distinct outputs "
            f"({c['outputs_added']:,} new, {c['outputs_removed']:,} replaced ones removed)", *placeholders)


def _count_checked(rows: Iterable[ImportedOutput]) -> int:
    return sum(1 for _ in rows)


def output_chunks(rows: Iterable[ImportedOutput]) -> Iterator[list[ImportedOutput]]:
    chunk: list[ImportedOutput] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _item_ids(session: Session, suite_id: int) -> dict[str, int]:
    rows = session.connection().execute(select(Item.external_id, Item.id).where(Item.suite_id == suite_id))
    return {external_id: item_id for external_id, item_id in rows}


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


def _table_rows(path: Path, item_ids: dict[str, int], problems: Problems) -> Iterator[ImportedOutput]:
    """The rows of an ``item_id, system, output`` table, one at a time, checked as they come.

    A system's second output for an item is found through ``_FirstLines``, not a set of every key read: two
    million rows must not cost two million entries in memory.
    """
    first_lines = _FirstLines(item_ids.values())
    names = NameChecks(problems, NameKind.SYSTEM)
    stripped = StrippedIds(problems)
    for row in iter_table(path, problems, ("item_id", "system", "output")):
        line, external_id, system = row.line, row["item_id"], row["system"]
        if external_id != external_id.strip() or system != system.strip():
            external_id, system = stripped.strip(external_id, line), stripped.strip(system, line)
        item_id = item_ids.get(external_id)
        if item_id is None:
            problems.error(line, f"unknown item id {external_id!r}" if external_id else "empty item_id")
        if not system:
            problems.error(line, "empty system")
            continue
        if names.of(system, line) is None:
            continue
        if item_id is None:
            continue
        first = first_lines.first(system, item_id, line)
        if first is not None:
            problems.error(line, f"duplicate output of system {system!r} for item {external_id!r} "
                                 f"(first at line {first})")
            continue
        yield ImportedOutput(line, item_id, system, row["output"].strip())
    stripped.report()


class _FirstLines:
    """The line of each system's first output for an item, to name it when a second one comes.

    Per system, a dictionary while the system has outputs for few items, and an array over the suite's items once
    the dictionary would take more memory: a table of 20 systems over 100,000 items costs 20 arrays (16 MB in all),
    and a hostile one naming a new system on every row a small dictionary per system, never an array per row.
    """

    _DICT_ENTRY_BYTES = 100
    """What one entry of a dictionary of ints costs, its key and value included (CPython, 64-bit)."""

    def __init__(self, item_ids: Iterable[int]) -> None:
        self._position = {item_id: index for index, item_id in enumerate(item_ids)}
        self._few: dict[str, dict[int, int]] = {}
        self._many: dict[str, array[int]] = {}

    def first(self, system: str, item_id: int, line: int) -> int | None:
        """The line of the system's earlier output for the item; None, after keeping ``line`` as the first, when
        there is none."""
        index = self._position[item_id]
        many = self._many.get(system)
        if many is not None:
            if many[index]:
                return many[index]
            many[index] = line
            return None
        few = self._few.setdefault(system, {})
        if index in few:
            return few[index]
        few[index] = line
        if len(few) * self._DICT_ENTRY_BYTES > 8 * len(self._position):
            lines = self._many[system] = array("Q", bytes(8 * len(self._position)))
            for known, first in self._few.pop(system).items():
                lines[known] = first
        return None


def _mapped_rows(path: Path, map_path: Path, item_ids: dict[str, int], system: str | None, problems: Problems,
                 counts: dict[str, int]) -> list[ImportedOutput]:
    """A returned translation of a test-suite submission, brought back to the items through its map. The rows are
    held (a returned file is read whole, so they are bounded as it is) and written in chunks as any others."""
    mapped = read_map(map_path, item_ids, problems)
    if problems.errors:
        return []
    returned = returned_outputs(path, mapped, system, problems)
    for row in returned.rows:
        check_length(row.system, System.name, "system name", row.line, problems)
    counts["documents_elsewhere"] = returned.documents_elsewhere
    return [ImportedOutput(row.line, row.item_id, row.system, row.text) for row in returned.rows]


def _items_in_order(session: Session, suite_id: int) -> list[tuple[int, str]]:
    return list(session.execute(select(Item.id, Item.source).where(Item.suite_id == suite_id)
                                .order_by(Item.position, Item.id)))


def _aligned_rows(session: Session, suite_id: int, path: Path, system: str,
                  problems: Problems) -> list[ImportedOutput]:
    """Line N is the output for the suite's N-th item."""
    lines = read_lines(path, problems)
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
    return [ImportedOutput(number, item_id, system, line.strip())
            for number, ((item_id, _), line) in enumerate(zip(items, lines), start=1)]


def _rows_by_source(session: Session, suite_id: int, path: Path, source: Path, system: str,
                    problems: Problems, counts: dict[str, int]) -> list[ImportedOutput]:
    """Pair line N of the output file with line N of the source file and keep the lines whose source is
    an item's source (every item with that source gets the output).

    When a source sentence occurs on several lines the first occurrence is used; a later occurrence
    translated differently is reported as a warning, not an error, because WMT test sets do repeat
    sentences and systems may translate the repeats differently.
    """
    lines = read_lines(path, problems)
    source_lines = read_lines(source, problems, file=str(source))
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
    rows: list[ImportedOutput] = []
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
        rows += [ImportedOutput(number, item_id, system, text) for item_id in items_by_source[key]]
    counts.update({"lines": len(lines), "lines_matched": len(first), "items_matched": len(rows),
                   "items_unmatched": sum(len(ids) for ids in items_by_source.values()) - len(rows)})
    return rows


_KEYS = Table("tsqe_import_keys", MetaData(), Column("row", Integer, primary_key=True), Column("item_id", Integer),
               Column("system_id", Integer), Column("text", Text), prefixes=["TEMPORARY"])
"""A chunk's rows, in a temporary table of the import's connection: joined to the outputs and system outputs
through their unique indexes, they are looked up in one statement, where a list of (item, text) pairs in an
``IN`` is a scan of the table on SQLite."""


_OUTPUTS = cast(Table, Output.__table__)
_SYSTEM_OUTPUTS = cast(Table, SystemOutput.__table__)
"""Written with Core's executemany: the ORM's bulk insert cost a third of an import's time."""


class OutputWriter:
    """Writes an import's rows chunk by chunk in its one transaction, looking up only the outputs and system outputs
    each chunk names (a suite of a million outputs is never read whole), and counts what it did: the one writer of
    outputs and system outputs from files (``tsqe import outputs``, and the test sets of ``suite.importers.wmt``)."""

    def __init__(self, session: Session, suite_id: int, author: str) -> None:
        self.session = session
        self.suite_id = suite_id
        self.author = author
        self.system_ids: dict[str, int] = dict(session.execute(select(System.name, System.id)
                                                               .where(System.suite_id == suite_id)).all())
        self.external_ids = {item_id: external_id for external_id, item_id in _item_ids(session, suite_id).items()}
        self.systems_seen: set[str] = set()
        self.item_ids: set[int] = set()
        """Items that got an output: what the import changed (bounded by the suite, not by the file)."""
        self.systems_added = 0
        self.outputs_seen = bytearray()
        self.counts = Counter[str]()
        self.replaced: set[int] = set()
        self.letterless: list[str] = []
        """The new outputs with no letter (``####``), listed as the suite's placeholders when the writer finishes."""
        self._keys_made = False

    def write(self, rows: list[ImportedOutput]) -> None:
        session = self.session
        new_systems = [name for name in dict.fromkeys(row.system for row in rows) if name not in self.system_ids]
        if new_systems:
            session.execute(insert(System), [{"suite_id": self.suite_id, "name": name} for name in new_systems])
            self.system_ids.update(session.execute(select(System.name, System.id).where(
                System.suite_id == self.suite_id, System.name.in_(new_systems))).all())
            self.systems_added += len(new_systems)
        self.systems_seen.update(row.system for row in rows)
        self.item_ids.update(row.item_id for row in rows)

        connection = session.connection()
        if not self._keys_made:
            _KEYS.create(connection)
            self._keys_made = True
        connection.execute(delete(_KEYS))
        connection.execute(insert(_KEYS), [{"row": number, "item_id": row.item_id,
                                            "system_id": self.system_ids[row.system], "text": row.text}
                                           for number, row in enumerate(rows)])
        found = self._lookup(connection)
        new_outputs = list(dict.fromkeys((row.item_id, row.text) for row, (output_id, _) in zip(rows, found)
                                         if output_id is None))
        if new_outputs:
            ids = connection.execute(insert(_OUTPUTS).returning(_OUTPUTS.c.id, sort_by_parameter_order=True),
                                     [{"item_id": item_id, "text": text} for item_id, text in new_outputs]).scalars()
            created = dict(zip(new_outputs, ids, strict=True))
            add_unlabelled(connection, new_outputs)
            found = [(created[(row.item_id, row.text)], old) if output_id is None else (output_id, old)
                     for row, (output_id, old) in zip(rows, found, strict=True)]
        self.counts["outputs_added"] += len(new_outputs)
        self.letterless.extend(text for _, text in new_outputs if letterless(text))

        added, changed, replaced = [], [], []
        for row, (output_id, old) in zip(rows, found, strict=True):
            assert output_id is not None
            self._saw(output_id)
            link = {"system_id": self.system_ids[row.system], "item_id": row.item_id, "output_id": output_id}
            if old is None:
                added.append(link)
            elif old != output_id:
                changed.append(link)
                replaced.append((row, old))
        if added:
            connection.execute(insert(_SYSTEM_OUTPUTS), added)
        if changed:
            session.execute(update(SystemOutput), changed)
        self._record_replaced(replaced)
        self.replaced.update(old for _, old in replaced)
        self.counts["rows"] += len(rows)
        self.counts["system_outputs_added"] += len(added)
        self.counts["system_outputs_changed"] += len(changed)

    @staticmethod
    def _lookup(connection: Connection) -> list[tuple[int | None, int | None]]:
        """Per row of the chunk in ``_KEYS``: the id of its output if stored, and of the output its system had
        for the item (both through their unique indexes, one statement for the chunk)."""
        return [(output_id, old) for _, output_id, old in connection.execute(
            select(_KEYS.c.row, Output.id, SystemOutput.output_id)
            .outerjoin(Output, (Output.item_id == _KEYS.c.item_id) & (Output.text == _KEYS.c.text))
            .outerjoin(SystemOutput, (SystemOutput.system_id == _KEYS.c.system_id)
                       & (SystemOutput.item_id == _KEYS.c.item_id))
            .order_by(_KEYS.c.row))]

    def _saw(self, output_id: int) -> None:
        """Mark an output as one of the import's distinct outputs, in a bit array over output ids."""
        byte = output_id >> 3
        if byte >= len(self.outputs_seen):
            self.outputs_seen.extend(bytes(max(byte + 1 - len(self.outputs_seen), len(self.outputs_seen))))
        self.outputs_seen[byte] |= 1 << (output_id & 7)

    def _record_replaced(self, replaced: list[tuple[ImportedOutput, int]]) -> None:
        """One history entry per system output replaced: the output the system no longer produces, and its text
        before and the new one after."""
        if not replaced:
            return
        texts = dict(self.session.execute(select(Output.id, Output.text)
                                          .where(Output.id.in_(sorted({old for _, old in replaced})))).all())
        record(self.session, [Change(self.suite_id, self.external_ids[row.item_id], "output", old, "change",
                                     self.author, {"system": row.system, "text": texts[old]},
                                     {"system": row.system, "text": row.text}, None) for row, old in replaced])

    def finish(self) -> dict[str, int]:
        if self._keys_made:
            _KEYS.drop(self.session.connection())
        rows = self.counts["rows"]
        listed = list_letterless(self.session, self.suite_id, self.letterless, self.author)
        return {
            "rows": rows,
            "systems": len(self.systems_seen),
            "systems_added": self.systems_added,
            "distinct_outputs": sum(bin(byte).count("1") for byte in self.outputs_seen),
            "outputs_added": self.counts["outputs_added"],
            "system_outputs_added": self.counts["system_outputs_added"],
            "system_outputs_changed": self.counts["system_outputs_changed"],
            "system_outputs_unchanged": rows - self.counts["system_outputs_added"]
                                        - self.counts["system_outputs_changed"],
            "outputs_removed": _remove_orphans(self.session, sorted(self.replaced)),
            **({"placeholders_added": len(listed)} if listed else {}),
        }


def _remove_orphans(session: Session, output_ids_: list[int]) -> int:
    """Delete replaced outputs that no system produces any more, unless a reviewer labelled them.

    Their items' labels then cover no further than their largest remaining output
    (``LabelFingerprint.labelled_through``): SQLite gives the next new output the id after the largest one
    left, which must count as new.
    """
    removed = 0
    for start in range(0, len(output_ids_), LOOKUP):
        chunk = output_ids_[start:start + LOOKUP]
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
