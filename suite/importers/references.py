"""A reference set imported into an existing suite: plain text aligned with its items, or a table.

Two layouts, told apart by the file's suffix:

- ``.tsv``, ``.csv``, ``.xlsx``: a table with the columns ``item_id`` and ``text`` (an item may be listed
  more than once: its references in that order; an item not listed has no reference in the set);
- anything else: plain text with one reference per line, aligned with the suite's items in their order, as
  the sources of a WMT test set imported with ``tsqe import wmt`` are (line 1 is item 1).

Every line is checked before anything is written (unknown item ids, empty references, a line count that
differs from the suite's items), so a file with any error changes nothing. The set is written through
``suite.references.add_reference_set``, the one writer of named sets.
"""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from store import Database
from store.domain import NameKind
from store.models import STANDARD_REFERENCE, Item
from suite.errors import TsqeError
from suite.importers.lookups import StrippedIds
from suite.importers.names import given_name
from suite.importers.result import ImportResult, Problems
from suite.importers.table_files import TABLE_SUFFIXES, iter_table, read_lines
from suite.references import add_reference_set, check_set_name, reference_sets
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of


def import_references(db: Database, path: Path, *, name: str, kind: str = STANDARD_REFERENCE,
                      suite_name: str | None = None, task: TaskState | None = None) -> ImportResult:
    """Add the reference set ``name`` of ``kind`` from ``path`` to the suite; the counts say how many
    references were written and how many of the suite's items the set covers."""
    task = progress_of(task)
    problems = Problems(str(path))
    name = check_set_name(given_name(name, NameKind.REFERENCE_SET, problems) if name.strip() else name)
    task.progress(0, 2, f"reading reference set {name}")
    with db.session() as session:
        suite = find_suite(session, suite_name)
        items = list(session.execute(select(Item.external_id, Item.id).where(Item.suite_id == suite.id)
                                     .order_by(Item.position, Item.id)).all())
        taken = next((s for s in reference_sets(session, suite.id) if s.name == name), None)
    if taken is not None:
        raise TsqeError(f"suite {suite.name!r} already has a reference set {name!r} ({taken.references} "
                        "references); choose another name")
    if path.suffix.lower() in TABLE_SUFFIXES:
        texts = _from_table(path, dict(items), problems)
    else:
        texts = _from_lines(path, [item_id for _, item_id in items], problems)
    problems.raise_if_any()
    if not texts:
        raise TsqeError(f"{path}: no reference to import")
    task.progress(1, 2, f"writing reference set {name}")
    with db.transaction() as session:
        written = add_reference_set(session, suite.id, name, kind, texts)
        task.progress(2, 2, f"reference set {name} imported")
    return ImportResult(counts={"references": written, "items_covered": len(texts), "items": len(items)},
                        warnings=problems.warnings)


def _from_lines(path: Path, item_ids: list[int], problems: Problems) -> dict[int, list[str]]:
    lines = read_lines(path, problems)
    if lines is None:
        return {}
    if len(lines) != len(item_ids):
        problems.error(min(len(lines), len(item_ids)) + 1,
                       f"has {len(lines)} lines but the suite has {len(item_ids)} items: a plain-text reference "
                       "file holds one reference per item, in the items' order (a table of item_id and text "
                       "names the items it covers)")
        return {}
    texts: dict[int, list[str]] = {}
    for number, (line, item_id) in enumerate(zip(lines, item_ids), start=1):
        if not line.strip():
            problems.error(number, "empty reference line (to leave an item without a reference in this set, "
                                   "import a table of item_id and text)")
        else:
            texts[item_id] = [line.strip()]
    return texts


def _from_table(path: Path, item_ids: dict[str, int], problems: Problems) -> dict[int, list[str]]:
    texts: dict[int, list[str]] = {}
    stripped = StrippedIds(problems)
    for row in iter_table(path, problems, ("item_id", "text")):
        external_id = stripped.strip(row["item_id"], row.line)
        item = item_ids.get(external_id)
        if item is None:
            problems.error(row.line, f"the suite has no item {external_id!r}")
        elif not row["text"].strip():
            problems.error(row.line, "empty reference")
        else:
            texts.setdefault(item, []).append(row["text"].strip())
    stripped.report()
    return texts
