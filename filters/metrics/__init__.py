"""Segment-level metrics behind one registry, after sacrebleu's ``METRICS`` dict.

Every metric carries a signature string naming everything that changes its scores (library versions,
tokenisation, model and layer), so cached scores are only ever reused under the exact same configuration.
"""
from __future__ import annotations

from filters.metrics.base import Metric, MetricFactory
from filters.metrics.bertscore import BERTSCORE_COMPONENTS, BertScoreMetric
from filters.metrics.sacrebleu import SACREBLEU_METRICS, SacreBleuMetric
from store import Database
from suite.errors import TsqeError

METRICS: dict[str, MetricFactory] = {
    **{name: SacreBleuMetric.factory(name) for name in SACREBLEU_METRICS},
    **{f"bertscore-{c.lower()}": BertScoreMetric.factory(c) for c in BERTSCORE_COMPONENTS},
}


def get_metric(name: str, *, model: str | None = None, layers: int | None = None, device: str | None = None,
               db: Database | None = None) -> Metric:
    """The metric called ``name``; ``model``/``layers``/``device`` configure BERTScore, ``db`` holds its
    token-embedding cache (without one, embeddings are kept in memory for the metric's lifetime)."""
    factory = METRICS.get(name.lower())
    if factory is None:
        raise TsqeError(f"unknown metric {name!r} (known: {', '.join(METRICS)})")
    return factory(model=model, layers=layers, device=device, db=db)


__all__ = ["METRICS", "Metric", "get_metric"]
