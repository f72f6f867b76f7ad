"""Importing reviewed labels: TSV ``item_id, system, label, reviewer[, comment]``.

A review names a system's output, but the label belongs to the distinct output, so two rows that name
the same text (through different systems) must agree. Importing reviews is an explicit reviewer action:
it replaces existing manual labels of the outputs it names and leaves all others alone.
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import Column, Integer, MetaData, Table, Text, func, insert, select, update
from sqlalchemy.orm import Session, aliased

from store import Database
from store.domain import NameKind
from store.models import MANUAL_LABELS, Item, ManualLabel, Output, System, utcnow
from suite.changes import ANYWHERE, Changes, Where
from suite.editing.history import Change, next_versions, record
from suite.engine.label_counts import ReviewMove, count_reviews
from suite.errors import TsqeError
from suite.importers.lookups import LOOKUP_CHUNK, OutputLookup, StrippedIds, resolve_item
from suite.importers.names import NameChecks
from suite.importers.result import ImportResult, Problems
from suite.importers.table_files import iter_table
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of

_REVIEWS = Table("tsqe_import_reviews", MetaData(), Column("line", Integer, primary_key=True),
                 Column("system_id", Integer), Column("output_id", Integer), Column("label", Text),
                 Column("reviewer", Text), Column("comment", Text), prefixes=["TEMPORARY"])
"""Every review read, with its line and output: duplicates and disagreeing labels are found here by the
database, and the reviews written from here a chunk at a time, so that a file of millions of rows takes the
memory of a chunk (a review held as a row cost 2.7 KB: 10 million rows would have taken 27 GB)."""
_FIRSTS = Table("tsqe_import_first_reviews", MetaData(), Column("output_id", Integer, primary_key=True),
                Column("line", Integer), prefixes=["TEMPORARY"])
"""The line of each output's first review (its review), made once: the reviews are written in pages of it."""
WRITE_CHUNK = 5_000
SHOWN_IDS = 100_000
"""Reviewed outputs named one by one to the window's screens; past this, the import changed reviews anywhere."""


def import_reviews(db: Database, path: str | os.PathLike[str], *, suite_name: str | None = None,
                   task: TaskState | None = None) -> ImportResult:
    path = Path(path)
    task = progress_of(task)
    if not path.is_file():
        raise TsqeError(f"{path}: no such file")
    problems = Problems(str(path))
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        task.progress(0, 2, "reading reviews")
        connection = session.connection()
        _REVIEWS.create(connection)
        _FIRSTS.create(connection)
        systems = _read_reviews(session, suite.id, path, problems)
        connection.execute(insert(_FIRSTS).from_select(["output_id", "line"], select(
            _REVIEWS.c.output_id, func.min(_REVIEWS.c.line)).group_by(_REVIEWS.c.output_id)))
        _check_reviews(session, systems, problems)
        problems.raise_if_any()
        task.progress(1, 2, "writing reviews")
        counts, reviewed = _write(session, suite.id)
        _FIRSTS.drop(connection)
        _REVIEWS.drop(connection)
        task.progress(2, 2, "reviews imported")  # before the commit: a cancel here still changes nothing
    return ImportResult(counts=counts, warnings=problems.warnings, changes=Changes(reviews=reviewed),
                        summary=(f"manual labels of {counts['labels']:,} distinct outputs: {counts['labels_added']:,} "
                                 f"added, {counts['labels_changed']:,} changed, {counts['labels_unchanged']:,} "
                                 f"unchanged",))


class _Review(NamedTuple):
    line: int
    system_id: int
    item_id: int
    external_id: str
    system: str
    label: str
    reviewer: str
    comment: str | None


