"""Importing reviewed labels: TSV ``item_id, system, label, reviewer[, comment]``.

A review names a system's output, but the label belongs to the distinct output, so two rows that name
the same text (through different systems) must agree. Importing reviews is an explicit reviewer action:
it replaces existing manual labels of the outputs it names and leaves all others alone.
"""
from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from store import Database
from store.domain import NameKind
from store.models import MANUAL_LABELS, Item, ManualLabel, Output, utcnow
from suite.changes import Changes, Where
from suite.editing.history import Change, next_versions, record
from suite.engine.label_counts import ReviewMove, count_reviews
from suite.errors import TsqeError
from suite.importers.lookups import StrippedIds, SuiteIndex, resolve_system_output
from suite.importers.names import NameChecks
from suite.importers.result import ImportResult, Problems
from suite.importers.table_files import TableRow, read_table
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of


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
        reviews = _reviews(session, suite.id, path, problems)
        problems.raise_if_any()
        task.progress(1, 2, "writing reviews")
        counts = _write(session, suite.id, reviews)
        task.progress(2, 2, "reviews imported")  # before the commit: a cancel here still changes nothing
    return ImportResult(counts=counts, warnings=problems.warnings, changes=Changes(reviews=Where.of(reviews)),
                        summary=(f"manual labels of {counts['labels']:,} distinct outputs: {counts['labels_added']:,} "
                                 f"added, {counts['labels_changed']:,} changed, {counts['labels_unchanged']:,} "
                                 f"unchanged",))


def _reviews(session: Session, suite_id: int, path: Path, problems: Problems) -> dict[int, TableRow]:
    """The row that labels each distinct output."""
    rows = read_table(path, problems, ("item_id", "system", "label", "reviewer"), ("comment",))
    index = SuiteIndex.load(session, suite_id)
    reviews: dict[int, TableRow] = {}
    first_line: dict[tuple[str, str], int] = {}
    stripped = StrippedIds(problems)
    reviewers = NameChecks(problems, NameKind.REVIEWER)
    for row in rows:
        external_id, system = stripped.strip(row["item_id"], row.line), stripped.strip(row["system"], row.line)
        label = row["label"].strip().lower()
        if label not in MANUAL_LABELS:
            problems.error(row.line, f"label {row['label'].strip()!r} is not one of {', '.join(MANUAL_LABELS)}")
        if not row["reviewer"].strip():
            problems.error(row.line, "empty reviewer")
        else:
            reviewers.of(row["reviewer"], row.line)
        key = (external_id, system)
        if key in first_line:
            problems.error(row.line, f"duplicate review of system {system!r} on item {external_id!r} "
                                     f"(first at line {first_line[key]})")
            continue
        first_line[key] = row.line
        output_id = resolve_system_output(index, external_id, system, row.line, problems)
        if output_id is None or label not in MANUAL_LABELS:
            continue
        earlier = reviews.get(output_id)
        if earlier is None:
            reviews[output_id] = row
        elif earlier["label"].strip().lower() != label:
            problems.error(row.line, f"system {system!r} produced the same output for item {external_id!r} as "
                                     f"system {earlier['system'].strip()!r} at line {earlier.line}, which is "
                                     f"labelled {earlier['label'].strip().lower()!r}, not {label!r}")
    stripped.report()
    return reviews


def _write(session: Session, suite_id: int, reviews: dict[int, TableRow]) -> dict[str, int]:
    """Add and replace manual labels in bulk, each with a new version and one history entry (the importing
    reviewer is its author), so that a reviewer who had the output open sees their save refused."""
    existing = {row.output_id: row for row in session.execute(
        select(ManualLabel.output_id, ManualLabel.label, ManualLabel.reviewer, ManualLabel.comment,
               ManualLabel.version)
        .join(Output, Output.id == ManualLabel.output_id).join(Item, Item.id == Output.item_id)
        .where(Item.suite_id == suite_id))}
    now = utcnow()
    versions = next_versions(session, [output_id for output_id in reviews if output_id not in existing])
    added, changed, history, counted = [], [], [], []
    for output_id, row in reviews.items():
        reviewer = row["reviewer"].strip()
        values = {"label": row["label"].strip().lower(), "reviewer": reviewer,
                  "comment": row["comment"].strip() or None}
        old = existing.get(output_id)
        if old is None:
            added.append({"output_id": output_id, **values, "reviewed_at": now, "version": versions[output_id]})
            history.append(Change(suite_id, row["item_id"].strip(), "manual_label", output_id, "add",
                                  reviewer, None, values, versions[output_id]))
            counted.append(ReviewMove(output_id, None, values["label"]))
        elif (old.label, old.reviewer, old.comment) != (values["label"], reviewer, values["comment"]):
            changed.append({"output_id": output_id, **values, "reviewed_at": now, "version": old.version + 1})
            before = {"label": old.label, "reviewer": old.reviewer, "comment": old.comment}
            history.append(Change(suite_id, row["item_id"].strip(), "manual_label", output_id, "change",
                                  reviewer, before, values, old.version + 1))
            counted.append(ReviewMove(output_id, old.label, values["label"]))
    if added:
        session.execute(insert(ManualLabel), added)
    if changed:
        session.execute(update(ManualLabel), changed)
    record(session, history)
    count_reviews(session.connection(), counted)
    return {"labels": len(reviews), "labels_added": len(added), "labels_changed": len(changed),
            "labels_unchanged": len(reviews) - len(added) - len(changed)}
