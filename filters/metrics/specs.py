"""The registry of metric specifications: what every metric is, before anything heavy is loaded.

After sacrebleu's ``METRICS`` registry and ``Metric`` attributes: a :class:`MetricSpec` says what a metric
measures at which level, in which direction, what it needs (references, a model) and what it can do, so
that every caller chooses by the specification instead of by name lists of its own, and every list of
metric names in the CLI and the GUI comes from :func:`metric_names`. The pass/fail label and any QE system
(``qe:NAME``) are metrics of the same interface: their scores are read, not computed.

Listing and resolving names imports neither torch nor sacrebleu (start-up time): the factories import
their libraries when a metric is made.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Literal

from suite.errors import TsqeError

if TYPE_CHECKING:
    from filters.metrics.base import Metric
    from store import Database

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

    A metric refuses an option it cannot use (:meth:`check`) rather than ignore it silently.
    """

    model: str | None = None
    layers: int | None = None
    device: str | None = None
    tokenize: str | None = None
    embeddings: str | None = None
    """How the BERTScore family keeps token embeddings (``filters.bertscore.EMBEDDING_STORAGE``; None: the
    default, float16 in the database)."""

    def check(self, spec: MetricSpec) -> None:
        if not spec.needs_model and (self.model is not None or self.layers is not None or self.device is not None
                                     or self.embeddings is not None):
            raise TsqeError(f"{spec.name} {spec.compares}: it takes no embedding model, layers, device or "
                            "embedding storage")
        if self.tokenize is not None and TOKENIZE not in spec.capabilities:
            raise TsqeError(f"{spec.name} takes no tokenizer choice (only "
                            f"{', '.join(metric_names(capability=TOKENIZE))} do)")

    def applicable(self, spec: MetricSpec) -> MetricOptions:
        """What of these options ``spec`` takes, for metrics compared side by side (a tokenizer for BLEU, a
        model for BERTScore)."""
        model = spec.needs_model
        return MetricOptions(self.model if model else None, self.layers if model else None,
                             self.device if model else None, self.tokenize if spec.has(TOKENIZE) else None)

    def check_any(self, specs: Sequence[MetricSpec]) -> None:
        """Refuse an option that none of ``specs`` takes (each may take a part)."""
        taken = [self.applicable(spec) for spec in specs]
        for option in fields(self):
            value = getattr(self, option.name)
            if value is not None and all(getattr(t, option.name) is None for t in taken):
                MetricOptions(**{option.name: value}).check(specs[0])


MetricFactory = Callable[[MetricOptions, "Database | None"], "Metric"]


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
    factory: MetricFactory = field(compare=False, repr=False)

    def has(self, capability: str) -> bool:
        return capability in self.capabilities


def _sacrebleu(name: str) -> MetricFactory:
    def make(options: MetricOptions, db: Database | None) -> Metric:
        from filters.metrics.sacrebleu import SacreBleuMetric

        return SacreBleuMetric(metric_spec(name), options)
    return make


def _bertscore(component: str) -> MetricFactory:
    def make(options: MetricOptions, db: Database | None) -> Metric:
        from filters.metrics.bertscore import BertScoreMetric

        return BertScoreMetric.make(component, options, db)
    return make


def _difficulty(component: str) -> MetricFactory:
    def make(options: MetricOptions, db: Database | None) -> Metric:
        from filters.metrics.difficulty import DifficultyMetric

        return DifficultyMetric(component, options)
    return make


def _label(options: MetricOptions, db: Database | None) -> Metric:
    from filters.metrics.stored import LabelMetric

    return LabelMetric()


def _qe(name: str) -> MetricFactory:
    def make(options: MetricOptions, db: Database | None) -> Metric:
        from filters.metrics.stored import QEMetric

        return QEMetric(metric_spec(QE_PREFIX + name), name)
    return make


_TEXT = frozenset({MULTI_REFERENCE})
_WORDS = "compares words with references"
_CHARACTERS = "compares characters with references"
_EMBEDDINGS = "compares contextual embeddings with references"
_BERTSCORE = frozenset({SIBLINGS, MULTI_REFERENCE})
_COMPONENT = {"p": "precision", "r": "recall", "f": "F1"}

_REGISTRY: tuple[MetricSpec, ...] = (
    MetricSpec("chrf", "segment", True, True, True, False, _TEXT, 0.0,
               "chrF (sacrebleu): character n-gram F-score; corpus chrF per system", _CHARACTERS, _sacrebleu("chrf")),
    MetricSpec("bleu", "segment", True, True, True, False, _TEXT | {TOKENIZE}, 0.0,
               "BLEU (sacrebleu): sentence BLEU with effective order; corpus BLEU per system", _WORDS,
               _sacrebleu("bleu")),
    MetricSpec("ter", "segment", True, False, True, False, _TEXT, 0.0,
               "TER (sacrebleu): edit rate, lower is better; corpus TER per system", _WORDS, _sacrebleu("ter")),
    *(MetricSpec(f"bertscore-{c}", "segment", False, True, True, True, _BERTSCORE, BERTSCORE_TIE_EPSILON,
                 f"BERTScore {_COMPONENT[c]}: greedy token matching of embeddings; mean per system", _EMBEDDINGS,
                 _bertscore(c.upper()))
      for c in "fpr"),
    *(MetricSpec(f"da-bertscore-{c}", "system", False, True, True, True, frozenset({TOKEN_DIFFICULTY}),
                 BERTSCORE_TIE_EPSILON,
                 f"difficulty-aware BERTScore {_COMPONENT[c]} (Zhan et al. 2021): tokens few systems match weigh "
                 "more; per system only", _EMBEDDINGS, _difficulty(c.upper()))
      for c in "fpr"),
    MetricSpec(LABEL, "segment", False, True, False, False, frozenset(), 0.0,
               "the pass/fail label (pass 1, fail 0; others have no score); pass rate per system",
               "reads the outputs' pass/fail labels", _label),
)
_BY_NAME = {spec.name: spec for spec in _REGISTRY}


def metric_spec(name: str) -> MetricSpec:
    """The specification of ``name``: a registered metric, ``label`` or ``qe:NAME`` (any QE system name;
    whether it exists is for the database to say when its scores are read)."""
    key = name.strip()
    if key.startswith(QE_PREFIX):
        system = key[len(QE_PREFIX):]
        if not system:
            raise TsqeError("qe: needs the QE system's name, e.g. qe:cometkiwi")
        return MetricSpec(key, "segment", False, None, False, False, frozenset(), 0.0,
                          f"QE system {system}: its stored scores", f"reads QE system {system}'s stored scores",
                          _qe(system))
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

