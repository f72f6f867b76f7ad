"""System-level correlation of a metric with official human scores (as in the WMT metrics tasks).

Which systems take part: every system of the suite that has a human score, or the K best of them by human
score (``top``) -- the setting of Zhan et al. 2021 ("Difficulty-Aware MT Evaluation", Table 1), where metrics
are compared on the most competitive systems. Difficulty-aware BERTScore computes its token difficulty over
exactly those systems, as the paper does.

System level means the metric's own system-level score where its specification has one (BLEU, chrF and TER
as sacrebleu corpus scores; DA-BERTScore as ``filters.metrics.da_bertscore`` aggregates it), else the mean of the
system's segment scores (BERTScore, label, imported QE).
Correlations are reported as computed on the raw metric values, so a lower-is-better metric such as TER
correlates negatively when it agrees with the humans (``higher_is_better`` says which sign is good); the
DA paper and the WMT findings print absolute values for such metrics.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from sqlalchemy import select

from filters.metrics import MetricOptions, Signature, references_note, suite_metric
from filters.metrics.base import Metric, SystemScores
from filters.metrics.statistics import mean_statistics
from filters.scoring import score_outputs
from store import Database
from store.domain import HumanScoreKind
from store.models import HumanScore, System
from suite.errors import TsqeError
from suite.reading.human_kinds import choose_human_kind
from suite.references import RefChoice
from suite.suites import find_suite
from suite.tables import Cell, Column, Table
from suite.tasks import TaskState, progress_of


@dataclass(frozen=True)
class CorrelationResult:
    metric: str
    signature: Signature
    higher_is_better: bool
    systems: list[str]
    """Best human score first."""
    human: dict[str, float]
    scores: dict[str, float]
    pearson: float
    spearman: float
    kendall: float
    refs: RefChoice = field(default_factory=RefChoice.default)

    def to_table(self) -> Table:
        """Systems best human score first with both scores; Pearson r, Spearman rho and Kendall tau as summary
        rows."""
        columns = [Column("system", "text"), Column("human", "number", 4), Column(self.metric, "number", 6)]
        body = [[Cell(s), Cell(self.human[s]), Cell(self.scores[s])] for s in self.systems]
        footer = [[Cell("Pearson r"), Cell(None), Cell(self.pearson)],
                  [Cell("Spearman rho"), Cell(None), Cell(self.spearman)],
                  [Cell("Kendall tau"), Cell(None), Cell(self.kendall)]]
        note = references_note(self.signature)
        notes = [f"Metric: {self.signature}.", *([note] if note else []),
                 "Correlations of the raw metric values with the human scores (missing: constant scores)"
                 + ("." if self.higher_is_better else "; lower is better, so negative means agreement.")]
        return Table(title=f"System-level correlation of {self.metric} with human scores", columns=columns,
                     body=body, footer=footer, notes=notes)

    def to_json(self) -> dict[str, object]:
        return {"metric": self.metric, "signature": str(self.signature), "refs": self.refs.label,
                "higher_is_better": self.higher_is_better, "systems": self.systems,
                "pearson": finite(self.pearson), "spearman": finite(self.spearman), "kendall": finite(self.kendall),
                "scores": self.scores,
                "human": self.human}


def human_scores(db: Database, suite_name: str | None = None,
                 kind: HumanScoreKind | None = None) -> dict[str, float]:
    """The system-level human scores of ``kind`` (None: the suite's only kind)."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        chosen = choose_human_kind(session, suite, kind)
        return dict(session.execute(select(System.name, HumanScore.score).join(HumanScore)
                                    .where(System.suite_id == suite.id, HumanScore.kind == chosen)).all())


def choose_systems(human: dict[str, float], top: int | None = None) -> list[str]:
    """Systems by human score, best first (ties by name), cut to the ``top`` best."""
    ranked = sorted(human, key=lambda name: (-human[name], name))
    if top is not None:
        if top < 2:
            raise TsqeError(f"a correlation needs at least 2 systems, not the top {top}")
        if top > len(ranked):
            raise TsqeError(f"cannot take the top {top} systems: only {len(ranked)} have human scores")
        ranked = ranked[:top]
    if len(ranked) < 2:
        raise TsqeError("at least two systems with human scores are needed: import human scores first")
    return ranked


class Correlations(NamedTuple):
    pearson: float
    spearman: float
    kendall: float


def correlations(human: Sequence[float] | np.ndarray, metric: Sequence[float] | np.ndarray) -> Correlations:
    """Pearson r, Spearman rho and Kendall tau (scipy's tau-b, which handles ties) of two paired score lists;
    NaN when either side is constant (or has a missing score)."""
    x, y = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    if not (np.isfinite(x).all() and np.isfinite(y).all()) or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Correlations(math.nan, math.nan, math.nan)
    from scipy import stats  # half a second to import: only a correlation needs it, not every command that starts

    return Correlations(float(stats.pearsonr(x, y)[0]), float(stats.spearmanr(x, y)[0]),
                        float(stats.kendalltau(x, y)[0]))


def system_level_scores(db: Database, metric: str, systems: Sequence[str], *, suite_name: str | None = None,
                        refs: RefChoice | None = None, options: MetricOptions | None = None,
                        task: TaskState | None = None, scorer: Metric | None = None) -> SystemScores:
    """``metric``'s score of each of ``systems``: its own system-level score where its specification has one
    (corpus BLEU, DA-BERTScore), else the mean of the system's segment scores. ``scorer``: the metric object
    (made with ``options``) to use, when the caller scores with it more than once and it keeps work between
    calls (sacrebleu's segment statistics)."""
    refs = refs or RefChoice.default()
    scorer = scorer or suite_metric(metric, options, db)
    own = scorer.system_scores(db, systems, refs, suite_name=suite_name, task=progress_of(task))
    if own is not None:
        return own
    scores = score_outputs(db, scorer, suite_name=suite_name, systems=list(systems), refs=refs, task=task)
    item_ids, names, values = scores.matrix()
    column = {name: index for index, name in enumerate(names)}
    missing = [system for system in systems if system not in column]
    if missing:
        raise TsqeError(f"metric {metric!r} has no scores for system(s) {', '.join(missing)}")
    positions = sorted({row.position for row in scores.rows})
    statistics = mean_statistics(positions, {system: values[:, column[system]] for system in systems})
    return SystemScores(scores.signature, scores.higher_is_better,
                        {system: float(np.nanmean(values[:, column[system]])) for system in systems}, len(item_ids),
                        statistics)


def correlate(db: Database, metric: str, *, suite_name: str | None = None, top: int | None = None,
              refs: RefChoice | None = None, options: MetricOptions | None = None,
              human_kind: HumanScoreKind | None = None, task: TaskState | None = None) -> CorrelationResult:
    human = human_scores(db, suite_name, human_kind)
    systems = choose_systems(human, top)
    refs = refs or RefChoice.default()
    level = system_level_scores(db, metric, systems, suite_name=suite_name, refs=refs, options=options, task=task)
    found = correlations([human[s] for s in systems], [level.scores[s] for s in systems])
    return CorrelationResult(metric=metric, signature=level.signature, higher_is_better=level.higher_is_better,
                             systems=systems, human={s: human[s] for s in systems}, scores=level.scores,
                             pearson=found.pearson, kendall=found.kendall, spearman=found.spearman, refs=refs)


def finite(value: float) -> float | None:
    """A figure for JSON: NaN (a correlation of constant scores) as null."""
    return value if math.isfinite(value) else None
