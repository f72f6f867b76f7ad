"""Which kinds of human scores a suite holds (``human_score_sets``: one row per kind, DA, z, ESA, MQM), and the one
a statistic is computed on: a researcher holds DA and MQM (or ESA) for the same segments and chooses per statistic.
Every reader of human scores asks here, so that the choice and its errors are the same on every path."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from store import Database
from store.domain import HumanScoreKind
from store.models import HumanScoreSet, Suite
from suite.errors import TsqeError
from suite.suites import find_suite


def human_kinds(session: Session, suite_id: int) -> list[HumanScoreKind]:
    """The kinds the suite holds, in ``HumanScoreKind``'s order."""
    held = set(session.scalars(select(HumanScoreSet.kind).where(HumanScoreSet.suite_id == suite_id)))
    return [kind for kind in HumanScoreKind if kind in held]


def suite_human_kinds(db: Database, suite: str | None) -> list[HumanScoreKind]:
    """``human_kinds`` of the suite called ``suite`` (the window's choice of kind lists them)."""
    with db.session() as session:
        return human_kinds(session, find_suite(session, suite).id)


def choose_human_kind(session: Session, suite: Suite, requested: HumanScoreKind | None) -> HumanScoreKind:
    """``requested``, which the suite must hold, or else the suite's only kind; a suite holding several kinds
    and no choice is an error naming them, as computing on either would answer a question not asked."""
    held = human_kinds(session, suite.id)
    if not held:
        raise TsqeError(f"suite {suite.name!r} has no human scores: import system or segment scores first")
    if requested is not None:
        if requested not in held:
            raise TsqeError(f"suite {suite.name!r} holds no {requested} human scores (it holds "
                            f"{', '.join(held)})")
        return requested
    if len(held) > 1:
        raise TsqeError(f"suite {suite.name!r} holds human scores of {len(held)} kinds ({', '.join(held)}): "
                        "choose the kind to compute on")
    return held[0]


def segments_aligned(session: Session, suite_id: int, kind: HumanScoreKind) -> bool:
    """Whether the suite's segment scores of ``kind`` can be aligned with its items
    (``HumanScoreSet.segments_aligned``)."""
    aligned = session.scalar(select(HumanScoreSet.segments_aligned)
                             .where(HumanScoreSet.suite_id == suite_id, HumanScoreSet.kind == kind))
    return aligned is None or bool(aligned)
