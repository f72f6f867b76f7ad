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
from sqlalchemy import select

from filters.metrics.cache import cached_scores
from filters.metrics.corpus import CorpusReads
from filters.metrics.signature import Signature
from filters.metrics.specs import MetricSpec
from filters.metrics.statistics import Resamplable
from store import Database
from store.models import Output
from suite.errors import TsqeError
from suite.references import RefChoice, references_of
from suite.tasks import TaskState

SCORE_CHUNK = 2000


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

    @abstractmethod
    def output_scores(self, db: Database, suite_id: int, output_ids: Sequence[int], refs: RefChoice,
                      task: TaskState) -> OutputScores:
        """The scores of ``output_ids`` (those the metric can score) against ``refs``."""

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


class TextMetric(Metric):
    """A metric computed from an output's text and its item's references."""

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

    def output_scores(self, db: Database, suite_id: int, output_ids: Sequence[int], refs: RefChoice,
                      task: TaskState) -> OutputScores:
        if refs.combine != "multi":
            return self._combined(db, suite_id, output_ids, refs, task)
        signature = self.signature_for(refs)
        with db.session() as session:
            try:
                references = references_of(session, suite_id, refs)
            except TsqeError as error:
                raise TsqeError(f"{self.name} {self.spec.compares}, and {error}") from error
            scores = cached_scores(session, suite_id, str(signature))
            todo = sorted(o for o in output_ids if o not in scores)
            texts: dict[int, tuple[str, int]] = {}
            for start in range(0, len(todo), 5000):
                texts.update((o, (text, item_id)) for o, text, item_id in session.execute(
                    select(Output.id, Output.text, Output.item_id).where(Output.id.in_(todo[start:start + 5000]))))
        todo = [o for o in todo if texts[o][1] in references]
        fresh: dict[str, list[tuple[int, float]]] = {str(signature): []}
        for start in range(0, len(todo), SCORE_CHUNK):
            task.progress(start, len(todo), f"scoring output {start:,} of {len(todo):,} with {self.name}")
            chunk = todo[start:start + SCORE_CHUNK]
            results = self.score_many([texts[o][0] for o in chunk], [references[texts[o][1]] for o in chunk])
            for sibling, values in results.items():
                key = str(sibling.with_fields(*refs.signature_fields()))
                fresh.setdefault(key, []).extend(zip(chunk, map(float, values)))
        scores.update(fresh[str(signature)])
        wanted = {o: scores[o] for o in output_ids if o in scores}
        return OutputScores(signature, self.higher_is_better, wanted,
                            fresh if todo else {}, unreferenced=len(output_ids) - len(wanted))

    def _combined(self, db: Database, suite_id: int, output_ids: Sequence[int], refs: RefChoice,
                  task: TaskState) -> OutputScores:
        """The best (``max``) or the mean of the single-set scores, over the sets that have a reference for
        the output's item; each set's scores are cached under its own signature."""
        parts = [self.output_scores(db, suite_id, output_ids, single, task) for single in refs.singles()]
        best = max if self.higher_is_better else min
        combined: dict[int, float] = {}
        for output_id in output_ids:
            values = [part.scores[output_id] for part in parts if output_id in part.scores]
            if values:
                combined[output_id] = best(values) if refs.combine == "max" else float(np.mean(values))
        fresh = {key: rows for part in parts for key, rows in part.fresh.items()}
        return OutputScores(self.signature_for(refs), self.higher_is_better, combined, fresh,
                            unreferenced=len(output_ids) - len(combined))

    @staticmethod
    def _check(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
        if len(hypotheses) != len(references):
            raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
        if any(isinstance(refs, str) or len(refs) == 0 for refs in references):
            raise ValueError("each hypothesis needs a non-empty list of references")
