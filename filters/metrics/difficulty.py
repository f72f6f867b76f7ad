"""Difficulty-aware BERTScore in the registry (``filters.metrics.da_bertscore`` computes it).

Its system score is the authors' (DA-F: the harmonic mean of the segment-averaged DA-P and DA-R), computed
over exactly the systems compared, so a bootstrap resamples the segments' DA-P and DA-R and takes the harmonic
mean of their means again. Per output, the score is the paper's segment-level definition (DA-F of a segment:
the harmonic mean of its DA-P and DA-R), with the token difficulty taken over every system of the suite: a
principled score of one output, but one that changes when a system is added, so it is never cached (its
signature says ``difficulty:all-systems``). One reference set at a time: the authors' code weighs the
tokens of one reference; joined sets are combined as bert_score combines references, by the best (``multi``
and ``max``) or the mean of the single-set figures.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy import select

from filters.metrics.base import OutputScores, SuiteMetric, SystemScores
from filters.metrics.da_bertscore import da_bertscore
from filters.metrics.spec_types import MetricOptions, MetricSpec
from filters.metrics.statistics import CombinedStatistics, Resamplable, SegmentStatistics, combine
from store import Database
from store.models import Item, Suite, System, SystemOutput
from suite.domain import Combine
from suite.references import RefChoice
from suite.tasks import TaskState

COLUMNS = {"P": 3, "R": 4}
"""Where DA-P and DA-R are in ``DifficultyResult.segments`` rows ([P, R, F, DA-P, DA-R])."""


def _joined(refs: RefChoice) -> Combine:
    """How joined sets are combined: the authors weigh one reference's tokens, so ``multi`` has no form of its own
    here and is the best of the sets, as bert_score combines references."""
    return Combine.MEAN if refs.combine == Combine.MEAN else Combine.MAX


def _harmonic(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r != 0 else 0.0


class DifficultyMetric(SuiteMetric):
    def __init__(self, spec: MetricSpec, options: MetricOptions) -> None:
        self.spec = spec
        self.component = spec.name.rsplit("-", 1)[1].upper()
        self.key = f"DA-{self.component}"
        self.options = options

    def _finish(self, total: np.ndarray) -> float:
        """[DA-P sum, DA-R sum, segments] -> this component's system score."""
        if not total[2]:
            return float("nan")
        p, r = total[0] / total[2], total[1] / total[2]
        return float({"P": p, "R": r, "F": _harmonic(p, r)}[self.component])

    def system_scores(self, db: Database, systems: Sequence[str], refs: RefChoice, *, suite_name: str | None,
                      task: TaskState) -> SystemScores:
        """The difficulty computed over exactly ``systems`` (the paper's top-K setting is K systems)."""

        if len(refs.sets) > 1:
            parts = [self.system_scores(db, systems, single, suite_name=suite_name, task=task)
                     for single in refs.singles()]
            statistics: Resamplable = CombinedStatistics(
                [part.statistics for part in parts if part.statistics is not None],
                _joined(refs), True)
            scores = statistics.scores(np.ones((1, len(statistics.items))))
            signature = parts[0].signature.with_fields(*refs.signature_fields())
            return SystemScores(signature, True, {s: float(scores[s][0]) for s in systems}, len(statistics.items),
                                statistics)
        result = da_bertscore(db, suite_name=suite_name, systems=list(systems), refs=refs, options=self.options,
                              task=task)
        items = sorted({position for rows in result.segments.values() for position in rows})
        stats = {system: np.array([[*(result.segments[system][i][[COLUMNS["P"], COLUMNS["R"]]]), 1.0]
                                   if i in result.segments[system] else [0.0, 0.0, 0.0] for i in items])
                 for system in systems}
        return SystemScores(result.signature.renamed(self.name), True,
                            {system: float(result.system_scores[system][self.key]) for system in systems},
                            len(items), SegmentStatistics(items, stats, self._finish))

    def output_scores(self, db: Database, suite_id: int, output_ids: Sequence[int], refs: RefChoice,
                      task: TaskState) -> OutputScores:
        """Each output's segment-level DA score, the difficulty taken over all the suite's systems."""

        with db.session() as session:
            suite_name = session.get_one(Suite, suite_id).name
            links = session.execute(select(System.name, Item.position, SystemOutput.output_id)
                                    .join(SystemOutput, SystemOutput.system_id == System.id)
                                    .join(Item, Item.id == SystemOutput.item_id)
                                    .where(System.suite_id == suite_id)).all()
        parts = [da_bertscore(db, suite_name=suite_name, refs=single, options=self.options, task=task)
                 for single in (refs.singles() if len(refs.sets) > 1 else [refs])]
        wanted = set(output_ids)
        by_output: dict[int, list[float]] = {}
        for system, position, output_id in links:
            if output_id not in wanted or output_id in by_output:
                continue  # systems with the same output share its row
            rows = [part.segments[system][position] for part in parts
                    if system in part.segments and position in part.segments[system]]
            if rows:
                by_output[output_id] = [self._finish(np.array([row[COLUMNS["P"]], row[COLUMNS["R"]], 1.0]))
                                        for row in rows]
        scores = {output_id: float(combine(np.array(values), _joined(refs), True))
                  for output_id, values in by_output.items()}
        signature = parts[0].signature.renamed(self.name).with_fields(("difficulty", "all-systems"),
                                                                       *refs.signature_fields())
        return OutputScores(signature, True, scores, unreferenced=len(wanted) - len(scores))
