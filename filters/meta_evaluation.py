"""Do a metric's conclusions hold across datasets? Xiang et al. 2022 ("Investigating Data Variance in Evaluations
of Automatic Machine Translation Metrics"), on suites with human scores (``tsqe meta-eval``).

Per dataset (a suite with system-level human scores) and metric:

- **error number**: the system pairs the metric orders differently from the humans, over all pairs of systems
  with human scores; a pair the metric scores equally is an error (the humans separate it, the metric does not),
  a pair with equal human scores is no pair. Also over the **human-significant pairs** only: those where the
  system with the higher human score is significantly better (:meth:`suite.significance.PairwiseTest.separates`,
  imported WMT results or a test on the segment scores, :mod:`filters.human_judgements`);
- **significant ranking** of the metrics by error number: a bootstrap over the dataset's segments (1,000 resamples)
  recomputes every metric's system scores on each resample (corpus statistics for BLEU, chrF and TER, segment
  means otherwise: :mod:`filters.system_statistics`) and, where the dataset has segment-level human scores for
  every system, the human system scores too (as the means of the resampled segments; otherwise the human scores
  are fixed). All metrics see the same resamples, so the comparison is paired; ranks are shared by metrics not
  significantly different (p ≤ 0.05, as the QE best marks and mt-metrics-eval's clusters:
  :func:`suite.significance.significance_ranks`).

Between every two datasets, the **disagreement number**: the metric pairs ranked strictly one way on one dataset
and strictly the other way on the other. ``significant_pairs_only`` counts errors and ranks on the
human-significant pairs alone (Xiang et al.'s removal of "insignificant data points"); a dataset without
significance results keeps all its pairs then, and says so.

The paper compares the metrics' errors with Kendall-like counts over system pairs; it does not say how a metric
tie counts, so here it is an error, which is the conservative reading (a metric that cannot separate two systems
the humans separate has not ordered them right).
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from filters.human_judgements import HumanJudgements, HumanTest, read_human_judgements
from filters.metrics import MetricOptions, metric_spec
from filters.metrics.spec_types import TOKENIZE
from filters.system_statistics import SystemMetricStatistics, metric_statistics
from store import Database
from store.domain import HumanScoreKind
from suite.errors import TsqeError
from suite.figures import heat_map
from suite.references import RefChoice
from suite.significance import ALPHA, RESAMPLES, disagreeing_pairs, resample_counts, significance_ranks
from suite.tables import Cell, Column, Table
from suite.tasks import TaskState, progress_of

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class MetaOptions:
    suites: tuple[str, ...]
    metrics: tuple[str, ...]
    significant_pairs_only: bool = False
    human_test: HumanTest | None = None
    """None: imported results when the suite has some, else Wilcoxon on its segment scores."""
    resamples: int = RESAMPLES
    seed: int = 0
    alpha: float = ALPHA
    refs: RefChoice | None = None
    """The references of the reference-based metrics (the default: every standard reference, pooled)."""
    metric_options: MetricOptions | None = None
    human: HumanScoreKind | None = None
    """The kind of human scores to compare with (None: each suite's only kind)."""


@dataclass(frozen=True)
class MetricOutcome:
    metric: str
    signature: str
    errors: int
    pairs: int
    errors_significant: int | None
    pairs_significant: int | None
    rank: int | None

    @property
    def error_rate(self) -> float:
        return self.errors / self.pairs if self.pairs else math.nan

    @property
    def error_rate_significant(self) -> float | None:
        if self.errors_significant is None or not self.pairs_significant:
            return None
        return self.errors_significant / self.pairs_significant

    def ranked_rate(self, significant_only: bool) -> float:
        """The error rate the rank was decided on."""
        rate = self.error_rate_significant if significant_only else None
        return self.error_rate if rate is None else rate


@dataclass(frozen=True)
class DatasetOutcome:
    suite: str
    systems: list[str]
    """Best human score first."""
    items: int
    significance: str | None
    """Where the human significance came from; None: the suite has none."""
    human_resampled: bool
    metrics: dict[str, MetricOutcome]
    ranked_on_significant: bool
    """Whether the ranks were decided on the human-significant pairs (else on all pairs)."""
    human: HumanScoreKind
    """The kind of human scores compared with."""


@dataclass(frozen=True)
class Disagreement:
    first: str
    second: str
    pairs: list[tuple[str, str]]
    """Metric pairs (better on ``first``, better on ``second``)."""

    @property
    def count(self) -> int:
        return len(self.pairs)


@dataclass(frozen=True)
class MetaEvaluation:
    options: MetaOptions
    datasets: dict[str, DatasetOutcome]
    disagreements: list[Disagreement] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The document of the issue: ``{"datasets": {SUITE: {METRIC: {...}}}, "disagreement": {"S1|S2": n}}``."""
        return {
            "datasets": {suite: {metric: {"errors": o.errors, "pairs": o.pairs, "error_rate": _number(o.error_rate),
                                          "errors_significant": o.errors_significant,
                                          "pairs_significant": o.pairs_significant, "rank": o.rank}
                                 for metric, o in dataset.metrics.items()}
                         for suite, dataset in self.datasets.items()},
            "disagreement": {f"{d.first}|{d.second}": d.count for d in self.disagreements},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def _settings_note(self) -> str:
        o = self.options
        return (f"Ranks: bootstrap over segments ({o.resamples:,} resamples, seed {o.seed}); metrics not significantly "
                f"different (p ≤ {o.alpha}) share a rank" + ("; errors counted on human-significant pairs"
                                                               if o.significant_pairs_only else "") + ".")

    def errors_table(self) -> Table:
        """One row per dataset and metric: errors and pairs, over all and over human-significant pairs, rank."""
        columns = [Column("dataset", "text"), Column("metric", "text"), Column("errors", "count"),
                   Column("pairs", "count"), Column("error rate", "fraction"), Column("errors significant", "count"),
                   Column("pairs significant", "count"), Column("error rate significant", "fraction"),
                   Column("rank", "count")]
        body = []
        for suite, dataset in self.datasets.items():
            for metric, o in dataset.metrics.items():
                body.append([Cell(suite), Cell(metric), Cell(o.errors), Cell(o.pairs), Cell(o.error_rate),
                             Cell(o.errors_significant), Cell(o.pairs_significant), Cell(o.error_rate_significant),
                             Cell(o.rank)])
        notes = ["An error: a system pair the metric orders differently from the human scores (a metric tie, "
                 "within the metric's tie epsilon, counts as an error). Significant: pairs whose higher-scored "
                 "system the humans find significantly better.", self._settings_note(), *self._dataset_notes(),
                 *self._signature_notes()]
        return Table(title="Metric errors on system pairs against human judgement", columns=columns, body=body,
                     notes=notes)

    def ranks_table(self) -> Table:
        """Xiang et al.'s Table 3: a row per metric, per dataset ``rank / error rate`` (rank 1 in bold)."""
        columns = [Column("metric", "text"), *(Column(suite, "text") for suite in self.datasets)]
        body = []
        for metric in self._metrics():
            cells = [Cell(metric)]
            for dataset in self.datasets.values():
                o = dataset.metrics.get(metric)
                if o is None:
                    cells.append(Cell(None))
                    continue
                rate = o.ranked_rate(dataset.ranked_on_significant)
                rank = "–" if o.rank is None else str(o.rank)
                cells.append(Cell(f"{rank} / {_percent(rate)}", bold=o.rank == 1))
            body.append(cells)
        where = "human-significant system pairs" if self.options.significant_pairs_only else "all system pairs"
        notes = [f"rank / error rate (%) on {where}; lower error rates rank higher.", self._settings_note(),
                 *self._dataset_notes()]
        return Table(title="Significant ranking of metrics per dataset (rank / error rate)", columns=columns,
                     body=body, notes=notes, bold_note="rank 1 of the dataset.")

    def disagreement_matrix(self) -> tuple[list[str], np.ndarray]:
        names = list(self.datasets)
        values = np.full((len(names), len(names)), np.nan)
        for d in self.disagreements:
            i, j = names.index(d.first), names.index(d.second)
            values[i, j] = values[j, i] = d.count
        return names, values

    def disagreement_table(self) -> Table:
        """The disagreement number between every two datasets, as a square table."""
        names, values = self.disagreement_matrix()
        columns = [Column("dataset", "text"), *(Column(name, "count") for name in names)]
        body = [[Cell(name), *(Cell(None if np.isnan(v) else int(v)) for v in values[i])]
                for i, name in enumerate(names)]
        notes = ["Disagreement number: metric pairs ranked strictly one way on one dataset and strictly the other "
                 "way on the other (metrics sharing a rank are not ordered).", self._settings_note()]
        notes += [f"{d.first} ranks {a} above {b}, {d.second} the other way." for d in self.disagreements
                  for a, b in d.pairs]
        return Table(title="Disagreement between datasets on the ranking of metrics", columns=columns, body=body,
                     notes=notes)

    def heat_map(self) -> Figure:
        names, values = self.disagreement_matrix()
        where = "\non human-significant system pairs only" if self.options.significant_pairs_only else ""
        return heat_map(names, values, title=f"Disagreement on the ranking of {len(self._metrics())} metrics"
                                             f"{where}", note=", ".join(self._metrics()))

    def _metrics(self) -> list[str]:
        return list(dict.fromkeys(m for dataset in self.datasets.values() for m in dataset.metrics))

    def _dataset_notes(self) -> list[str]:
        notes = []
        for suite, d in self.datasets.items():
            significance = d.significance or "no significance results (significant columns empty)"
            human = "human scores resampled with the segments" if d.human_resampled else "human scores fixed"
            fallback = ("; ranked on all pairs, for want of significance results"
                        if self.options.significant_pairs_only and not d.ranked_on_significant else "")
            notes.append(f"{suite}: {len(d.systems)} systems, {d.items:,} segments, {d.human} human scores; "
                         f"{significance}; {human}{fallback}.")
        return notes

    def _signature_notes(self) -> list[str]:
        seen = {o.metric: o.signature for d in self.datasets.values() for o in d.metrics.values()}
        return [f"{metric}: {signature}" for metric, signature in seen.items()]


def pair_errors(human: np.ndarray, metric: np.ndarray, left: np.ndarray, right: np.ndarray,
                tie_epsilon: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(errors, pairs) over the system pairs (``left[p]``, ``right[p]``); ``human`` and ``metric`` are (..., systems)
    with higher better. A pair counts when the humans score it unequally (and both human scores exist); metric
    scores within ``tie_epsilon`` of each other are a tie, which is an error."""
    h = human[..., left] - human[..., right]
    m = metric[..., left] - metric[..., right]
    with np.errstate(invalid="ignore"):
        counted = ~np.isnan(h) & (h != 0)
        wrong = counted & ~((np.sign(m) == np.sign(h)) & (np.abs(m) > tie_epsilon))
    return wrong.sum(axis=-1), np.broadcast_to(counted, wrong.shape).sum(axis=-1)


def meta_evaluate(db: Database, options: MetaOptions, task: TaskState | None = None) -> MetaEvaluation:
    """Error numbers, significant ranks per dataset and the disagreement between every two datasets."""
    progress = progress_of(task)
    if not options.suites:
        raise TsqeError("name at least one dataset (suite) to evaluate the metrics on")
    if len(set(options.suites)) != len(options.suites):
        raise TsqeError(f"a suite is named twice: {', '.join(options.suites)}")
    if not options.metrics or len(set(options.metrics)) != len(options.metrics):
        raise TsqeError("name the metrics to compare, each once")
    _check_options(options.metrics, options.metric_options)
    if options.resamples < 1:
        raise TsqeError(f"the number of bootstrap resamples must be 1 or more, not {options.resamples}")
    datasets = {}
    for number, suite in enumerate(options.suites):
        progress.progress(number, len(options.suites), f"evaluating the metrics on {suite}")
        datasets[suite] = _dataset(db, suite, options, task)
    progress.progress(len(options.suites), len(options.suites), "disagreement between datasets")
    disagreements = [Disagreement(a, b, disagreeing_pairs(_ranks(datasets[a]), _ranks(datasets[b])))
                     for a, b in combinations(options.suites, 2)]
    return MetaEvaluation(options, datasets, disagreements)


def _ranks(dataset: DatasetOutcome) -> dict[str, int | None]:
    return {metric: outcome.rank for metric, outcome in dataset.metrics.items()}


def _dataset(db: Database, suite: str, options: MetaOptions, task: TaskState | None) -> DatasetOutcome:
    human = read_human_judgements(db, suite, kind=options.human, test=options.human_test,
                                  resamples=options.resamples, seed=options.seed)
    systems = sorted(human.scores, key=lambda s: (-human.scores[s], s))
    if len(systems) < 2:
        raise TsqeError(f"suite {suite!r}: at least two systems with human scores are needed")
    statistics = [metric_statistics(db, metric, systems, suite_name=suite, refs=options.refs,
                                    options=_options_for(metric, options.metric_options), task=task)
                  for metric in options.metrics]
    items = [item for item in statistics[0].items if all(item in set(s.items) for s in statistics[1:])]
    if not items:
        raise TsqeError(f"suite {suite!r}: no segment has a score of every metric for every system")
    scorers = [_Scorer(s, systems, items) for s in statistics]
    left, right = (np.array(side, dtype=np.intp) for side in zip(*combinations(range(len(systems)), 2)))
    human_point = np.array([human.scores[s] for s in systems])
    significant = None
    if human.test is not None:
        significant = np.array([human.test.separates(systems[i], systems[j], options.alpha)
                                for i, j in zip(left, right)], dtype=bool)
    ranked = significant if options.significant_pairs_only and significant is not None else None
    samples = _resampled_errors(scorers, human, systems, items, left, right, ranked, options)
    chosen = slice(None) if ranked is None else ranked
    point = [scorer(np.ones((1, len(items))))[0] for scorer in scorers]
    ranked_errors = [pair_errors(human_point, point[m], left[chosen], right[chosen], s.tie_epsilon)[0]
                     for m, s in enumerate(statistics)]
    ranks = significance_ranks(-np.array(ranked_errors, dtype=float), -samples, options.alpha)
    outcomes = {}
    for m, stats in enumerate(statistics):
        errors, pairs = pair_errors(human_point, point[m], left, right, stats.tie_epsilon)
        sig_errors = sig_pairs = None
        if significant is not None:
            e, p = pair_errors(human_point, point[m], left[significant], right[significant], stats.tie_epsilon)
            sig_errors, sig_pairs = int(e), int(p)
        outcomes[stats.metric] = MetricOutcome(stats.metric, stats.signature, int(errors), int(pairs),
                                               sig_errors, sig_pairs, ranks[m])
    return DatasetOutcome(suite, systems, len(items), human.test_source,
                          human.segment_matrix(items, systems) is not None, outcomes, ranked is not None,
                          human.kind)


def _options_for(metric: str, options: MetricOptions | None) -> MetricOptions | None:
    """The part of the metric options that ``metric`` takes: the model for the BERTScore family, the tokenizer for
    BLEU (each metric refuses the others)."""
    if options is None:
        return None
    spec = metric_spec(metric)
    model = spec.needs_model
    return MetricOptions(model=options.model if model else None, layers=options.layers if model else None,
                         device=options.device if model else None,
                         tokenize=options.tokenize if spec.has(TOKENIZE) else None)


def _check_options(metrics: Sequence[str], options: MetricOptions | None) -> None:
    """An option that none of the metrics takes is a mistake to report, not to drop."""
    if options is None:
        return
    specs = [metric_spec(metric) for metric in metrics]
    if (options.model or options.layers or options.device) and not any(spec.needs_model for spec in specs):
        raise TsqeError(f"an embedding model was given, and none of {', '.join(metrics)} takes one")
    if options.tokenize and not any(spec.has(TOKENIZE) for spec in specs):
        raise TsqeError(f"a tokenizer was given, and none of {', '.join(metrics)} takes one")


class _Scorer:
    """A metric's system scores (higher better: TER's negated) on resamples of the dataset's common items, its
    own items outside them weighted 0."""

    def __init__(self, statistics: SystemMetricStatistics, systems: list[str], items: list[int]) -> None:
        self.statistics = statistics
        self.systems = systems
        position = {item: k for k, item in enumerate(statistics.items)}
        self.columns = np.array([position[item] for item in items], dtype=np.intp)
        self.sign = 1.0 if statistics.higher_is_better else -1.0

    def __call__(self, weights: np.ndarray) -> np.ndarray:
        """(resamples, systems) from ``weights`` (resamples x common items)."""
        own = np.zeros((weights.shape[0], len(self.statistics.items)))
        own[:, self.columns] = weights
        return self.sign * self.statistics.scores(self.systems, own)


def _resampled_errors(scorers: Sequence[_Scorer], human: HumanJudgements,
                      systems: list[str], items: list[int], left: np.ndarray, right: np.ndarray,
                      ranked: np.ndarray | None, options: MetaOptions) -> np.ndarray:
    """(resamples, metrics) error numbers on the pairs the ranks are decided on, all metrics on the same
    resamples of the segments; the human scores resampled with them when every system has segment scores."""
    if ranked is not None:
        left, right = left[ranked], right[ranked]
    segments = human.segment_matrix(items, systems)
    fixed = np.array([human.scores[s] for s in systems])
    judged = None if segments is None else ~np.isnan(segments)
    values = None if segments is None else np.nan_to_num(segments)
    rng = np.random.default_rng(options.seed)
    chunks = []
    for weights in resample_counts(len(items), options.resamples, rng):
        if values is None or judged is None:
            human_scores = np.broadcast_to(fixed, (weights.shape[0], fixed.size))
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                human_scores = (weights @ values) / (weights @ judged)
        chunk = np.empty((weights.shape[0], len(scorers)))
        for m, scorer in enumerate(scorers):
            chunk[:, m] = pair_errors(human_scores, scorer(weights), left, right,
                                      scorer.statistics.tie_epsilon)[0]
        chunks.append(chunk)
    return np.vstack(chunks)


def _percent(value: float) -> str:
    return "–" if value is None or math.isnan(value) else f"{100 * value:.1f}"


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value
