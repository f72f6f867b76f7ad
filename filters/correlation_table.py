"""Metrics x reference sets side by side: system-level correlations with human scores in one table.

Freitag et al. (2020) ask which reference set ranks the systems right: their Table 3 puts BLEU against each
reference set, and their Figure 2 draws Kendall tau against the number of top systems. ``tsqe correlate``
with several metrics or reference entries builds this table: one row per metric and reference entry (a
metric that takes no references, the label or a QE system, has one row), Pearson r, Spearman rho and Kendall
tau over all systems with human scores and over the K best by human score (Zhan et al. 2021's top-K
setting), each with a bootstrap interval over segments.

The bootstrap draws the segments (with replacement, the same draw for every system: paired), recomputes each
system's score from its segment statistics (``filters.metrics.statistics``: a corpus BLEU is recomputed
from sacrebleu's statistics, not averaged) and correlates; the interval is the 2.5th to 97.5th percentile of
the resampled correlations. It says how much the figure owes to the particular test segments, not to the
particular systems (those are the population here).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from filters.correlation import (
    CorrelationResult,
    choose_systems,
    correlations,
    finite,
    human_scores,
    system_level_scores,
)
from filters.metrics import MetricOptions, Signature, check_options_any, metric_spec, suite_metric
from filters.metrics.base import Metric
from filters.metrics.corpus import CorpusReads
from filters.metrics.statistics import RESAMPLES, SEED, Resamplable
from store import Database
from store.domain import HumanScoreKind
from suite.references import RefChoice, ReferenceSet, reference_sets
from suite.suites import find_suite
from suite.tables import Cell, Column, Table
from suite.tasks import TaskState, progress_of

LOWEST_K = 3
"""Kendall tau against the number of top systems starts at 3: over two systems it can only be -1 or 1."""
FIGURES = ("pearson", "spearman", "kendall")

Interval = tuple[float, float]


@dataclass(frozen=True)
class RankingAgreement:
    """The correlations of a metric with human scores over one set of systems."""

    systems: list[str]
    scores: dict[str, float]
    pearson: float
    spearman: float
    kendall: float
    intervals: dict[str, Interval] | None
    """Bootstrap intervals over segments by figure name; None when not resampled."""

    def figure(self, name: str) -> float:
        return float(getattr(self, name))


@dataclass(frozen=True)
class CorrelationRow:
    metric: str
    refs: RefChoice | None
    """None: the metric takes no references (the label, a QE system)."""
    signature: Signature
    higher_is_better: bool
    segments: int
    overall: RankingAgreement
    top: RankingAgreement | None
    by_k: list[tuple[int, float]]
    """Kendall tau over the k best systems by human score, k = 3 ... all (the paper's Figure 2)."""

    @property
    def refs_label(self) -> str:
        return "–" if self.refs is None else self.refs.label

    def result(self, human: dict[str, float], top: bool) -> CorrelationResult:
        """This row as ``tsqe correlate`` shows one metric and one reference entry: per system."""
        agreement = self.top if top and self.top is not None else self.overall
        return CorrelationResult(metric=self.metric, signature=self.signature,
                                 higher_is_better=self.higher_is_better, systems=agreement.systems,
                                 human={s: human[s] for s in agreement.systems}, scores=agreement.scores,
                                 pearson=agreement.pearson, spearman=agreement.spearman, kendall=agreement.kendall,
                                 refs=self.refs or RefChoice.default())


@dataclass(frozen=True)
class CorrelationTable:
    suite: str
    human: dict[str, float]
    systems: list[str]
    """Every system with a human score, best first."""
    top: int | None
    rows: list[CorrelationRow]
    resamples: int
    seed: int
    sets: list[ReferenceSet]
    """The suite's reference sets, named in the notes when there are several."""

    @property
    def single(self) -> bool:
        return len(self.rows) == 1

    def to_table(self) -> Table:
        columns = [Column("metric", "text"), Column("refs", "text"), Column("systems", "count"),
                   Column("segments", "count"),
                   *(Column(name, "number", 3) for name in ("Pearson r", "Spearman rho", "Kendall tau"))]
        if self.top is not None:
            columns += [Column(f"{name} top {self.top}", "number", 3)
                        for name in ("Pearson r", "Spearman rho", "Kendall tau")]
        body = []
        for row in self.rows:
            cells = [Cell(row.metric), Cell(row.refs_label), Cell(len(row.overall.systems)), Cell(row.segments),
                     *_cells(row.overall)]
            if self.top is not None:
                cells += _cells(row.top) if row.top is not None else [Cell(None)] * 3
            body.append(cells)
        title = f"System-level correlation with human scores: {', '.join(dict.fromkeys(r.metric for r in self.rows))}"
        return Table(title=title, columns=columns, body=body, notes=self.notes())

    def notes(self) -> list[str]:
        notes = [f"Suite {self.suite}: {len(self.systems)} systems with human scores"
                 + (f"; top {self.top}: the {self.top} best by human score." if self.top else ".")]
        if len(self.sets) > 1:
            notes.append("Reference sets of the suite: " + "; ".join(
                f"{s.name} ({'/'.join(s.kinds)}, {s.references} references on {s.items} items)" for s in self.sets)
                + ". Without a choice, metrics use every reference of kind standard, pooled.")
        entries = {row.refs for row in self.rows if row.refs is not None}
        for entry in sorted(entries, key=lambda e: e.label):
            notes.append(f"refs {entry.label}: {entry.describe()}.")
        notes.append("Correlations of the raw metric values (missing: constant scores); a lower-is-better metric "
                     "(TER) agrees with the humans when negative.")
        if self.resamples:
            notes.append(f"[low, high]: 95% bootstrap interval over segments ({self.resamples} paired resamples, "
                         f"seed {self.seed}); systems' scores are recomputed from their segment statistics.")
        if any(metric_spec(row.metric).level == "system" for row in self.rows):
            notes.append("Difficulty-aware BERTScore weighs tokens by the systems compared: over all systems for "
                         "the overall figures and Kendall tau by k, over the top K for the top-K figures.")
        notes += [f"{row.metric} {row.refs_label}: {row.signature}" for row in self.rows]
        return notes

    def to_json(self) -> dict[str, object]:
        """``rows`` (one per metric x reference entry, over all systems with ``top`` null and over the top K),
        ``scores`` by metric and entry; with one metric and one entry also the single view's top-level keys."""
        rows: list[dict[str, object]] = []
        for row in self.rows:
            for top, agreement in ((None, row.overall), (self.top, row.top)):
                if agreement is None:
                    continue
                rows.append({"metric": row.metric, "refs": None if row.refs is None else row.refs.label,
                             "signature": str(row.signature), "higher_is_better": row.higher_is_better,
                             "systems": len(agreement.systems), "segments": row.segments,
                             **{name: finite(agreement.figure(name)) for name in FIGURES},
                             "intervals": _json_intervals(agreement), "top": top})
        document: dict[str, object] = {
            "suite": self.suite, "rows": rows, "human": self.human,
            "scores": {metric: {row.refs_label: row.overall.scores for row in self.rows if row.metric == metric}
                       for metric in dict.fromkeys(row.metric for row in self.rows)},
            "kendall_by_k": [{"metric": row.metric, "refs": None if row.refs is None else row.refs.label,
                              "k": [k for k, _ in row.by_k], "kendall": [finite(t) for _, t in row.by_k]}
                             for row in self.rows],
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "confidence": 0.95}}
        if self.single:
            document.update(self.rows[0].result(self.human, self.top is not None).to_json())
        return document


