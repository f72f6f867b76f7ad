"""Metrics over a suite: segment scores, the most discriminative items (variance), difficulty-aware BERTScore and
system-level correlation with human scores (``tsqe score``, ``variance``, ``difficulty``, ``correlate``).

Metrics load their libraries (sacrebleu, torch and the bundled BERTScore model) when one is first used, never on
``import tsqe``.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tsqe.base import SuiteHandle
from tsqe.progress import ProgressArgument, task_of
from tsqe.reports import TableReport

if TYPE_CHECKING:
    import pandas as pd

    from filters.correlation import CorrelationResult
    from filters.correlation_table import CorrelationTable
    from filters.metrics import MetricOptions
    from filters.metrics.da_bertscore import DifficultyResult
    from filters.scoring import SegmentScores
    from filters.variance import VarianceResult
    from suite.domain import Combine
    from suite.qe_scores import QESystemInfo
    from suite.references import ReferenceChoices
    from suite.tables import Table


@dataclass(frozen=True)
class Scores:
    """``tsqe score``: one metric's score of each system output (cached per distinct output under its
    signature, so a second call scores only what is new)."""

    result: SegmentScores

    @property
    def signature(self) -> str:
        return str(self.result.signature)

    def to_pandas(self) -> pd.DataFrame:
        """One row per system output: item_id, system, score (``tsqe score``'s TSV)."""
        import pandas as pd

        rows = self.result.rows
        return pd.DataFrame({"item_id": [r.item_id for r in rows], "system": [r.system for r in rows],
                             "score": [r.score for r in rows]})


@dataclass(frozen=True)
class Variance(TableReport):
    """``tsqe variance``: the items ranked by the deviation of a metric over the systems, and those kept
    (deviation above the ``drop`` percentile, the rule of the Variance-Aware Test-set code)."""

    result: VarianceResult
    metric: str

    def table(self) -> Table:
        return self.result.to_table()

    def to_dict(self) -> dict[str, object]:
        """``tsqe variance --json``."""
        return self.result.to_json(self.metric)


@dataclass(frozen=True)
class Difficulty(TableReport):
    """``tsqe difficulty``: BERTScore and difficulty-aware BERTScore (Zhan et al. 2021) per system, and each
    item's reference tokens with their difficulty."""

    result: DifficultyResult

    def table(self) -> Table:
        return self.result.to_table()

    def to_dict(self) -> dict[str, object]:
        """``tsqe difficulty --json``."""
        return self.result.to_dict()


@dataclass(frozen=True)
class Correlations(TableReport):
    """``tsqe correlate``: Pearson, Spearman and Kendall of system-level metric scores with the human scores,
    a row per metric and reference entry, with bootstrap intervals over segments."""

    result: CorrelationTable

    def table(self) -> Table:
        return self.result.to_table()

    def per_system(self) -> CorrelationResult:
        """One metric and one reference entry: each system's human and metric score, as ``tsqe correlate``
        prints them (over the ``top`` systems when asked)."""
        from suite.errors import TsqeError

        if not self.result.single:
            raise TsqeError("the per-system view is of one metric and one reference entry")
        return self.result.rows[0].result(self.result.human, self.result.top is not None)

    def to_dict(self) -> dict[str, object]:
        """``tsqe correlate --json``."""
        return self.result.to_json()


class MetricReports(SuiteHandle):
    """The metric methods of ``tsqe.Suite``. ``refs`` names a reference set (``wmt.p``), sets joined by +
    (``ar+wmt``, combined as ``combine`` says) or ``known-good``; None: every reference of kind standard."""

    def reference_sets(self) -> ReferenceChoices:
        """``tsqe references``: the suite's reference sets with their kinds and coverage, and how many items have
        known good translations (the entry ``known-good``)."""
        from suite.references import reference_choices

        return reference_choices(self.store, self.name)

    def metric_as_qe(self, metric: str, *, name: str | None = None, refs: str | None = None,
                     combine: Combine | str = "multi", options: MetricOptions | None = None, replace: bool = False,
                     progress: ProgressArgument = None) -> QESystemInfo:
        """``tsqe qe metric``: store a reference-based metric's scores as a QE system (a proxy), for
        ``accuracy``."""
        from filters.qe_proxy import store_metric_as_qe
        from suite.references import RefChoice

        return store_metric_as_qe(self.store, metric, name=name, suite_name=self.name,
                                  refs=RefChoice.parse(refs, combine), options=options, replace=replace,
                                  task=task_of(progress))

    def scores(self, metric: str, *, refs: str | None = None, combine: Combine | str = "multi",
               systems: Sequence[str] | None = None, options: MetricOptions | None = None,
               progress: ProgressArgument = None) -> Scores:
        """``tsqe score --metric NAME``."""
        from filters.scoring import score_outputs
        from suite.references import RefChoice

        return Scores(score_outputs(self.store, metric, suite_name=self.name,
                                    systems=None if systems is None else list(systems),
                                    refs=RefChoice.parse(refs, combine), options=options, task=task_of(progress)))

    def variance(self, metric: str, *, drop: float = 0.6, refs: str | None = None, combine: Combine | str = "multi",
                 systems: Sequence[str] | None = None, options: MetricOptions | None = None,
                 progress: ProgressArgument = None) -> Variance:
        """``tsqe variance``: ``drop`` the fraction of items with the lowest deviation."""
        from filters.variance import variance_filter

        scores = self.scores(metric, refs=refs, combine=combine, systems=systems, options=options, progress=progress)
        return Variance(variance_filter(scores.result, drop=drop), metric)

    def da_bertscore(self, *, systems: str = "all", rank_by: str = "human", refs: str | None = None,
                     options: MetricOptions | None = None, progress: ProgressArgument = None) -> Difficulty:
        """``tsqe difficulty``: ``systems`` all, top:K (the K best under ``rank_by``: human, a metric's name or
        a file of 'LP HUMAN SYSTEM' lines) or S1,S2,..."""
        from filters.metrics.da_bertscore import da_bertscore
        from filters.systems import choose_systems
        from suite.references import RefChoice

        task, choice = task_of(progress), RefChoice.parse(refs)
        chosen = choose_systems(self.store, systems, suite_name=self.name, rank_by=rank_by, refs=choice,
                                options=options, task=task)
        return Difficulty(da_bertscore(self.store, suite_name=self.name, systems=chosen, refs=choice,
                                       options=options, task=task))

    def correlations(self, metrics: str | Sequence[str], *, refs: str | Sequence[str] | None = None,
                     combine: Combine | str = "multi", top: int | None = None, bootstrap: int = 1000, seed: int = 0,
                     options: MetricOptions | None = None, human: str | None = None,
                     progress: ProgressArgument = None) -> Correlations:
        """``tsqe correlate``: each metric against each reference entry (``refs`` a list, or comma-separated as
        on the command line), over all systems and over the ``top`` best by human score; ``human`` the kind of
        human scores (da, z, esa, mqm; None: the suite's only kind)."""
        from filters.correlation_table import correlate_table
        from store.domain import HumanScoreKind, parse
        from suite.lists import comma_list
        from suite.references import parse_ref_entries

        names = comma_list(metrics if isinstance(metrics, str) else ",".join(metrics))
        entries = parse_ref_entries(refs if refs is None or isinstance(refs, str) else ",".join(refs), combine)
        return Correlations(correlate_table(self.store, names, entries, top=top, suite_name=self.name,
                                            options=options, resamples=bootstrap, seed=seed, task=task_of(progress),
                                            human_kind=None if human is None else parse(HumanScoreKind, human,
                                                                                        "human score kind")))
