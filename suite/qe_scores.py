"""QE systems and their scores: saving, setting, listing, loading, removing, and reading a suite's scores.

A QE system is stored once (``qe_systems``) with one score per distinct output (``qe_scores``); imported
scores, trained models and reference-based metrics all share these two tables, and this module is the only
code that reads or writes them, so every consumer (accuracy, stability, filters, training) sees the same
scores whatever produced them. It lives below ``qe`` and ``filters`` so both can use it. Scores are written
with Core bulk inserts because a system scores tens of thousands of outputs.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import numpy as np
from sqlalchemy import CursorResult, Table, delete, exists, func, insert, literal, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from store import Database
from store.domain import NameKind
from store.models import Item, Output, QEScore, QESystem
from store.names import check_name
from suite.errors import TsqeError
from suite.suites import find_suite

QE_KINDS = ("imported", "features-svr", "pairwise-gb", "metric")
TIE_EPSILON_KEY = "tie_epsilon"
"""The key of a QE system's meta that holds its tie margin (``QEScores.tie_epsilon``)."""


@dataclass(frozen=True)
class QESystemInfo:
    """What ``tsqe qe list`` shows about one QE system."""

    id: int
    name: str
    kind: str
    higher_is_better: bool
    scores: int
    created_at: datetime
    meta: dict[str, Any]
    has_model: bool

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"


@dataclass(frozen=True)
class StoredQESystem:
    """A QE system with its serialised model, as needed to predict with it."""

    id: int
    name: str
    kind: str
    higher_is_better: bool
    meta: dict[str, Any]
    model: bytes | None


def _insert_scores(session: Session, system_id: int, scores: Mapping[int, float]) -> None:
    rows = [{"qe_system_id": system_id, "output_id": int(output_id), "score": float(score)}
            for output_id, score in scores.items()]
    if rows:
        try:
            session.execute(insert(QEScore), rows)
        except IntegrityError:
            raise TsqeError("QE scores name outputs that are not in the database; nothing was saved") from None


def save_qe_system(db: Database, *, name: str, kind: str, higher_is_better: bool, scores: Mapping[int, float],
                   meta: dict[str, Any], model: bytes | None = None, replace: bool = False) -> int:
    """Create the QE system ``name`` with its scores (output id -> score) and return its id.

    An existing system of that name is an error unless ``replace`` is true, in which case it is deleted
    with all its scores in the same transaction, so a failed save leaves the old system intact.
    """
    with db.transaction() as session:
        return add_qe_system(session, name=name, kind=kind, higher_is_better=higher_is_better, scores=scores,
                             meta=meta, model=model, replace=replace)


def add_qe_system(session: Session, *, name: str, kind: str, higher_is_better: bool, scores: Mapping[int, float],
                  meta: dict[str, Any], model: bytes | None = None, replace: bool = False) -> int:
    """:func:`save_qe_system` inside the caller's transaction, for a caller that writes more with it."""
    if kind not in QE_KINDS:
        raise TsqeError(f"unknown QE system kind {kind!r} (known: {', '.join(QE_KINDS)})")
    if not name.strip():
        raise TsqeError("a QE system needs a non-empty name")
    existing = replaceable_qe_system(session, name, replace=replace)
    if existing is not None:
        session.execute(delete(QEScore).where(QEScore.qe_system_id == existing))
        session.execute(delete(QESystem).where(QESystem.id == existing))
    system_id = session.execute(
        insert(QESystem).values(name=name, kind=kind, higher_is_better=higher_is_better,
                                meta=json.dumps(meta, ensure_ascii=False, sort_keys=True), model=model)
        .returning(QESystem.id)
    ).scalar_one()
    _insert_scores(session, system_id, scores)
    return int(system_id)


def replaceable_qe_system(session: Session, name: str, *, replace: bool) -> int | None:
    """The id of the QE system ``name`` (None: the name is free); refused when it exists and is not to be
    replaced."""
    existing = session.scalar(select(QESystem.id).where(QESystem.name == name))
    if existing is not None and not replace:
        raise TsqeError(f"a QE system named {name!r} already exists (choose another name or replace it)")
    return existing


def set_scores(db: Database, name: str, scores: Mapping[int, float]) -> int:
    """Replace the named system's scores of these outputs (other outputs keep theirs); returns the count."""
    with db.transaction() as session:
        system_id = _system_id(session, name)
        ids = [int(i) for i in scores]
        for start in range(0, len(ids), 500):
            session.execute(delete(QEScore).where(QEScore.qe_system_id == system_id,
                                                  QEScore.output_id.in_(ids[start:start + 500])))
        _insert_scores(session, system_id, scores)
    return len(scores)


