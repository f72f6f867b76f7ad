"""Importing the segment scores of an external QE system: TSV ``item_id, system, score`` or
``item_id, output, score``.

Scores belong to distinct outputs. Identical outputs of several systems should get the same score; when
the file disagrees with itself (a non-deterministic or context-aware QE system) the mean is stored and
each disagreement is reported as a warning, so the import still succeeds and nothing is hidden.
"""
from __future__ import annotations

import math
import os
from collections import defaultdict
from pathlib import Path

from sqlalchemy.orm import Session

from store import Database
from store.domain import NameKind
from suite.changes import Changes
from suite.errors import TsqeError
from suite.importers.lookups import StrippedIds, SuiteIndex, output_ids, resolve_item, resolve_system_output
from suite.importers.names import given_name
from suite.importers.result import ImportResult, Problems
from suite.importers.table_files import TableRow, read_table
from suite.qe_scores import merge_scores, set_tie_epsilon
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of

TOLERANCE = 1e-9


def import_qe_scores(db: Database, path: str | os.PathLike[str], *, name: str, lower_is_better: bool = False,
                     tie_epsilon: float | None = None, suite_name: str | None = None,
                     task: TaskState | None = None) -> ImportResult:
    """Create (or add scores to) the imported QE system ``name`` from the scores in ``path``; ``tie_epsilon``
    (None: keep the system's, 0 for a new one) is its tie margin in pairwise accuracy."""
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
        scores = _scores(session, suite.id, path, problems)
        problems.raise_if_any()
        task.progress(1, 2, "writing QE scores")
        counts = _write(session, path, name, not lower_is_better, scores, problems)
        if tie_epsilon is not None:
            set_tie_epsilon(session, counts["qe_system_id"], tie_epsilon)
        task.progress(2, 2, "QE scores imported")  # before the commit: a cancel here still changes nothing
    return ImportResult(counts=counts, warnings=problems.warnings, changes=Changes(qe_systems=True),
                        summary=(f"QE system {name!r}{' (new)' if counts['qe_system_added'] else ''}: scores "
                                 f"for {counts['scores']:,} distinct outputs ({counts['scores_added']:,} added, "
                                 f"{counts['scores_changed']:,} changed, {counts['scores_unchanged']:,} unchanged)",))


def _scores(session: Session, suite_id: int, path: Path, problems: Problems) -> dict[int, float]:
    """Score per output id, the mean where rows for the same distinct output disagree."""
    rows = read_table(path, problems, ("item_id", "score"), ("system", "output"))
    if problems.error_count:
        return {}
    columns = set(rows[0].values) if rows else set()
    if not rows:
        problems.error(None, "the file holds no scores")
    elif ("system" in columns) == ("output" in columns):
        problems.error(1, "the header must name either a system column or an output column (not both)")
    if problems.error_count:
        return {}
    by_system = "system" in columns
    index = SuiteIndex.load(session, suite_id)
    outputs = {} if by_system else output_ids(session, suite_id)
    found: dict[int, list[tuple[int, float]]] = defaultdict(list)
    first_line: dict[tuple[str, str], int] = {}
    stripped = StrippedIds(problems)
    for row in rows:
        score = _score(row, problems)
        external_id = stripped.strip(row["item_id"], row.line)
        key_text = stripped.strip(row["system"], row.line) if by_system else row["output"].strip()
        key = (external_id, key_text)
        if key in first_line:
            what = f"system {key_text!r}" if by_system else "this output"
            problems.error(row.line, f"duplicate score of {what} for item {external_id!r} "
                                     f"(first at line {first_line[key]})")
            continue
        first_line[key] = row.line
        if by_system:
            output_id = resolve_system_output(index, external_id, key_text, row.line, problems)
        else:
            output_id = _output_by_text(index, outputs, external_id, key_text, row.line, problems)
        if output_id is not None and score is not None:
            found[output_id].append((row.line, score))
    stripped.report()
    result = {}
    for output_id, scored in found.items():
        values = [score for _, score in scored]
        mean = math.fsum(values) / len(values)
        if max(values) - min(values) > TOLERANCE * max(1.0, abs(mean)):
            listed = ", ".join(f"{score:g} at line {line}" for line, score in scored)
            problems.warn(scored[-1][0], f"identical outputs were scored differently ({listed}); "
                                         f"stored their mean {mean:g}")
        result[output_id] = mean
    return result


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


def _output_by_text(index: SuiteIndex, outputs: dict[tuple[int, str], int], external_id: str, text: str,
                    line: int, problems: Problems) -> int | None:
    item_id = resolve_item(index.item_ids, external_id, line, problems)
    if item_id is None:
        return None
    output_id = outputs.get((item_id, text))
    if output_id is None:
        shown = text if len(text) <= 60 else text[:57] + "..."
        problems.error(line, f"item {external_id!r} has no output {shown!r} (import the MT outputs first)")
    return output_id


def _write(session: Session, path: Path, name: str, higher_is_better: bool, scores: dict[int, float],
           problems: Problems) -> dict[str, int]:
    merged = merge_scores(session, name=name, kind="imported", higher_is_better=higher_is_better, scores=scores,
                          meta={"imported_from": path.name})
    if merged.direction_changed:
        direction = "higher" if higher_is_better else "lower"
        problems.warn(1, f"QE system {name!r} was imported as {'lower' if higher_is_better else 'higher'} "
                         f"is better; it is now {direction} is better for all its scores")
    return {"qe_system_id": merged.qe_system_id, "qe_system_added": int(merged.system_added), "scores": len(scores),
            "scores_added": merged.added, "scores_changed": merged.changed, "scores_unchanged": merged.unchanged}
