"""Importing the segment scores of an external QE system: TSV ``item_id, system, score`` or
``item_id, output, score``.

Scores belong to distinct outputs. Identical outputs of several systems should get the same score; when
the file disagrees with itself (a non-deterministic or context-aware QE system) the mean is stored and
each disagreement is reported as a warning, so the import still succeeds and nothing is hidden.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import NamedTuple

from sqlalchemy import Column, Connection, Float, Integer, MetaData, Table, case, func, insert, select
from sqlalchemy.orm import Session

from store import Database
from store.domain import NameKind
from store.models import Item, Output, System
from suite.changes import Changes
from suite.errors import TsqeError
from suite.importers.limits import SHOWN_PROBLEMS
from suite.importers.lookups import LOOKUP_CHUNK, OutputLookup, StrippedIds, resolve_item
from suite.importers.names import given_name
from suite.importers.result import ImportResult, Problems
from suite.importers.table_files import TableRow, iter_table
from suite.qe_scores import merge_score_table, set_tie_epsilon
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of

TOLERANCE = 1e-9


_ROWS = Table("tsqe_qe_rows", MetaData(), Column("line", Integer, primary_key=True), Column("system_id", Integer),
              Column("output_id", Integer), Column("score", Float), prefixes=["TEMPORARY"])
"""Every score read, with its line and its output: duplicates and disagreements are found here, by the database,
once the file is read."""
_MEANS = Table("tsqe_qe_means", MetaData(), Column("output_id", Integer, primary_key=True), Column("score", Float),
               prefixes=["TEMPORARY"])
"""The score of each distinct output, merged into the QE system in a few statements."""


def import_qe_scores(db: Database, path: str | os.PathLike[str], *, name: str, lower_is_better: bool = False,
                     tie_epsilon: float | None = None, suite_name: str | None = None,
                     task: TaskState | None = None) -> ImportResult:
    """Create (or add scores to) the imported QE system ``name`` from the scores in ``path``; ``tie_epsilon``
    (None: keep the system's, 0 for a new one) is its tie margin in pairwise accuracy.

    The file is read row by row and its scores written, a chunk at a time, to temporary tables of the import's
    transaction, where duplicates, disagreements and the merge are worked out by the database: ten million rows
    take the memory of a chunk and of the suite's item ids, not of the rows (2.0 GB for 10 million rows when they
    were held as a list). Nothing reaches the QE system's scores unless the whole file is right."""
    path = Path(path)
    task = progress_of(task)
    if not path.is_file():
        raise TsqeError(f"{path}: no such file")
    problems = Problems(str(path))
    name = given_name(name, NameKind.QE_SYSTEM, problems)
    if tie_epsilon is not None and not tie_epsilon >= 0:
        raise TsqeError(f"a tie margin is 0 or more, not {tie_epsilon}")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        task.progress(0, 2, "reading QE scores")
        connection = session.connection()
        for table in (_ROWS, _MEANS):
            table.create(connection)
        _read_scores(session, suite.id, path, problems)
        _duplicates(session, problems)
        problems.raise_if_any()
        _means(connection, problems)
        task.progress(1, 2, "writing QE scores")
        counts = _write(session, path, name, not lower_is_better, problems)
        for table in (_ROWS, _MEANS):
            table.drop(connection)
        if tie_epsilon is not None:
            set_tie_epsilon(session, counts["qe_system_id"], tie_epsilon)
        task.progress(2, 2, "QE scores imported")  # before the commit: a cancel here still changes nothing
    return ImportResult(counts=counts, warnings=problems.warnings, changes=Changes(qe_systems=True),
                        summary=(f"QE system {name!r}{' (new)' if counts['qe_system_added'] else ''}: scores "
                                 f"for {counts['scores']:,} distinct outputs ({counts['scores_added']:,} added, "
                                 f"{counts['scores_changed']:,} changed, {counts['scores_unchanged']:,} unchanged)",))


class _Row(NamedTuple):
    line: int
    item_id: int
    external_id: str
    key: str
    """The system's name, or the output's text."""
    score: float


def _read_scores(session: Session, suite_id: int, path: Path, problems: Problems) -> None:
    """Every row of the file, checked and resolved to its output a chunk at a time, into ``_ROWS``."""
    item_ids = dict(session.execute(select(Item.external_id, Item.id).where(Item.suite_id == suite_id)).all())
    system_ids = dict(session.execute(select(System.name, System.id).where(System.suite_id == suite_id)).all())
    stripped = StrippedIds(problems)
    lookup = OutputLookup(session)
    by_system: bool | None = None
    chunk: list[_Row] = []
    for row in iter_table(path, problems, ("item_id", "score"), ("system", "output")):
        if by_system is None:
            columns = set(row.values)
            if ("system" in columns) == ("output" in columns):
                problems.error(1, "the header must name either a system column or an output column (not both)")
                break
            by_system = "system" in columns
        score = _score(row, problems)
        external_id = stripped.strip(row["item_id"], row.line)
        key = stripped.strip(row["system"], row.line) if by_system else row["output"].strip()
        item_id = resolve_item(item_ids, external_id, row.line, problems)
        if by_system and key not in system_ids:
            known = ", ".join(sorted(system_ids)) or "none imported yet"
            problems.error(row.line, f"unknown system {key!r} (systems of this suite: {known})" if key
                           else "empty system")
            continue
        if item_id is None or score is None:
            continue
        chunk.append(_Row(row.line, item_id, external_id, key, score))
        if len(chunk) == LOOKUP_CHUNK:
            _resolve(session, lookup, chunk, system_ids if by_system else None, problems)
            chunk = []
    if chunk:
        _resolve(session, lookup, chunk, system_ids if by_system else None, problems)
    lookup.close()
    stripped.report()
    if by_system is None and not problems.error_count:
        problems.error(None, "the file holds no scores")


