"""sacrebleu's BLEU, chrF and TER through its own metric classes, at sentence and corpus level.

sacrebleu only knows the number of references after a corpus call; the signature is fixed to
``nrefs:var`` (its own spelling for "varies per segment") because scores are cached per output whatever
the number of references of its item. BLEU takes sacrebleu's ``tokenize`` choice (``13a`` by default,
``intl`` as Freitag et al. 2020 use), which its signature states as ``tok:``.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric as SacreMetric

from filters.metrics.base import SystemScores, TextMetric
from filters.metrics.corpus import corpus_inputs
from filters.metrics.signature import Signature
from filters.metrics.specs import MetricOptions, MetricSpec
from store import Database
from suite.errors import TsqeError
from suite.references import RefChoice
from suite.tasks import TaskState

SACREBLEU_CLASSES: dict[str, tuple[type[SacreMetric], dict[str, object]]] = {
    "bleu": (BLEU, {"effective_order": True}),
    "chrf": (CHRF, {}),
    "ter": (TER, {}),
}


class SacreBleuMetric(TextMetric):
    def __init__(self, spec: MetricSpec, options: MetricOptions) -> None:
        options.check(spec)
        self.spec = spec
        cls, kwargs = SACREBLEU_CLASSES[spec.name]
        if options.tokenize is not None:
            if options.tokenize not in BLEU.TOKENIZERS:
                raise TsqeError(f"unknown BLEU tokenizer {options.tokenize!r} (sacrebleu's: "
                                f"{', '.join(BLEU.TOKENIZERS)})")
            kwargs = {**kwargs, "tokenize": options.tokenize}
        self._metric = cls(**kwargs)
        self._metric.num_refs = -1  # sacrebleu's marker for a variable number of references
        self._signature = Signature.parse(f"{spec.name}|{self._metric.get_signature()}")

    @property
    def signature(self) -> Signature:
        return self._signature

    def score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        self._check(hypotheses, references)
        return np.array([self._metric.sentence_score(hyp, list(refs)).score
                         for hyp, refs in zip(hypotheses, references)], dtype=float)

    def system_scores(self, db: Database, systems: Sequence[str], refs: RefChoice, *, suite_name: str | None,
                      task: TaskState) -> SystemScores:
        """Corpus scores over the segments every system translated. Joined sets: sacrebleu's multi-reference
        corpus score (``multi``), or the best or mean of the single-set corpus scores (``max``, ``mean``)."""
        if refs.combine == "multi":
            hypotheses, references = corpus_inputs(db, systems, refs, suite_name)
            return SystemScores(self.signature_for(refs), self.higher_is_better,
                                {system: self.corpus_score(hypotheses[system], references) for system in systems},
                                len(references))
        parts = [self.system_scores(db, systems, single, suite_name=suite_name, task=task) for single in refs.singles()]
        best = max if self.higher_is_better else min
        return SystemScores(self.signature_for(refs), self.higher_is_better, {
            system: float(best(p.scores[system] for p in parts)) if refs.combine == "max"
            else float(np.mean([p.scores[system] for p in parts])) for system in systems},
            max(p.segments for p in parts))

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
        """sacrebleu's corpus-level score, the system-level figure WMT reports (not a mean of sentences).

        References come per hypothesis as for ``score``; sacrebleu wants one stream per reference, and a
        segment with fewer references is padded with ``None``, which sacrebleu skips.
        """
        self._check(hypotheses, references)
        width = max(len(refs) for refs in references)
        streams = [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]
        return float(self._metric.corpus_score(list(hypotheses), streams).score)  # type: ignore[arg-type]  # sacrebleu's annotation omits the None padding it accepts