def _read_reviews(session: Session, suite_id: int, path: Path, problems: Problems) -> dict[int, str]:
    """Every row, checked and resolved to its output a chunk at a time, into ``_REVIEWS``; the suite's systems by
    id, for the messages."""
    item_ids = dict(session.execute(select(Item.external_id, Item.id).where(Item.suite_id == suite_id)).all())
    system_ids = dict(session.execute(select(System.name, System.id).where(System.suite_id == suite_id)).all())
    lookup = OutputLookup(session)
    stripped = StrippedIds(problems)
    reviewers = NameChecks(problems, NameKind.REVIEWER)
    chunk: list[_Review] = []
    for row in iter_table(path, problems, ("item_id", "system", "label", "reviewer"), ("comment",)):
        external_id, system = stripped.strip(row["item_id"], row.line), stripped.strip(row["system"], row.line)
        label = row["label"].strip().lower()
        if label not in MANUAL_LABELS:
            problems.error(row.line, f"label {row['label'].strip()!r} is not one of {', '.join(MANUAL_LABELS)}")
        reviewer = reviewers.of(row["reviewer"], row.line) if row["reviewer"].strip() else None
        if not row["reviewer"].strip():
            problems.error(row.line, "empty reviewer")
        item_id = resolve_item(item_ids, external_id, row.line, problems)
        system_id = system_ids.get(system)
        if system_id is None:
            known = ", ".join(sorted(system_ids)) or "none imported yet"
            problems.error(row.line, f"unknown system {system!r} (systems of this suite: {known})" if system
                           else "empty system")
        if item_id is None or system_id is None or label not in MANUAL_LABELS or reviewer is None:
            continue
        chunk.append(_Review(row.line, system_id, item_id, external_id, system, label, reviewer,
                             row["comment"].strip() or None))
        if len(chunk) == LOOKUP_CHUNK:
            _resolve(session, lookup, chunk, problems)
            chunk = []
    if chunk:
        _resolve(session, lookup, chunk, problems)
    lookup.close()
    stripped.report()
    return {system_id: name for name, system_id in system_ids.items()}


def _resolve(session: Session, lookup: OutputLookup, chunk: list[_Review], problems: Problems) -> None:
    rows = []
    for review, output_id in zip(chunk, lookup.by_system([(r.system_id, r.item_id) for r in chunk]), strict=True):
        if output_id is None:
            problems.error(review.line, f"system {review.system!r} has no output for item {review.external_id!r}")
            continue
        rows.append({"line": review.line, "system_id": review.system_id, "output_id": output_id,
                     "label": review.label, "reviewer": review.reviewer, "comment": review.comment})
    if rows:
        session.connection().execute(insert(_REVIEWS), rows)


def _check_reviews(session: Session, systems: dict[int, str], problems: Problems) -> None:
    """A system's second review of an item, and a review of an output (through another system that produced the
    same text) whose label differs from the output's first review."""
    first_of_system = (select(_REVIEWS.c.system_id, _REVIEWS.c.output_id, func.min(_REVIEWS.c.line).label("first"))
                       .group_by(_REVIEWS.c.system_id, _REVIEWS.c.output_id).subquery())
    repeated = (select(_REVIEWS.c.line, first_of_system.c.first, _REVIEWS.c.system_id, Item.external_id)
                .select_from(_REVIEWS).join(first_of_system, (first_of_system.c.system_id == _REVIEWS.c.system_id)
                      & (first_of_system.c.output_id == _REVIEWS.c.output_id))
                .join(Output, Output.id == _REVIEWS.c.output_id).join(Item, Item.id == Output.item_id)
                .where(_REVIEWS.c.line != first_of_system.c.first).order_by(_REVIEWS.c.line))
    for line, first, system_id, external_id in session.execute(repeated):
        problems.error(line, f"duplicate review of system {systems[system_id]!r} on item {external_id!r} (first at "
                             f"line {first})")
    first, other = aliased(_REVIEWS), aliased(_REVIEWS)
    differing = (select(other.c.line, other.c.system_id, other.c.label, first.c.line, first.c.system_id,
                        first.c.label, Item.external_id)
                 .select_from(other).join(_FIRSTS, _FIRSTS.c.output_id == other.c.output_id)
                 .join(first, first.c.line == _FIRSTS.c.line)
                 .join(Output, Output.id == other.c.output_id).join(Item, Item.id == Output.item_id)
                 .where(other.c.label != first.c.label, other.c.system_id != first.c.system_id)
                 .order_by(other.c.line))
    for line, system_id, label, earlier_line, earlier_system, earlier_label, external_id in session.execute(differing):
        problems.error(line, f"system {systems[system_id]!r} produced the same output for item {external_id!r} as "
                             f"system {systems[earlier_system]!r} at line {earlier_line}, which is labelled "
                             f"{earlier_label!r}, not {label!r}")


