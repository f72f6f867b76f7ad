"""What the humans said about a suite's MT systems: system scores, segment scores, and which system pairs they
separate significantly -- read back from ``tsqe import human-scores``.

System scores are the official ones when imported, else the means of the segment scores (which is how WMT's
official DA scores are made). Which pairs the humans separate comes from WMT's imported test results, or is
computed from the segment scores: WMT's Wilcoxon rank-sum test by default, a paired bootstrap on request
(:mod:`suite.significance`). A suite with neither has no significance and no "significant pairs".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import aliased

from store import Database
from store.domain import HumanScoreKind
from store.models import HumanScore, HumanSegmentScore, HumanSignificance, System
from suite.errors import TsqeError
from suite.reading.human_kinds import choose_human_kind
from suite.significance import RESAMPLES, PairwiseTest, paired_bootstrap_test, wilcoxon_rank_sum
from suite.suites import find_suite

HumanTest = Literal["imported", "wilcoxon", "bootstrap"]
HUMAN_TESTS: tuple[HumanTest, ...] = ("imported", "wilcoxon", "bootstrap")


@dataclass(frozen=True)
class HumanJudgements:
    suite: str
    kind: HumanScoreKind
    """The kind of human scores these are (``suite.reading.human_kinds``: chosen, or the suite's only one)."""
    scores: dict[str, float]
    """System-level human score of every system that has one."""
    segments: dict[str, dict[int, float]]
    """System -> item database id -> segment score (empty without segment scores)."""
    test: PairwiseTest | None
    test_source: str | None
    """How ``test`` was made, for the notes of a table."""

    def segment_matrix(self, items: list[int], systems: list[str]) -> np.ndarray | None:
        """(items, systems) segment scores, NaN where a system was not judged; None unless every system has
        segment scores."""
        if not all(system in self.segments for system in systems):
            return None
        return np.array([[self.segments[s].get(item, np.nan) for s in systems] for item in items])


def read_human_judgements(db: Database, suite_name: str | None = None, *, kind: HumanScoreKind | None = None,
                          test: HumanTest | None = None, resamples: int = RESAMPLES,
                          seed: int | None = 0) -> HumanJudgements:
    """The suite's human judgements of ``kind`` (None: the suite's only kind); ``test`` None takes imported
    results when there are any, else Wilcoxon on the segment scores when there are some, else no significance."""
    other = aliased(System)
    with db.session() as session:
        suite = find_suite(session, suite_name)
        chosen_kind = choose_human_kind(session, suite, kind)
        scores = dict(session.execute(select(System.name, HumanScore.score).join(HumanScore)
                                      .where(System.suite_id == suite.id, HumanScore.kind == chosen_kind)).all())
        segments: dict[str, dict[int, float]] = {}
        for system, item, score in session.execute(
                select(System.name, HumanSegmentScore.item_id, HumanSegmentScore.score)
                .join(HumanSegmentScore, HumanSegmentScore.system_id == System.id)
                .where(System.suite_id == suite.id, HumanSegmentScore.kind == chosen_kind)):
            segments.setdefault(system, {})[item] = score
        imported = session.execute(
            select(System.name, other.name, HumanSignificance.p_below, HumanSignificance.source)
            .join(HumanSignificance, HumanSignificance.system_id == System.id)
            .join(other, other.id == HumanSignificance.other_id)
            .where(System.suite_id == suite.id, HumanSignificance.kind == chosen_kind)).all()
        name = suite.name
    if not scores:
        scores = {system: float(np.mean(list(values.values()))) for system, values in segments.items()}
    if not scores:
        raise TsqeError(f"suite {name!r} has no {chosen_kind} human scores: import system or segment scores first")
    chosen = test or ("imported" if imported else "wilcoxon" if segments else None)
    pairwise, source = None, None
    if chosen == "imported":
        if not imported:
            raise TsqeError(f"suite {name!r} has no imported significance results")
        names = sorted({row[0] for row in imported} | {row[1] for row in imported})
        p = np.full((len(names), len(names)), np.nan)
        for first, second, p_below, _ in imported:
            p[names.index(first), names.index(second)] = 1.0 if p_below is None else p_below
        pairwise, source = PairwiseTest(names, p, "imported"), f"WMT's test results ({imported[0][3]})"
    elif chosen is not None:
        if not segments:
            raise TsqeError(f"suite {name!r} has no segment-level human scores to test significance on")
        systems = sorted(segments)
        if chosen == "wilcoxon":
            pairwise = wilcoxon_rank_sum({s: list(segments[s].values()) for s in systems})
            source = "one-sided Wilcoxon rank-sum test on the segment scores, as WMT's"
        else:
            items = sorted({item for values in segments.values() for item in values})
            matrix = np.array([[segments[s].get(item, np.nan) for s in systems] for item in items])
            pairwise = paired_bootstrap_test(systems, matrix, resamples=resamples, seed=seed)
            source = f"paired bootstrap on the segment scores ({resamples:,} resamples)"
    return HumanJudgements(name, chosen_kind, scores, segments, pairwise, source)
