"""What every segment-level metric offers to the scoring and filtering code."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np

MetricFactory = Callable[..., "Metric"]


class Metric(ABC):
    name: str
    higher_is_better: bool = True

    @property
    @abstractmethod
    def signature(self) -> str:
        """``NAME|key:value|...``: the cache key of this metric's scores."""

    @abstractmethod
    def score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """One score per hypothesis against its own list of references."""

    def score_many(self, hypotheses: Sequence[str],
                   references: Sequence[Sequence[str]]) -> dict[str, np.ndarray]:
        """Scores by signature; metrics that get sibling scores for free (BERTScore P/R/F) return them all,
        so one pass fills the cache for every sibling."""
        return {self.signature: self.score(hypotheses, references)}

    def forget_stored(self) -> None:  # noqa: B027 - deliberately empty: most metrics store nothing besides scores
        """Take back what scoring stored besides the scores (BERTScore's embeddings) after a cancelled run."""

    @staticmethod
    def _check(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
        if len(hypotheses) != len(references):
            raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
        if any(isinstance(refs, str) or len(refs) == 0 for refs in references):
            raise ValueError("each hypothesis needs a non-empty list of references")