def _write(session: Session, suite_id: int) -> tuple[dict[str, int], Where]:
    """Add and replace manual labels in bulk, each with a new version and one history entry (the importing
    reviewer is its author), so that a reviewer who had the output open sees their save refused; the first
    review of each output is its review, written a chunk of outputs at a time."""
    reviews = (select(_FIRSTS.c.output_id, _REVIEWS.c.label, _REVIEWS.c.reviewer, _REVIEWS.c.comment,
                      Item.external_id)
               .select_from(_FIRSTS).join(_REVIEWS, _REVIEWS.c.line == _FIRSTS.c.line)
               .join(Output, Output.id == _FIRSTS.c.output_id).join(Item, Item.id == Output.item_id))
    counts = Counter[str]()
    reviewed: list[int] = []
    after = 0
    now = utcnow()
    while True:
        chunk = session.execute(reviews.where(_FIRSTS.c.output_id > after).order_by(_FIRSTS.c.output_id)
                                .limit(WRITE_CHUNK)).all()
        if not chunk:
            break
        after = chunk[-1].output_id
        if len(reviewed) <= SHOWN_IDS:
            reviewed.extend(row.output_id for row in chunk)
        _write_chunk(session, suite_id, chunk, now, counts)
    where = Where.of(reviewed) if len(reviewed) <= SHOWN_IDS else ANYWHERE
    return {"labels": counts["labels"], "labels_added": counts["added"], "labels_changed": counts["changed"],
            "labels_unchanged": counts["labels"] - counts["added"] - counts["changed"]}, where


def _write_chunk(session: Session, suite_id: int, chunk: Sequence[Any], now: datetime, counts: Counter[str]) -> None:
    ids = [row.output_id for row in chunk]
    existing = {row.output_id: row for row in session.execute(
        select(ManualLabel.output_id, ManualLabel.label, ManualLabel.reviewer, ManualLabel.comment,
               ManualLabel.version).where(ManualLabel.output_id.in_(ids)))}
    versions = next_versions(session, [output_id for output_id in ids if output_id not in existing])
    added, changed, history, counted = [], [], [], []
    for output_id, label, reviewer, comment, external_id in chunk:
        values = {"label": label, "reviewer": reviewer, "comment": comment}
        old = existing.get(output_id)
        if old is None:
            added.append({"output_id": output_id, **values, "reviewed_at": now, "version": versions[output_id]})
            history.append(Change(suite_id, external_id, "manual_label", output_id, "add", reviewer, None, values,
                                  versions[output_id]))
            counted.append(ReviewMove(output_id, None, label))
        elif (old.label, old.reviewer, old.comment) != (label, reviewer, comment):
            changed.append({"output_id": output_id, **values, "reviewed_at": now, "version": old.version + 1})
            before = {"label": old.label, "reviewer": old.reviewer, "comment": old.comment}
            history.append(Change(suite_id, external_id, "manual_label", output_id, "change", reviewer, before,
                                  values, old.version + 1))
            counted.append(ReviewMove(output_id, old.label, label))
    if added:
        session.execute(insert(ManualLabel), added)
    if changed:
        session.execute(update(ManualLabel), changed)
    record(session, history)
    count_reviews(session.connection(), counted)
    counts.update(labels=len(chunk), added=len(added), changed=len(changed))
