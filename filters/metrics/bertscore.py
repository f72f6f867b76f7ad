"""BERTScore P, R and F as registry metrics; one embedding pass serves all three."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from filters.bertscore import EmbeddingCache, bertscore, embedding_cache
from filters.metrics.base import TextMetric
from filters.metrics.signature import Signature
from filters.metrics.spec_types import MetricOptions, MetricSpec
from store import Database

BERTSCORE_COMPONENTS = ("P", "R", "F")


class BertScoreMetric(TextMetric):
    def __init__(self, spec: MetricSpec, cache: EmbeddingCache) -> None:
        self.spec = spec
        self.component = spec.name.rsplit("-", 1)[1].upper()
        self.cache = cache

    @classmethod
    def make(cls, spec: MetricSpec, options: MetricOptions, db: Database | None) -> BertScoreMetric:
        """``db`` holds the token-embedding cache (without one, or with ``options.embeddings`` ``none``,
        embeddings are kept in memory for the metric's lifetime)."""
        return cls(spec, embedding_cache(options.model, options.layers, options.device, options.embeddings, db))

    def forget_stored(self) -> None:
        self.cache.forget_added()

    def _signature_of(self, component: str) -> Signature:
        return Signature.parse(f"bertscore-{component.lower()}|{self.cache.spec.signature}")

    @property
    def signature(self) -> Signature:
        return self._signature_of(self.component)

    def score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        return self.score_many(hypotheses, references)[self.signature]

    def score_many(self, hypotheses: Sequence[str],
                   references: Sequence[Sequence[str]]) -> dict[Signature, np.ndarray]:
        self._check(hypotheses, references)
        scores = bertscore(self.cache, hypotheses, references)
        if self.cache.db is not None:
            self.cache.clear()  # persisted: keep memory to one batch when a whole suite is scored in chunks
        return {self._signature_of(c): scores[:, k] for k, c in enumerate(BERTSCORE_COMPONENTS)}