def _json_intervals(agreement: RankingAgreement) -> dict[str, list[float | None]] | None:
    if agreement.intervals is None:
        return None
    return {name: [finite(low), finite(high)] for name, (low, high) in agreement.intervals.items()}


def _cells(agreement: RankingAgreement) -> list[Cell]:
    return [Cell(agreement.figure(name), ci=None if agreement.intervals is None else agreement.intervals[name])
            for name in FIGURES]


def correlate_table(db: Database, metrics: Sequence[str], entries: Sequence[RefChoice] | None = None, *,
                    top: int | None = None, suite_name: str | None = None, options: MetricOptions | None = None,
                    resamples: int = RESAMPLES, seed: int = SEED, human_kind: HumanScoreKind | None = None,
                    task: TaskState | None = None) -> CorrelationTable:
    """Each metric against each reference entry (the default references when none are given), correlated
    with the human scores over all systems and over the ``top`` best."""
    progress = progress_of(task)
    human = human_scores(db, suite_name, human_kind)
    systems = choose_systems(human)
    best = choose_systems(human, top) if top is not None else None
    entries = list(entries) if entries else [RefChoice.default()]
    jobs = [(metric, entry if metric_spec(metric).needs_references else None)
            for metric in dict.fromkeys(metrics)
            for entry in (entries if metric_spec(metric).needs_references else [None])]
    options = options or MetricOptions()
    check_options_any(options, [metric_spec(metric) for metric in metrics])
    scorers = {metric: suite_metric(metric, options.applicable(metric_spec(metric)), db)
               for metric in dict.fromkeys(metrics)}  # one per metric: sacrebleu's keeps segment statistics
    reads = CorpusReads(db, suite_name)
    for metric, scorer in scorers.items():
        progress.progress(0, len(jobs), f"computing {metric}'s statistics")
        scorer.prepare(systems, [entry for m, entry in jobs if m == metric and entry is not None], reads,
                       progress)
    rows = []
    for done, (metric, entry) in enumerate(jobs):
        progress.progress(done, len(jobs), f"correlating {metric}" + (f" against {entry.label}" if entry else ""))
        rows.append(_row(db, scorers[metric], entry, human, systems, best, suite_name=suite_name,
                         options=options.applicable(metric_spec(metric)), resamples=resamples,
                         seed=seed, task=task))
    progress.progress(len(jobs), len(jobs), f"correlated {len(jobs)} metric and reference entries")
    with db.session() as session:
        suite = find_suite(session, suite_name)
        sets = reference_sets(session, suite.id)
    return CorrelationTable(suite.name, {s: human[s] for s in systems}, systems, top, rows, resamples, seed, sets)


