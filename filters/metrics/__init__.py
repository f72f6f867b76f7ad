"""Every metric behind one registry, after sacrebleu's ``METRICS`` dict and ``Metric`` classes.

``filters.metrics.specs`` says what each metric is (cheap to import: listing names loads no metric
library); :func:`get_metric` and :func:`suite_metric` make one, importing its library then. Every metric
carries a :class:`Signature` naming everything that changes its scores (library versions, tokenisation,
model and layer, the reference set), so cached scores are only ever reused under the exact same
configuration.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from filters.metrics.signature import Signature
from filters.metrics.specs import (
    LABEL,
    QE_PREFIX,
    MetricOptions,
    MetricSpec,
    check_options_any,
    make_metric,
    metric_names,
    metric_spec,
)
from suite.errors import TsqeError

if TYPE_CHECKING:
    from filters.metrics.base import Metric, TextMetric
    from store import Database


def suite_metric(name: str, options: MetricOptions | None = None, db: Database | None = None) -> Metric:
    """The metric called ``name`` (``label`` and ``qe:NAME`` included), configured by ``options``; ``db``
    holds BERTScore's token-embedding cache."""
    return make_metric(metric_spec(name), options or MetricOptions(), db)


def references_note(signature: Signature) -> str | None:
    """"References: ..." for a table's notes, read back from a score's signature: which references a metric
    that takes them compared with (the default adds no field to the signature, and is named too)."""
    try:
        spec = metric_spec(signature.name)
    except TsqeError:
        return None
    if not spec.needs_references:
        return None
    from suite.references import RefChoice  # here: the registry is read by `tsqe --help`, without SQLAlchemy

    return f"References: {RefChoice.parse(signature.get('refs'), signature.get('combine') or 'multi').describe()}."


def get_metric(name: str, options: MetricOptions | None = None, db: Database | None = None) -> TextMetric:
    """The metric ``name`` that compares texts with references (BLEU, chrF, TER, BERTScore), for scoring
    texts directly."""
    from filters.metrics.base import TextMetric

    metric = suite_metric(name, options, db)
    if not isinstance(metric, TextMetric):
        raise TsqeError(f"{metric.name} {metric.spec.compares}: it does not score texts on their own")
    return metric


__all__ = ["LABEL", "QE_PREFIX", "MetricOptions", "MetricSpec", "Signature", "check_options_any", "get_metric",
           "metric_names", "metric_spec", "references_note", "suite_metric"]