def _system_id(session: Session, name: str) -> int:
    system_id = session.scalar(select(QESystem.id).where(QESystem.name == name))
    if system_id is None:
        known = ", ".join(session.scalars(select(QESystem.name).order_by(QESystem.name))) or "none"
        raise TsqeError(f"no QE system named {name!r} (QE systems in this database: {known})")
    return int(system_id)


@dataclass(frozen=True)
class MergedScores:
    """What :func:`merge_scores` did to a QE system's scores."""

    qe_system_id: int
    system_added: bool
    direction_changed: bool
    added: int
    changed: int
    unchanged: int


def merge_scores(session: Session, *, name: str, kind: str, higher_is_better: bool, scores: Mapping[int, float],
                 meta: dict[str, Any]) -> MergedScores:
    """Add scores to the QE system ``name`` of ``kind`` inside the caller's transaction, creating it if new.

    Scores of outputs the system already has are updated, others keep theirs, so importing a file in parts
    builds one system. A system of another kind is never mixed with these scores; the direction given wins
    for all of the system's scores (``direction_changed`` says when that changed it).
    """
    qe_system, added_system, direction_changed = _merged_system(session, name, kind, higher_is_better, meta)
    existing = dict(session.execute(select(QEScore.output_id, QEScore.score)
                                    .where(QEScore.qe_system_id == qe_system.id)).all())
    added = {o: score for o, score in scores.items() if o not in existing}
    changed = [{"qe_system_id": qe_system.id, "output_id": o, "score": score}
               for o, score in scores.items() if o in existing and existing[o] != score]
    _insert_scores(session, qe_system.id, added)
    if changed:
        session.execute(update(QEScore), changed)
    return MergedScores(qe_system_id=qe_system.id, system_added=added_system, direction_changed=direction_changed,
                        added=len(added), changed=len(changed), unchanged=len(scores) - len(added) - len(changed))


def merge_score_table(session: Session, *, name: str, kind: str, higher_is_better: bool, scores: Table,
                      meta: dict[str, Any]) -> MergedScores:
    """``merge_scores`` from a table of the caller's transaction (columns ``output_id``, unique, and ``score``),
    in a few statements: a file of millions of scores is never a dictionary in memory, nor are the system's
    scores already stored."""
    qe_system, added_system, direction_changed = _merged_system(session, name, kind, higher_is_better, meta)
    stored = cast(Table, QEScore.__table__)
    same_output = (stored.c.qe_system_id == qe_system.id) & (stored.c.output_id == scores.c.output_id)
    total = session.scalar(select(func.count()).select_from(scores)) or 0
    changed = session.scalar(select(func.count()).select_from(scores.join(stored, same_output))
                             .where(stored.c.score != scores.c.score)) or 0
    new = ~exists().where(same_output)
    added = session.scalar(select(func.count()).select_from(scores).where(new)) or 0
    if changed:
        session.execute(update(stored).where(stored.c.qe_system_id == qe_system.id,
                                             exists().where(scores.c.output_id == stored.c.output_id,
                                                            scores.c.score != stored.c.score))
                        .values(score=select(scores.c.score).where(scores.c.output_id == stored.c.output_id)
                                .scalar_subquery()))
    try:
        session.execute(insert(stored).from_select(["qe_system_id", "output_id", "score"],
                                                   select(literal(qe_system.id), scores.c.output_id, scores.c.score)
                                                   .where(new)))
    except IntegrityError:
        raise TsqeError("QE scores name outputs that are not in the database; nothing was saved") from None
    return MergedScores(qe_system_id=qe_system.id, system_added=added_system, direction_changed=direction_changed,
                        added=added, changed=changed, unchanged=total - added - changed)


def _merged_system(session: Session, name: str, kind: str, higher_is_better: bool,
                   meta: dict[str, Any]) -> tuple[QESystem, bool, bool]:
    """The QE system scores are merged into (created if new), whether it is new, and whether its direction
    changed."""
    name = check_name(name, NameKind.QE_SYSTEM).text
    qe_system = session.scalar(select(QESystem).where(QESystem.name == name))
    if qe_system is None:
        qe_system = QESystem(name=name, kind=kind, higher_is_better=higher_is_better,
                             meta=json.dumps(meta, ensure_ascii=False, sort_keys=True))
        session.add(qe_system)
        session.flush()
        return qe_system, True, False
    if qe_system.kind != kind:
        raise TsqeError(f"QE system {name!r} is a {qe_system.kind} system, not {kind} scores: choose another name")
    if qe_system.higher_is_better != higher_is_better:
        qe_system.higher_is_better = higher_is_better
        return qe_system, False, True
    return qe_system, False, False