def _row(db: Database, scorer: Metric, refs: RefChoice | None, human: dict[str, float], systems: list[str],
         best: list[str] | None, *, suite_name: str | None, options: MetricOptions | None, resamples: int,
         seed: int, task: TaskState | None) -> CorrelationRow:
    metric = scorer.name
    level = system_level_scores(db, metric, systems, suite_name=suite_name, refs=refs, options=options, task=task,
                                scorer=scorer)
    resampled = _resampled(level.statistics, resamples, seed)
    overall = _agreement(human, systems, level.scores, resampled)
    top = None
    if best is not None:
        if metric_spec(metric).level == "system":  # its scores depend on the systems compared: score the top K
            top_level = system_level_scores(db, metric, best, suite_name=suite_name, refs=refs, options=options,
                                            task=task, scorer=scorer)
            top_resampled = _resampled(top_level.statistics, resamples, seed)
            top = _agreement(human, best, top_level.scores, top_resampled)
        else:
            top = _agreement(human, best, level.scores, resampled)
    by_k = [(k, correlations([human[s] for s in systems[:k]], [level.scores[s] for s in systems[:k]]).kendall)
            for k in range(LOWEST_K, len(systems) + 1)]
    return CorrelationRow(metric, refs, level.signature, level.higher_is_better, level.segments, overall, top, by_k)


def _draws(segments: int, resamples: int, seed: int) -> np.ndarray:
    """How often each segment is drawn in each resample (resamples x segments)."""
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, segments, size=(resamples, segments))
    cells = (np.arange(resamples)[:, None] * segments + draws).ravel()  # counted at once, not np.add.at's 0.1 s
    return np.bincount(cells, minlength=resamples * segments).reshape(resamples, segments).astype(float)


def _resampled(statistics: Resamplable | None, resamples: int, seed: int) -> dict[str, np.ndarray] | None:
    if statistics is None or not resamples:
        return None
    return statistics.scores(_draws(len(statistics.items), resamples, seed))


def _agreement(human: dict[str, float], systems: list[str], scores: dict[str, float],
               resampled: dict[str, np.ndarray] | None) -> RankingAgreement:
    found = correlations([human[s] for s in systems], [scores[s] for s in systems])
    intervals = None if resampled is None else _intervals([human[s] for s in systems],
                                                          np.column_stack([resampled[s] for s in systems]))
    return RankingAgreement(systems, {s: scores[s] for s in systems}, found.pearson, found.spearman, found.kendall,
                     intervals)


def _intervals(human: list[float], resampled: np.ndarray) -> dict[str, Interval]:
    """95% percentile intervals of Pearson, Spearman and Kendall over the resamples (rows of ``resampled``:
    one score per system); resamples where the scores are constant are left out."""
    x = np.asarray(human, dtype=float)
    figures = batch_correlations(x, resampled)
    return {name: _percentiles(list(figures[name])) for name in FIGURES}


def batch_correlations(x: np.ndarray, ys: np.ndarray) -> dict[str, np.ndarray]:
    """Pearson r, Spearman rho (Pearson of average ranks) and Kendall tau-b of ``x`` with each row of ``ys``,
    as scipy's ``pearsonr``, ``spearmanr`` and ``kendalltau`` compute them one at a time (a thousand resamples
    at once: the scipy calls took seconds per table row); NaN where a row is constant."""
    from scipy.stats import rankdata

    def pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a, b = a - a.mean(), b - b.mean(axis=1, keepdims=True)
        norms = np.linalg.norm(a) * np.linalg.norm(b, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(norms > 0, (b @ a) / norms, np.nan)

    i, j = np.triu_indices(len(x), k=1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(ys[:, i] - ys[:, j])
    pairs = len(i)
    denominator = np.sqrt((pairs - np.sum(sx == 0)) * (pairs - np.sum(sy == 0, axis=1)))
    with np.errstate(invalid="ignore", divide="ignore"):
        kendall = np.where(denominator > 0, (sy @ sx) / denominator, np.nan)
    finite = np.isfinite(ys).all(axis=1)
    result = {"pearson": pearson(x, ys), "spearman": pearson(rankdata(x), rankdata(ys, axis=1)), "kendall": kendall}
    return {name: np.where(finite, values, np.nan) for name, values in result.items()}


def _percentiles(values: list[float]) -> Interval:
    finite_values = np.asarray([v for v in values if math.isfinite(v)])
    if finite_values.size == 0:
        return math.nan, math.nan
    low, high = np.percentile(finite_values, [2.5, 97.5])
    return float(low), float(high)

