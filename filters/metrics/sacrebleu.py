"""sacrebleu's sentence-level BLEU, chrF and TER through its own metric classes.

sacrebleu only knows the number of references after a corpus call; the signature is fixed to
``nrefs:var`` (its own spelling for "varies per segment") because scores are cached per output whatever
the number of references of its item.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from filters.metrics.base import Metric, MetricFactory
from store import Database
from suite.errors import TsqeError

if TYPE_CHECKING:
    from sacrebleu.metrics.base import Metric as SacreMetric

SACREBLEU_METRICS: dict[str, tuple[str, dict[str, object], bool]] = {
    "bleu": ("BLEU", {"effective_order": True}, True),
    "chrf": ("CHRF", {}, True),
    "ter": ("TER", {}, False),
}
"""name -> (sacrebleu's class, its options, higher is better); the class is looked up when a metric is made, so
that listing metrics does not import sacrebleu (start-up time, issue 16)."""


class SacreBleuMetric(Metric):
    def __init__(self, name: str) -> None:
        import sacrebleu.metrics

        class_name, kwargs, self.higher_is_better = SACREBLEU_METRICS[name]
        self.name = name
        self._metric: SacreMetric = getattr(sacrebleu.metrics, class_name)(**kwargs)
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
        """sacrebleu's corpus-level score, the system-level figure WMT reports (not a mean of sentences).

        References come per hypothesis as for ``score``; sacrebleu wants one stream per reference, and a
        segment with fewer references is padded with ``None``, which sacrebleu skips.
        """
        self._check(hypotheses, references)
        width = max(len(refs) for refs in references)
        streams = [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]
        return float(self._metric.corpus_score(list(hypotheses), streams).score)  # type: ignore[arg-type]  # sacrebleu's annotation omits the None padding it accepts