def _resolve(session: Session, lookup: OutputLookup, chunk: list[_Row], system_ids: dict[str, int] | None,
             problems: Problems) -> None:
    """The outputs a chunk's rows score (by system, through the system outputs; else by text), into ``_ROWS``."""
    found = lookup.by_system([(system_ids[row.key], row.item_id) for row in chunk]) if system_ids is not None \
        else lookup.by_text([(row.item_id, row.key) for row in chunk])
    rows = []
    for row, output_id in zip(chunk, found, strict=True):
        if output_id is None:
            if system_ids is not None:
                problems.error(row.line, f"system {row.key!r} has no output for item {row.external_id!r}")
            else:
                shown = row.key if len(row.key) <= 60 else row.key[:57] + "..."
                problems.error(row.line, f"item {row.external_id!r} has no output {shown!r} (import the MT outputs "
                                         f"first)")
            continue
        rows.append({"line": row.line, "system_id": system_ids[row.key] if system_ids is not None else 0,
                     "output_id": output_id, "score": row.score})
    if rows:
        session.connection().execute(insert(_ROWS), rows)


def _duplicates(session: Session, problems: Problems) -> None:
    """A second score of a system's output for an item (or of the same output text), at its line, with the
    first's."""
    first = (select(_ROWS.c.system_id, _ROWS.c.output_id, func.min(_ROWS.c.line).label("first"))
             .group_by(_ROWS.c.system_id, _ROWS.c.output_id).having(func.count() > 1).subquery())
    repeated = (select(_ROWS.c.line, first.c.first, System.name, Item.external_id)
                .join(first, (first.c.system_id == _ROWS.c.system_id) & (first.c.output_id == _ROWS.c.output_id))
                .join(Output, Output.id == _ROWS.c.output_id).join(Item, Item.id == Output.item_id)
                .outerjoin(System, System.id == _ROWS.c.system_id)
                .where(_ROWS.c.line != first.c.first).order_by(_ROWS.c.line))
    for line, first_line, system, external_id in session.execute(repeated):
        what = f"system {system!r}" if system is not None else "this output"
        problems.error(line, f"duplicate score of {what} for item {external_id!r} (first at line {first_line})")


def _means(connection: Connection, problems: Problems) -> None:
    """The score of each distinct output into ``_MEANS``: its one score, or the mean where identical outputs of
    several systems were scored differently (each such output a warning, naming its scores and lines). A mean of
    equal scores is not taken: it can differ from them in the last digit."""
    low, high, mean = func.min(_ROWS.c.score), func.max(_ROWS.c.score), func.avg(_ROWS.c.score)
    connection.execute(insert(_MEANS).from_select(
        ["output_id", "score"], select(_ROWS.c.output_id, case((low == high, low), else_=mean))
        .group_by(_ROWS.c.output_id)))
    margin = TOLERANCE * case((func.abs(mean) > 1.0, func.abs(mean)), else_=1.0)
    differing = (select(_ROWS.c.output_id, func.max(_ROWS.c.line), mean).group_by(_ROWS.c.output_id)
                 .having(high - low > margin))
    for output_id, last_line, average in connection.execute(differing.order_by(func.max(_ROWS.c.line))
                                                            .limit(SHOWN_PROBLEMS)).all():
        scored = connection.execute(select(_ROWS.c.line, _ROWS.c.score).where(_ROWS.c.output_id == output_id)
                                    .order_by(_ROWS.c.line)).all()
        listed = ", ".join(f"{score:g} at line {line}" for line, score in scored)
        problems.warn(last_line, f"identical outputs were scored differently ({listed}); stored their mean "
                                 f"{average:g}")
    more = (connection.execute(select(func.count()).select_from(differing.subquery())).scalar() or 0) - SHOWN_PROBLEMS
    if more > 0:
        problems.warn(None, f"… and {more:,} more identical outputs scored differently, each stored as its mean")


def _score(row: TableRow, problems: Problems) -> float | None:
    text = row["score"].strip()
    try:
        score = float(text)
    except ValueError:
        problems.error(row.line, f"score {text!r} is not a number" if text else "empty score")
        return None
    if not math.isfinite(score):
        problems.error(row.line, f"score {text!r} is not a finite number")
        return None
    return score


def _write(session: Session, path: Path, name: str, higher_is_better: bool, problems: Problems) -> dict[str, int]:
    merged = merge_score_table(session, name=name, kind="imported", higher_is_better=higher_is_better,
                               scores=_MEANS, meta={"imported_from": path.name})
    if merged.direction_changed:
        direction = "higher" if higher_is_better else "lower"
        problems.warn(1, f"QE system {name!r} was imported as {'lower' if higher_is_better else 'higher'} "
                         f"is better; it is now {direction} is better for all its scores")
    scores = merged.added + merged.changed + merged.unchanged
    return {"qe_system_id": merged.qe_system_id, "qe_system_added": int(merged.system_added), "scores": scores,
            "scores_added": merged.added, "scores_changed": merged.changed, "scores_unchanged": merged.unchanged}
