"""What a metric is and how it is configured, as plain values: the bottom of ``filters.metrics``.

Every metric implementation and the registry (``filters.metrics.specs``) import these; nothing here imports an
implementation, so the registry can make metrics lazily without an import cycle.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["segment", "system"]

LABEL = "label"
QE_PREFIX = "qe:"
SIBLINGS = "siblings"
"""Scoring one of several metrics fills the others' caches in the same pass (BERTScore P, R and F)."""
TOKEN_DIFFICULTY = "token_difficulty"
"""Reports how hard each reference token is (difficulty-aware BERTScore)."""
MULTI_REFERENCE = "multi_reference"
"""Has a multi-reference form of its own (sacrebleu's, bert_score's maximum over references)."""
TOKENIZE = "tokenize"
"""Takes a tokenizer choice (sacrebleu BLEU's ``tokenize``: 13a, intl, ...)."""
BERTSCORE_TIE_EPSILON = 1e-6
"""BERTScore of two outputs differing only in case or tokenisation differs by float noise below this."""


@dataclass(frozen=True)
class MetricOptions:
    """How a metric is configured: the embedding model of the BERTScore family, BLEU's tokenizer.

    A metric refuses an option it cannot use (``filters.metrics.specs.check_options``) rather than ignore it
    silently.
    """

    model: str | None = None
    layers: int | None = None
    device: str | None = None
    tokenize: str | None = None
    embeddings: str | None = None
    """How the BERTScore family keeps token embeddings (``filters.bertscore.EMBEDDING_STORAGE``; None: the
    default, float16 in the database)."""

    def applicable(self, spec: MetricSpec) -> MetricOptions:
        """What of these options ``spec`` takes, for metrics compared side by side (a tokenizer for BLEU, a
        model for BERTScore)."""
        model = spec.needs_model
        return MetricOptions(self.model if model else None, self.layers if model else None,
                             self.device if model else None, self.tokenize if spec.has(TOKENIZE) else None)


@dataclass(frozen=True)
class MetricSpec:
    name: str
    level: Level
    """``segment``: a score per output of its own; ``system``: a score per system, and per output only
    relative to the systems compared (difficulty-aware BERTScore, whose token weights depend on them)."""
    corpus_form: bool
    """A system's score is a corpus-level score of its own (sacrebleu), not the mean of its segments."""
    higher_is_better: bool | None
    """None: as the QE system was stored (``qe:NAME``)."""
    needs_references: bool
    needs_model: bool
    """Takes a model, layers and a device (the BERTScore family); the others refuse them."""
    capabilities: frozenset[str]
    tie_epsilon: float
    """``|a - b| <= tie_epsilon`` is a tie when two outputs are compared (float noise of BERTScore)."""
    summary: str
    """One line for ``--help`` and the GUI's choosers."""
    compares: str
    """What the metric looks at, for messages: "compares words with references"."""

    def has(self, capability: str) -> bool:
        return capability in self.capabilities
