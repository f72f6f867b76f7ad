"""What every metric offers: the scores of a suite's outputs, under a signature, against a reference choice.

Two kinds share the interface. Text metrics (:class:`TextMetric`: BLEU, chrF, TER, BERTScore) compare each
distinct output with its item's references and cache the scores under their signature, so a later call,
another system or another command only computes what is new. Stored metrics (``filters.metrics.stored``:
the pass/fail label and QE systems) read scores the database already holds.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from filters.metrics.corpus import CorpusReads
from filters.metrics.signature import Signature
from filters.metrics.spec_types import MetricSpec
from filters.metrics.statistics import Resamplable
from store import Database
from suite.errors import TsqeError
from suite.references import RefChoice
from suite.tasks import TaskState


@dataclass
class OutputScores:
    """Scores by output id under ``signature``; ``fresh`` holds what was computed now, by signature (sibling
    metrics' too), for the caller to cache in its own transaction."""

    signature: Signature
    higher_is_better: bool
    scores: dict[int, float]
    fresh: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    unreferenced: int = 0
    """Outputs left without a score because their item has no reference under the choice."""


@dataclass(frozen=True)
class SystemScores:
    """A metric's own system-level scores (corpus BLEU, DA-BERTScore), with the segments they ran over."""

    signature: Signature
    higher_is_better: bool
    scores: dict[str, float]
    segments: int
    statistics: Resamplable | None = None
    """What the scores are computed from per segment, for a bootstrap over segments."""


class Metric(ABC):
    spec: MetricSpec

    @property
    def name(self) -> str:
        return self.spec.name

    def system_scores(self, db: Database, systems: Sequence[str], refs: RefChoice, *, suite_name: str | None,
                      task: TaskState) -> SystemScores | None:
        """A system-level score of the metric's own (``spec.corpus_form`` or ``spec.level == "system"``);
        None: a system's score is the mean of its segment scores."""
        return None

    def prepare(self, systems: Sequence[str], entries: Sequence[RefChoice], reads: CorpusReads,  # noqa: B027
                task: TaskState) -> None:  # deliberately empty: only metrics whose scores share work do any
        """Do ahead what the :meth:`system_scores` calls of a table (``systems`` against each of ``entries``)
        share, all at once (sacrebleu's pair statistics), reading through ``reads``."""

    def forget_stored(self) -> None:  # noqa: B027 - deliberately empty: most metrics store nothing besides scores
        """Take back what scoring stored besides the scores (BERTScore's embeddings) after a cancelled run."""

    def refuse_references(self, refs: RefChoice) -> None:
        if not self.spec.needs_references and not refs.is_default:
            raise TsqeError(f"{self.name} {self.spec.compares}: it takes no reference set")


class SuiteMetric(Metric):
    """A metric whose score of an output depends on the suite, not on its text alone: read from the database (the
    label, a QE system) or computed over the suite's systems together (difficulty-aware BERTScore)."""

    @abstractmethod
    def output_scores(self, db: Database, suite_id: int, output_ids: Sequence[int], refs: RefChoice,
                      task: TaskState) -> OutputScores:
        """The scores of ``output_ids`` (those the metric can score) against ``refs``."""


class TextMetric(Metric):
    """A metric computed from an output's text and its item's references: texts in, scores out, as sacrebleu's
    metrics are. Reading the texts, caching the scores and chunking the work are the scoring service's
    (``filters.scoring``), the same for every text metric.
    """

    @property
    @abstractmethod
    def signature(self) -> Signature:
        """The signature of the scores against the default references (the cache key's base)."""

    @property
    def higher_is_better(self) -> bool:
        return bool(self.spec.higher_is_better)

    def signature_for(self, refs: RefChoice) -> Signature:
        return self.signature.with_fields(*refs.signature_fields())

    @abstractmethod
    def score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """One score per hypothesis against its own list of references (the metric's multi-reference form
        when there are several)."""

    def score_many(self, hypotheses: Sequence[str],
                   references: Sequence[Sequence[str]]) -> dict[Signature, np.ndarray]:
        """Scores by signature; metrics that get sibling scores for free (BERTScore P/R/F) return them all,
        so one pass fills the cache for every sibling."""
        return {self.signature: self.score(hypotheses, references)}

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
        """A corpus-level score of its own; only metrics whose spec has ``corpus_form`` have one."""
        raise TsqeError(f"{self.name} has no corpus-level score: a system's score is the mean of its segments")

    @staticmethod
    def _check(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
        if len(hypotheses) != len(references):
            raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
        if any(isinstance(refs, str) or len(refs) == 0 for refs in references):
            raise ValueError("each hypothesis needs a non-empty list of references")
