"""The registry of metrics: every metric's specification by name, and the one place a metric is made.

After sacrebleu's ``METRICS`` registry and ``Metric`` attributes: a :class:`MetricSpec` says what a metric
measures at which level, in which direction, what it needs (references, a model) and what it can do, so
that every caller chooses by the specification instead of by name lists of its own, and every list of
metric names in the CLI and the GUI comes from :func:`metric_names`. The pass/fail label and any QE system
(``qe:NAME``) are metrics of the same interface: their scores are read, not computed.

Listing and resolving names imports neither torch nor sacrebleu (start-up time): each factory imports its
implementation when a metric is made. A name is resolved once (:func:`metric_spec`); the specification is then
passed to the factory and to the metric, never looked up again.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING

from filters.metrics.spec_types import (
    BERTSCORE_TIE_EPSILON,
    LABEL,
    MULTI_REFERENCE,
    QE_PREFIX,
    SIBLINGS,
    TOKEN_DIFFICULTY,
    TOKENIZE,
    Level,
    MetricOptions,
    MetricSpec,
)
from suite.errors import TsqeError

if TYPE_CHECKING:
    from filters.metrics.base import Metric
    from store import Database

MetricFactory = Callable[[MetricSpec, MetricOptions, "Database | None"], "Metric"]


def _sacrebleu(spec: MetricSpec, options: MetricOptions, db: Database | None) -> Metric:
    from filters.metrics.sacrebleu import SacreBleuMetric

    return SacreBleuMetric(spec, options)


def _bertscore(spec: MetricSpec, options: MetricOptions, db: Database | None) -> Metric:
    from filters.metrics.bertscore import BertScoreMetric

    return BertScoreMetric.make(spec, options, db)


def _difficulty(spec: MetricSpec, options: MetricOptions, db: Database | None) -> Metric:
    from filters.metrics.difficulty import DifficultyMetric

    return DifficultyMetric(spec, options)


def _label(spec: MetricSpec, options: MetricOptions, db: Database | None) -> Metric:
    from filters.metrics.stored import LabelMetric

    return LabelMetric(spec)


def _qe(spec: MetricSpec, options: MetricOptions, db: Database | None) -> Metric:
    from filters.metrics.stored import QEMetric

    return QEMetric(spec, spec.name[len(QE_PREFIX):])


_TEXT = frozenset({MULTI_REFERENCE})
_WORDS = "compares words with references"
_CHARACTERS = "compares characters with references"
_EMBEDDINGS = "compares contextual embeddings with references"
_BERTSCORE = frozenset({SIBLINGS, MULTI_REFERENCE})
_COMPONENT = {"p": "precision", "r": "recall", "f": "F1"}

_REGISTRY: tuple[MetricSpec, ...] = (
    MetricSpec("chrf", "segment", True, True, True, False, _TEXT, 0.0,
               "chrF (sacrebleu): character n-gram F-score; corpus chrF per system", _CHARACTERS),
    MetricSpec("bleu", "segment", True, True, True, False, _TEXT | {TOKENIZE}, 0.0,
               "BLEU (sacrebleu): sentence BLEU with effective order; corpus BLEU per system", _WORDS),
    MetricSpec("ter", "segment", True, False, True, False, _TEXT, 0.0,
               "TER (sacrebleu): edit rate, lower is better; corpus TER per system", _WORDS),
    *(MetricSpec(f"bertscore-{c}", "segment", False, True, True, True, _BERTSCORE, BERTSCORE_TIE_EPSILON,
                 f"BERTScore {_COMPONENT[c]}: greedy token matching of embeddings; mean per system", _EMBEDDINGS)
      for c in "fpr"),
    *(MetricSpec(f"da-bertscore-{c}", "system", False, True, True, True, frozenset({TOKEN_DIFFICULTY}),
                 BERTSCORE_TIE_EPSILON,
                 f"difficulty-aware BERTScore {_COMPONENT[c]} (Zhan et al. 2021): tokens few systems match weigh "
                 "more; per system only", _EMBEDDINGS)
      for c in "fpr"),
    MetricSpec(LABEL, "segment", False, True, False, False, frozenset(), 0.0,
               "the pass/fail label (pass 1, fail 0; others have no score); pass rate per system",
               "reads the outputs' pass/fail labels"),
)
_BY_NAME = {spec.name: spec for spec in _REGISTRY}
_FACTORIES: dict[str, MetricFactory] = {"chrf": _sacrebleu, "bleu": _sacrebleu, "ter": _sacrebleu, LABEL: _label,
                                        **{f"bertscore-{c}": _bertscore for c in "fpr"},
                                        **{f"da-bertscore-{c}": _difficulty for c in "fpr"}}


def metric_spec(name: str) -> MetricSpec:
    """The specification of ``name``: a registered metric, ``label`` or ``qe:NAME`` (any QE system name;
    whether it exists is for the database to say when its scores are read)."""
    key = name.strip()
    if key.startswith(QE_PREFIX):
        system = key[len(QE_PREFIX):]
        if not system:
            raise TsqeError("qe: needs the QE system's name, e.g. qe:cometkiwi")
        return MetricSpec(key, "segment", False, None, False, False, frozenset(), 0.0,
                          f"QE system {system}: its stored scores", f"reads QE system {system}'s stored scores")
    spec = _BY_NAME.get(key.lower())
    if spec is None:
        raise TsqeError(f"unknown metric {name!r} (known: {', '.join(metric_names())} or qe:NAME)")
    return spec


def metric_names(*, level: Level | None = None, needs_references: bool | None = None,
                 needs_model: bool | None = None, capability: str | None = None,
                 qe_systems: Sequence[str] = ()) -> list[str]:
    """Registered metric names matching every filter given, in the registry's order (chrF first: the
    default where a list offers one), followed by ``qe:NAME`` of each of ``qe_systems`` that matches."""
    specs = [*_REGISTRY, *(metric_spec(QE_PREFIX + name) for name in qe_systems)]
    return [spec.name for spec in specs
            if (level is None or spec.level == level)
            and (needs_references is None or spec.needs_references == needs_references)
            and (needs_model is None or spec.needs_model == needs_model)
            and (capability is None or spec.has(capability))]


def make_metric(spec: MetricSpec, options: MetricOptions, db: Database | None) -> Metric:
    """The metric ``spec`` describes, configured by ``options`` (checked first); ``db`` holds BERTScore's
    token-embedding cache."""
    check_options(options, spec)
    factory = _qe if spec.name.startswith(QE_PREFIX) else _FACTORIES[spec.name]
    return factory(spec, options, db)


def check_options(options: MetricOptions, spec: MetricSpec) -> None:
    """Refuse an option ``spec`` cannot use rather than ignore it silently."""
    if not spec.needs_model and (options.model is not None or options.layers is not None
                                 or options.device is not None or options.embeddings is not None):
        raise TsqeError(f"{spec.name} {spec.compares}: it takes no embedding model, layers, device or "
                        "embedding storage")
    if options.tokenize is not None and TOKENIZE not in spec.capabilities:
        raise TsqeError(f"{spec.name} takes no tokenizer choice (only "
                        f"{', '.join(metric_names(capability=TOKENIZE))} do)")


def check_options_any(options: MetricOptions, specs: Sequence[MetricSpec]) -> None:
    """Refuse an option that none of ``specs`` takes (each may take a part)."""
    taken = [options.applicable(spec) for spec in specs]
    for option in fields(options):
        value = getattr(options, option.name)
        if value is not None and all(getattr(t, option.name) is None for t in taken):
            check_options(MetricOptions(**{option.name: value}), specs[0])


__all__ = ["BERTSCORE_TIE_EPSILON", "LABEL", "MULTI_REFERENCE", "QE_PREFIX", "SIBLINGS", "TOKEN_DIFFICULTY", "TOKENIZE",
           "Level", "MetricOptions", "MetricSpec", "check_options", "check_options_any", "make_metric", "metric_names",
           "metric_spec"]
