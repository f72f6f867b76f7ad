"""sacrebleu's sentence-level BLEU, chrF and TER through its own metric classes.

sacrebleu only knows the number of references after a corpus call; the signature is fixed to
``nrefs:var`` (its own spelling for "varies per segment") because scores are cached per output whatever
the number of references of its item.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric as SacreMetric

from filters.metrics.base import Metric, MetricFactory
from store import Database
from suite.errors import TsqeError

SACREBLEU_METRICS: dict[str, tuple[type[SacreMetric], dict[str, object], bool]] = {
    "bleu": (BLEU, {"effective_order": True}, True),
    "chrf": (CHRF, {}, True),
    "ter": (TER, {}, False),
}


class SacreBleuMetric(Metric):
    def __init__(self, name: str) -> None:
        cls, kwargs, self.higher_is_better = SACREBLEU_METRICS[name]
        self.name = name
        self._metric = cls(**kwargs)
        self._metric.num_refs = -1  # sacrebleu's marker for a variable number of references
        self._signature = f"{name}|{self._metric.get_signature()}"

    @classmethod
    def factory(cls, name: str) -> MetricFactory:
        def make(*, model: str | None = None, layers: int | None = None, device: str | None = None,
                 db: Database | None = None) -> SacreBleuMetric:
            """``db`` is accepted for a uniform registry; text metrics need no cache of their own."""
            if model is not None or layers is not None:
                raise TsqeError(f"{name} compares words or characters: it takes no embedding model or layers")
            return cls(name)
        return make

    @property
    def signature(self) -> str:
        return self._signature

    def score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        self._check(hypotheses, references)
        return np.array([self._metric.sentence_score(hyp, list(refs)).score
                         for hyp, refs in zip(hypotheses, references)], dtype=float)

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
        """sacrebleu's corpus-level score, the system-level figure WMT reports (not a mean of sentences)."""
        self._check(hypotheses, references)
        return float(self._metric.corpus_score(list(hypotheses), _streams(references)).score)  # type: ignore[arg-type]  # sacrebleu's annotation omits the None padding it accepts

    def statistics(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """sacrebleu's sufficient statistics, a row per hypothesis (BLEU's n-gram counts and lengths, chrF's
        n-gram counts, TER's edits and reference length): the corpus score of any subset, or of a bootstrap
        resample, is :meth:`score_of_statistics` of their sum."""
        self._check(hypotheses, references)
        rows = self._metric._extract_corpus_statistics(list(hypotheses), _streams(references))  # type: ignore[arg-type]  # as in corpus_score
        return np.asarray(rows, dtype=float).reshape(len(hypotheses), -1)

    def score_of_statistics(self, summed: np.ndarray) -> float:
        """The corpus score of summed :meth:`statistics`, exactly as sacrebleu computes it from its own sums."""
        return float(self._metric._compute_score_from_stats(summed.tolist()).score)


def _streams(references: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """References per hypothesis as sacrebleu wants them, one stream per reference; a segment with fewer
    references is padded with ``None``, which sacrebleu skips."""
    width = max(len(refs) for refs in references)
    return [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]
