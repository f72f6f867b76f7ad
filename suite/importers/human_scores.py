"""Official system-level human scores (WMT's ``DA-syslevel.csv``: space-separated ``LP HUMAN SYSTEM``).

The scores are what a metric's system-level correlation is measured against (``tsqe correlate``). One file
holds every language pair of a WMT year, so only the lines of the chosen pair are imported; the whole file
is still checked, because a malformed line elsewhere means the file is not what it claims to be.
"""
from __future__ import annotations

import math
from pathlib import Path

from sqlalchemy import delete, insert, select

from store import Database
from store.models import HumanScore, System
from suite.errors import TsqeError
from suite.importers.result import ImportResult, Problems
from suite.importers.tables import read_lines
from suite.suites import find_suite, language_pair
from suite.tasks import TaskState, progress_of

HEADER = ("LP", "HUMAN", "SYSTEM")


def read_human_scores(path: Path, lp: str, problems: Problems | None = None) -> dict[str, tuple[float, int]]:
    """System -> (score, line) for ``lp``; the whole file is checked and any problem raises ``InputFileError``."""
    problems = problems if problems is not None else Problems(str(path))
    lines = read_lines(path, problems, file=str(path)) or []
    scores: dict[str, tuple[float, int]] = {}
    header_seen = False
    for number, line in enumerate(lines, start=1):
        fields = line.split(None, 2)
        if not fields:
            continue
        if not header_seen:
            header_seen = True
            if tuple(fields) != HEADER:
                problems.error(number, f"expected the header line {' '.join(HEADER)!r}, found {line.strip()!r}")
                break
            continue
        if len(fields) != 3:
            problems.error(number, f"expected three fields ({' '.join(HEADER)}), found {len(fields)}")
            continue
        pair, value, system = fields
        system = system.strip()
        try:
            score = float(value)
        except ValueError:
            problems.error(number, f"HUMAN {value!r} is not a number")
            continue
        if not math.isfinite(score):
            problems.error(number, f"HUMAN {value!r} is not a finite number")
            continue
        if pair != lp:
            continue
        if system in scores:
            problems.error(number, f"system {system!r} already has a {lp} score at line {scores[system][1]}")
            continue
        scores[system] = (score, number)
    problems.raise_if_any()
    if not scores:
        raise TsqeError(f"{path}: no scores for the language pair {lp!r}")
    return scores


def import_human_scores(db: Database, path: Path, *, lp: str, suite_name: str | None = None,
                        task: TaskState | None = None) -> ImportResult:
    """Store the ``lp`` scores of the suite's systems, replacing earlier ones; unmatched names are warnings."""
    task = progress_of(task)
    problems = Problems(str(path))
    task.progress(0, 2, "reading human scores")
    scores = read_human_scores(path, lp, problems)
    task.progress(1, 2, "writing human scores")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        systems = dict(session.execute(select(System.name, System.id).where(System.suite_id == suite.id)).all())
        matched = {name: value for name, value in scores.items() if name in systems}
        if not matched:
            raise TsqeError(f"{path}: none of the {len(scores)} {lp} systems is a system of suite "
                            f"{suite.name!r} (file: {', '.join(sorted(scores))}; suite: "
                            f"{', '.join(sorted(systems)) or 'none'})")
        suite_pair = language_pair(suite.source_lang, suite.target_lang)
        if suite_pair != lp:
            problems.warn(1, f"importing {lp} scores into suite {suite.name!r}, whose language pair is {suite_pair}")
        for name, (_, number) in sorted(scores.items(), key=lambda entry: entry[1][1]):
            if name not in systems:
                problems.warn(number, f"system {name!r} is not in suite {suite.name!r}; its score is ignored")
        for name in sorted(systems):
            if name not in scores:
                problems.warn(1, f"suite system {name!r} has no {lp} score in this file")
        ids = [systems[name] for name in matched]
        session.execute(delete(HumanScore).where(HumanScore.system_id.in_(ids)))
        session.execute(insert(HumanScore), [
            {"system_id": systems[name], "lp": lp, "score": score} for name, (score, _) in matched.items()])
        task.progress(2, 2, "human scores imported")  # before the commit: a cancel here still changes nothing
    return ImportResult(counts={"human_scores": len(matched)}, warnings=problems.warnings)