def set_tie_epsilon(session: Session, system_id: int, tie_epsilon: float) -> None:
    """Give a QE system its tie margin (``QEScores.tie_epsilon``), kept in its meta."""
    system = session.get(QESystem, system_id)
    assert system is not None
    system.meta = json.dumps({**json.loads(system.meta or "{}"), TIE_EPSILON_KEY: tie_epsilon},
                             ensure_ascii=False, sort_keys=True)


def list_qe_systems(db: Database) -> list[QESystemInfo]:
    counts = (select(QEScore.qe_system_id, func.count().label("n")).group_by(QEScore.qe_system_id).subquery())
    query = (
        select(QESystem.id, QESystem.name, QESystem.kind, QESystem.higher_is_better, QESystem.created_at,
               QESystem.meta, QESystem.model.is_not(None).label("has_model"),
               func.coalesce(counts.c.n, 0).label("n"))
        .outerjoin(counts, counts.c.qe_system_id == QESystem.id)
        .order_by(QESystem.name)
    )
    with db.session() as session:
        return [QESystemInfo(id=row.id, name=row.name, kind=row.kind, higher_is_better=bool(row.higher_is_better),
                             scores=int(row.n), created_at=row.created_at, meta=json.loads(row.meta or "{}"),
                             has_model=bool(row.has_model))
                for row in session.execute(query)]


def load_qe_system(db: Database, name: str) -> StoredQESystem:
    with db.session() as session:
        system = session.get(QESystem, _system_id(session, name))
        assert system is not None
        return StoredQESystem(id=system.id, name=system.name, kind=system.kind,
                              higher_is_better=bool(system.higher_is_better), meta=json.loads(system.meta or "{}"),
                              model=system.model)


def remove_qe_system(db: Database, name: str) -> int:
    """Delete a QE system and its scores; returns how many scores went with it."""
    with db.transaction() as session:
        system_id = _system_id(session, name)
        removed = cast("CursorResult[Any]",
                       session.execute(delete(QEScore).where(QEScore.qe_system_id == system_id))).rowcount
        session.execute(delete(QESystem).where(QESystem.id == system_id))
    return int(removed or 0)


@dataclass(frozen=True)
class QEScores:
    """One QE system's segment scores over a suite's distinct outputs, as parallel arrays sorted by output id."""

    name: str
    higher_is_better: bool
    output_ids: np.ndarray  # int64
    scores: np.ndarray  # float64
    kind: str = "imported"
    """One of :data:`QE_KINDS`; scores built in memory (benchmarks, simulations) count as imported."""
    tie_epsilon: float = 0.0
    """Two scores at most this far apart are a tie in pairwise accuracy: the ``tie_epsilon`` of the system's
    meta, which a metric stored as a QE system takes from the metric registry and an import may give."""

    def by_output(self) -> dict[int, float]:
        return dict(zip(self.output_ids.tolist(), self.scores.tolist()))


def read_qe_scores(db: Database, suite_name: str | None = None,
                   names: Sequence[str] | None = None) -> list[QEScores]:
    """The scores of the named QE systems (all, in creation order, when ``names`` is None) on one suite."""
    with db.session() as session:
        return suite_qe_scores(session, find_suite(session, suite_name).id, names)


def suite_qe_scores(session: Session, suite_id: int, names: Sequence[str] | None = None) -> list[QEScores]:
    """:func:`read_qe_scores` inside the caller's session, for code that reads more in the same snapshot."""
    known = list(session.execute(select(QESystem.id, QESystem.name, QESystem.kind, QESystem.higher_is_better,
                                        QESystem.meta).order_by(QESystem.id)).all())
    if not known:
        raise TsqeError("the database holds no QE system yet: import scores or train a QE system first")
    by_name = {row.name: row for row in known}
    unknown = [n for n in names or () if n not in by_name]
    if unknown:
        raise TsqeError(f"no QE system named {', '.join(map(repr, unknown))} "
                        f"(known: {', '.join(r.name for r in known)})")
    result = []
    for system in known if names is None else [by_name[n] for n in names]:
        rows = session.execute(
            select(QEScore.output_id, QEScore.score)
            .join(Output, Output.id == QEScore.output_id)
            .join(Item, Item.id == Output.item_id)
            .where(QEScore.qe_system_id == system.id, Item.suite_id == suite_id)
            .order_by(QEScore.output_id)
        ).all()
        result.append(QEScores(
            name=system.name, higher_is_better=bool(system.higher_is_better), kind=system.kind,
            tie_epsilon=float(json.loads(system.meta or "{}").get(TIE_EPSILON_KEY, 0.0)),
            output_ids=np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)),
            scores=np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows)),
        ))
    return result
