"""The WMT metrics task's statistics on the suites tsqe holds (``tsqe meta-eval --statistic ...``): the metrics'
system or segment scores and the suite's human scores as (systems, items) matrices, handed to
:mod:`suite.agreement`, which computes the statistics, the permutation tests between metrics and their clusters.

System level: a metric's system score is its corpus score (sacrebleu's from summed statistics for BLEU, chrF and
TER; the mean of segment scores otherwise, :mod:`filters.system_statistics`), the humans' the imported system
score or else the mean of the segment scores (how WMT makes them). Soft pairwise accuracy is a system-level
statistic computed from segment scores, as in WMT24. Segment level: each output's segment score under the metric
(:func:`filters.scoring.score_outputs`) against the segment's human score; a segment a system has no human score
for is left out of that system's pairs (mt-metrics-eval's ``None``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from sqlalchemy import select

from filters.human_judgements import read_human_judgements
from filters.metrics import MetricOptions
from filters.scoring import score_outputs
from filters.system_statistics import metric_statistics
from store import Database
from store.domain import HumanScoreKind
from store.models import HumanSegmentScore, Item, System
from suite import agreement
from suite.agreement import Compared, Setting
from suite.domain import Level, Statistic
from suite.errors import TsqeError
from suite.reading.human_kinds import segments_aligned
from suite.references import RefChoice
from suite.significance import ALPHA
from suite.suites import find_suite
from suite.tables import Cell, Column, Table
from suite.tasks import TaskState, progress_of


@dataclass(frozen=True)
class WmtOptions:
    suites: tuple[str, ...]
    metrics: tuple[str, ...]
    level: Level
    settings: tuple[Setting, ...]
    permutations: int = agreement.PERMUTATIONS
    """0: no significance test (every metric its own rank by value)."""
    seed: int = 0
    alpha: float = ALPHA
    human: HumanScoreKind | None = None
    """The kind of human scores the statistics are computed on (None: each suite's only kind)."""
    refs: RefChoice | None = None
    metric_options: MetricOptions | None = None


@dataclass(frozen=True)
class DatasetStatistics:
    suite: str
    human: HumanScoreKind
    systems: list[str]
    items: int
    results: dict[Setting, Compared]
    chance: dict[Setting, float]


@dataclass(frozen=True)
class WmtEvaluation:
    options: WmtOptions
    datasets: dict[str, DatasetStatistics]

    def to_dict(self) -> dict[str, Any]:
        """``{"datasets": {SUITE: {"metrics": {METRIC: {STATISTIC: {value, epsilon, rank, p_vs_best}}}, ...}}}``."""
        out: dict[str, Any] = {}
        for suite, d in self.datasets.items():
            metrics: dict[str, dict[str, Any]] = {}
            for setting, compared in d.results.items():
                for k, metric in enumerate(compared.metrics):
                    v = compared.values[k]
                    metrics.setdefault(metric, {})[str(setting)] = {
                        "value": _finite(v.value), "epsilon": v.epsilon, "rank": compared.ranks[k],
                        "p_vs_best": compared.p_vs_best(k)}
            out[suite] = {"level": str(self.options.level), "human": str(d.human), "systems": len(d.systems),
                          "items": d.items, "permutations": self.options.permutations, "seed": self.options.seed,
                          "metrics": metrics, "chance": {str(s): v for s, v in d.chance.items()}}
        return {"datasets": out}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def to_table(self, suite: str) -> Table:
        """WMT's layout: a row per metric, a column per statistic, ``value (rank)``, rank 1 in bold."""
        d = self.datasets[suite]
        settings = list(d.results)
        columns = [Column("metric", "text"), *(Column(str(s), "text") for s in settings)]
        body = []
        for metric in sorted(self.options.metrics):
            cells = [Cell(metric)]
            for setting in settings:
                compared = d.results[setting]
                k = compared.metrics.index(metric)
                v = compared.values[k]
                text = f"{v.value:.3f}" + (f" ε={v.epsilon:.3g}" if v.epsilon is not None else "")
                cells.append(Cell(f"{text} ({compared.ranks[k]})", bold=compared.ranks[k] == 1))
            body.append(cells)
        footer = [[Cell("chance"), *(Cell(f"{d.chance[s] + 0.0:.3f}") for s in settings)]]
        test = (f"paired permutation test between metrics ({self.options.permutations:,} permutations, seed "
                f"{self.options.seed}); (n): significance cluster, metrics not significantly worse than the best of "
                f"their cluster (p > {self.options.alpha}) share it" if self.options.permutations
                else "no significance test: ranks by value")
        notes = [f"{suite}: {len(d.systems)} systems, {d.items:,} segments, {d.human} human scores; "
                 f"{self.options.level} level.", test,
                 "acc-eq: pairwise accuracy with the tie threshold ε chosen on the data (exact optimum); spa: soft "
                 "pairwise accuracy; /item, /system: computed per item or per system, then averaged.",
                 "chance: what a metric of random scores is expected to get."]
        return Table(title=f"Meta-evaluation of metrics on {suite} (WMT statistics)", columns=columns, body=body,
                     footer=footer, notes=notes, bold_note="the first significance cluster.")

    def bar_chart(self, suite: str, setting: Setting) -> Any:
        """A bar per metric, best first, coloured by cluster (WMT's findings figures)."""
        from suite.figures import cluster_bars

        compared = self.datasets[suite].results[setting]
        return cluster_bars(compared.metrics, [v.value for v in compared.values], compared.ranks,
                            title=f"{suite}: {setting} ({self.options.level} level)",
                            baseline=self.datasets[suite].chance[setting])


def _finite(value: float) -> float | None:
    return None if np.isnan(value) else value


def wmt_meta_evaluate(db: Database, options: WmtOptions, task: TaskState | None = None) -> WmtEvaluation:
    progress = progress_of(task)
    if not options.suites:
        raise TsqeError("name at least one dataset (suite) to evaluate the metrics on")
    if not options.metrics or len(set(options.metrics)) != len(options.metrics):
        raise TsqeError("name the metrics to compare, each once")
    if not options.settings:
        raise TsqeError("name at least one statistic")
    datasets = {}
    for number, suite in enumerate(options.suites):
        progress.progress(number, len(options.suites), f"WMT statistics on {suite}")
        datasets[suite] = _dataset(db, suite, options, task)
    progress.progress(len(options.suites), len(options.suites), "done")
    return WmtEvaluation(options, datasets)


def _segments_aligned(db: Database, suite: str, kind: HumanScoreKind) -> bool:
    with db.session() as session:
        return segments_aligned(session, find_suite(session, suite).id, kind)


def _human_segments(db: Database, suite: str, kind: HumanScoreKind, systems: list[str],
                    items: list[str]) -> np.ndarray:
    """(systems, items) segment scores of ``kind`` by the items' external ids, NaN where not judged."""
    values = np.full((len(systems), len(items)), np.nan)
    row = {s: k for k, s in enumerate(systems)}
    column = {item: k for k, item in enumerate(items)}
    with db.session() as session:
        suite_id = find_suite(session, suite).id
        for system, item, score in session.execute(
                select(System.name, Item.external_id, HumanSegmentScore.score).select_from(HumanSegmentScore)
                .join(System, System.id == HumanSegmentScore.system_id)
                .join(Item, Item.id == HumanSegmentScore.item_id)
                .where(System.suite_id == suite_id, HumanSegmentScore.kind == kind)):
            if system in row and item in column:
                values[row[system], column[item]] = score
    return values


def _dataset(db: Database, suite: str, options: WmtOptions, task: TaskState | None) -> DatasetStatistics:
    human = read_human_judgements(db, suite, kind=options.human, test=None)
    kind = human.kind
    systems = sorted(human.segments) if human.segments else sorted(human.scores)
    needs_segments = options.level is Level.SEGMENT or any(s.statistic is Statistic.SPA for s in options.settings)
    if needs_segments and not _segments_aligned(db, suite, kind):
        raise TsqeError(f"suite {suite!r}: its segment scores number the segments as WMT's annotation campaign "
                        "served them, not as its items, so they cannot be aligned: only system-level statistics "
                        "other than soft pairwise accuracy are possible on it")
    if needs_segments and not human.segments:
        raise TsqeError(f"suite {suite!r} has no segment-level human scores: segment-level statistics and soft "
                        "pairwise accuracy need them")
    if len(systems) < 2:
        raise TsqeError(f"suite {suite!r}: at least two systems with human scores are needed")
    segment_metrics: dict[str, np.ndarray] = {}
    items: list[str] = []
    if needs_segments:
        for metric in options.metrics:
            scores = score_outputs(db, metric, suite_name=suite, systems=systems, refs=options.refs,
                                   options=options.metric_options, task=task)
            ids, matrix = scores.columns(systems)
            if items and ids != items:
                raise TsqeError(f"suite {suite!r}: the metrics score different segments")
            items = ids
            sign = 1.0 if scores.higher_is_better else -1.0
            if np.isnan(matrix).any():
                raise TsqeError(f"suite {suite!r}: metric {metric!r} has no score for some system's segment")
            segment_metrics[metric] = sign * matrix.T
    gold_segments = _human_segments(db, suite, kind, systems, items) if needs_segments \
        else np.zeros((len(systems), 0))
    system_gold = np.array([[human.scores[s]] for s in systems])
    system_metrics: dict[str, np.ndarray] = {}
    if options.level is Level.SYSTEM:
        for metric in options.metrics:
            stats = metric_statistics(db, metric, systems, suite_name=suite, refs=options.refs,
                                      options=options.metric_options, task=task)
            scores_now = stats.scores(systems, np.ones((1, len(stats.items))))[0]
            system_metrics[metric] = (1.0 if stats.higher_is_better else -1.0) * scores_now[:, None]
    results, chance = {}, {}
    for setting in options.settings:
        if setting.statistic is Statistic.SPA or options.level is Level.SEGMENT:
            gold, metrics = gold_segments, segment_metrics
        else:
            gold, metrics = system_gold, system_metrics
        # reports each metric pair's test, and stops there when the caller cancels (the window's Cancel)
        results[setting] = agreement.compare(
            setting, gold, metrics, permutations=options.permutations, seed=options.seed, alpha=options.alpha,
            progress=partial(_pair_progress, task, f"{suite}: {setting}"))
        chance[setting] = agreement.chance(setting, gold)
    return DatasetStatistics(suite, kind, systems, len(items), results, chance)


def _pair_progress(task: TaskState | None, what: str, done: int, total: int) -> None:
    """Each metric pair's permutation test as a step of the task (the window's Cancel stops there)."""
    progress_of(task).progress(done, total, f"{what} permutation tests, metric pair {done + 1:,} of {total:,}")
