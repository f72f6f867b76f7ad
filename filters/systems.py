"""Which MT systems a comparison runs over: all, a named list, or the K best under a ranking.

Difficulty-aware BERTScore is meant for competitive systems (the paper's "top-K"), so the K best must be
decided by something other than the metric under study. The default ranking is therefore the official
human scores (the ``human_scores`` table, filled by ``tsqe import human-scores``); a WMT-style
``LP HUMAN SYSTEM`` file can be given instead, and, where no human judgement exists, any metric's
system average (e.g. ``bertscore-f``) can rank them - which the user then has to keep in mind.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from filters.metrics import MetricOptions, metric_spec
from filters.scoring import score_outputs
from store import Database
from store.models import HumanScore, Suite, System
from suite.errors import TsqeError
from suite.importers.human_scores import read_human_scores
from suite.lists import comma_list
from suite.reading.human_kinds import choose_human_kind, human_kinds
from suite.references import RefChoice
from suite.suites import UNKNOWN_LANGUAGE, find_suite, language_pair, suite_systems
from suite.tasks import TaskState

HUMAN = "human"


def rank_systems(db: Database, *, suite_name: str | None = None, rank_by: str = HUMAN,
                 refs: RefChoice | None = None, options: MetricOptions | None = None,
                 task: TaskState | None = None) -> list[tuple[str, float]]:
    """The suite's systems best first with the score that ranked them; ``rank_by`` is ``human``, a path
    to an ``LP HUMAN SYSTEM`` file (rows of the suite's language pair) or a metric name (against ``refs``)."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        known = set(suite_systems(session, suite.id, None))
        if rank_by == HUMAN:
            scores = _stored_human_scores(session, suite)
        elif Path(rank_by).is_file():
            lp = language_pair(suite.source_lang, suite.target_lang)
            if UNKNOWN_LANGUAGE in (suite.source_lang, suite.target_lang):
                raise TsqeError(f"suite {suite.name!r} is {lp}: its languages must be known to find its lines "
                                f"in {rank_by}")
            scores = {s: v for s, (v, _) in read_human_scores(Path(rank_by), lp).items() if s in known}
            if not scores:
                raise TsqeError(f"{rank_by}: no {lp} line names a system of this suite")
        else:
            scores = None
    if scores is None:
        spec = metric_spec(rank_by)  # it ranks with the scoring's references and model where it takes them
        segment = score_outputs(db, rank_by, suite_name=suite_name, refs=refs if spec.needs_references else None,
                                options=options if spec.needs_model else None, task=task)
        _, names, values = segment.matrix()
        means = np.nanmean(values, axis=0)
        scores = {n: float(m) if segment.higher_is_better else -float(m) for n, m in zip(names, means)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


def _stored_human_scores(session: Session, suite: Suite) -> dict[str, float]:
    """The suite's system-level human scores of its only kind (ranking by several kinds at once means nothing)."""
    if not human_kinds(session, suite.id):
        raise TsqeError("no human scores for this suite's systems: import them, or rank the systems by a human "
                        "scores file or a metric")
    kind = choose_human_kind(session, suite, None)
    rows = session.execute(select(System.name, HumanScore.score).join(HumanScore, HumanScore.system_id == System.id)
                           .where(System.suite_id == suite.id, HumanScore.kind == kind))
    scores = dict(rows.all())
    if not scores:
        raise TsqeError("no human scores for this suite's systems: import them, or rank the systems by a human "
                        "scores file or a metric")
    return scores


def choose_systems(db: Database, spec: str = "all", *, suite_name: str | None = None, rank_by: str = HUMAN,
                   refs: RefChoice | None = None, options: MetricOptions | None = None,
                   task: TaskState | None = None) -> list[str]:
    """``all``, ``top:K`` (K best under ``rank_by``) or a comma-separated list of system names."""
    if spec == "all":
        with db.session() as session:
            return suite_systems(session, find_suite(session, suite_name).id, None)
    if spec.startswith("top:"):
        try:
            k = int(spec[4:])
        except ValueError:
            k = 0
        if k < 1:
            raise TsqeError(f"systems {spec!r}: K must be a positive whole number")
        ranking = rank_systems(db, suite_name=suite_name, rank_by=rank_by, refs=refs, options=options, task=task)
        if k > len(ranking):
            raise TsqeError(f"systems {spec!r}: only {len(ranking)} systems are ranked")
        return [name for name, _ in ranking[:k]]
    names = comma_list(spec)
    with db.session() as session:
        return suite_systems(session, find_suite(session, suite_name).id, names)
