"""System-level correlation of a metric with official human scores (as in the WMT metrics tasks).

Which systems take part: every system of the suite that has a human score, or the K best of them by human
score (``top``) -- the setting of Zhan et al. 2021 ("Difficulty-Aware MT Evaluation", Table 1), where metrics
are compared on the most competitive systems. Difficulty-aware BERTScore computes its token difficulty over
exactly those systems, as the paper does.

System level means: BLEU, chrF and TER as sacrebleu corpus scores; DA-BERTScore as ``filters.difficulty``
aggregates it; any other segment metric (BERTScore, label, imported QE) as the mean of its segment scores.
Correlations are reported as computed on the raw metric values, so a lower-is-better metric such as TER
correlates negatively when it agrees with the humans (``higher_is_better`` says which sign is good); the
DA paper and the WMT findings print absolute values for such metrics.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import select

from store import Database
from store.models import HumanScore, Item, Output, Reference, System, SystemOutput
from suite.errors import TsqeError
from suite.suites import find_suite
from suite.tables import Cell, Column, Table
from suite.tasks import TaskState

CORPUS_METRICS = ("bleu", "chrf", "ter")
DIFFICULTY_METRICS = {"da-bertscore-p": "DA-P", "da-bertscore-r": "DA-R", "da-bertscore-f": "DA-F"}
CORRELATION_METRICS = (*CORPUS_METRICS, "bertscore-p", "bertscore-r", "bertscore-f", *DIFFICULTY_METRICS, "label")
"""The system-level metrics :func:`correlate` knows, besides ``qe:NAME``."""


@dataclass(frozen=True)
class CorrelationResult:
    metric: str
    signature: str
    higher_is_better: bool
    systems: list[str]
    """Best human score first."""
    human: dict[str, float]
    scores: dict[str, float]
    pearson: float
    kendall: float

    def to_table(self) -> Table:
        """Systems best human score first with both scores; Pearson r and Kendall tau as summary rows."""
        columns = [Column("system", "text"), Column("human", "number", 4), Column(self.metric, "number", 6)]
        body = [[Cell(s), Cell(self.human[s]), Cell(self.scores[s])] for s in self.systems]
        footer = [[Cell("Pearson r"), Cell(None), Cell(self.pearson)],
                  [Cell("Kendall tau"), Cell(None), Cell(self.kendall)]]
        notes = [f"Metric: {self.signature}.",
                 "Correlations of the raw metric values with the human scores (missing: constant scores)"
                 + ("." if self.higher_is_better else "; lower is better, so negative means agreement.")]
        return Table(title=f"System-level correlation of {self.metric} with human scores", columns=columns,
                     body=body, footer=footer, notes=notes)

    def to_json(self) -> dict[str, object]:
        return {"metric": self.metric, "signature": self.signature, "higher_is_better": self.higher_is_better,
                "systems": self.systems, "pearson": _finite(self.pearson), "kendall": _finite(self.kendall),
                "scores": self.scores, "human": self.human}


def human_scores(db: Database, suite_name: str | None = None) -> dict[str, float]:
    with db.session() as session:
        suite = find_suite(session, suite_name)
        return dict(session.execute(select(System.name, HumanScore.score).join(HumanScore)
                                    .where(System.suite_id == suite.id)).all())


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


def correlations(human: Sequence[float], metric: Sequence[float]) -> tuple[float, float]:
    """Pearson r and Kendall tau (scipy's tau-b, which handles ties) of two paired score lists."""
    x, y = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan, math.nan
    from scipy import stats  # half a second to import: only a correlation needs it, not every command that starts

    return float(stats.pearsonr(x, y)[0]), float(stats.kendalltau(x, y)[0])


def corpus_inputs(db: Database, systems: Sequence[str], suite_name: str | None = None
                  ) -> tuple[dict[str, list[str]], list[list[str]]]:
    """Each system's outputs and each item's references, over the items every system translated.

    Corpus scores need the same segments for every system; an item some system lacks is left out for all.
    """
    with db.session() as session:
        suite = find_suite(session, suite_name)
        rows = session.execute(
            select(Item.id, System.name, Output.text)
            .join(SystemOutput, SystemOutput.item_id == Item.id).join(System, System.id == SystemOutput.system_id)
            .join(Output, Output.id == SystemOutput.output_id)
            .where(Item.suite_id == suite.id, System.name.in_(systems)).order_by(Item.position, Item.id)).all()
        references: dict[int, list[str]] = {}
        for item_id, text in session.execute(select(Reference.item_id, Reference.text).join(Item)
                                             .where(Item.suite_id == suite.id).order_by(Reference.id)):
            references.setdefault(item_id, []).append(text)
    by_item: dict[int, dict[str, str]] = {}
    for item_id, system, text in rows:
        by_item.setdefault(item_id, {})[system] = text
    items = [item for item, outputs in by_item.items() if len(outputs) == len(systems) and item in references]
    if not items:
        raise TsqeError("no item has a reference and an output of every chosen system")
    return ({system: [by_item[item][system] for item in items] for system in systems},
            [references[item] for item in items])


def system_level_scores(db: Database, metric: str, systems: Sequence[str], *, suite_name: str | None = None,
                        model: str | None = None, layers: int | None = None, task: TaskState | None = None
                        ) -> tuple[str, bool, dict[str, float]]:
    """(signature, higher_is_better, {system: system-level score}) of ``metric`` over ``systems``."""
    from filters import metrics
    from filters.metrics.sacrebleu import SacreBleuMetric

    if metric in CORPUS_METRICS:
        scorer = metrics.get_metric(metric)
        assert isinstance(scorer, SacreBleuMetric)
        hypotheses, references = corpus_inputs(db, systems, suite_name)
        return scorer.signature, scorer.higher_is_better, {
            system: float(scorer.corpus_score(hypotheses[system], references)) for system in systems}
    if metric in DIFFICULTY_METRICS:
        from filters.difficulty import da_bertscore

        result = da_bertscore(db, suite_name=suite_name, systems=list(systems), model=model, layers=layers,
                              task=task)
        key = DIFFICULTY_METRICS[metric]
        return result.signature, True, {system: float(result.system_scores[system][key]) for system in systems}
    from filters.scoring import score_outputs

    scores = score_outputs(db, metric, suite_name=suite_name, systems=list(systems), model=model, layers=layers,
                           task=task)
    _, names, values = scores.matrix()
    column = {name: index for index, name in enumerate(names)}
    missing = [system for system in systems if system not in column]
    if missing:
        raise TsqeError(f"metric {metric!r} has no scores for system(s) {', '.join(missing)}")
    return scores.signature, scores.higher_is_better, {
        system: float(np.nanmean(values[:, column[system]])) for system in systems}


def correlate(db: Database, metric: str, *, suite_name: str | None = None, top: int | None = None,
              model: str | None = None, layers: int | None = None, task: TaskState | None = None
              ) -> CorrelationResult:
    human = human_scores(db, suite_name)
    systems = choose_systems(human, top)
    signature, higher_is_better, scores = system_level_scores(
        db, metric, systems, suite_name=suite_name, model=model, layers=layers, task=task)
    pearson, kendall = correlations([human[s] for s in systems], [scores[s] for s in systems])
    return CorrelationResult(metric=metric, signature=signature, higher_is_better=higher_is_better,
                             systems=systems, human={s: human[s] for s in systems}, scores=scores,
                             pearson=pearson, kendall=kendall)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
