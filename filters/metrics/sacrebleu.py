"""sacrebleu's BLEU, chrF and TER through its own metric classes, at sentence and corpus level.

sacrebleu only knows the number of references after a corpus call; the signature is fixed to
``nrefs:var`` (its own spelling for "varies per segment") because scores are cached per output whatever
the number of references of its item. BLEU takes sacrebleu's ``tokenize`` choice (``13a`` by default,
``intl`` as Freitag et al. 2020 use), which its signature states as ``tok:``. BLEU is made with ``force``:
sacrebleu would warn on every corpus call about outputs ending in a tokenised period (one WMT19 en-de system
has them); the scores are the same.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import cast

import numpy as np
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric as SacreMetric
from sacrebleu.metrics.helpers import extract_all_char_ngrams, extract_word_ngrams

from filters.metrics.base import SystemScores, TextMetric
from filters.metrics.corpus import corpus_inputs
from filters.metrics.signature import Signature
from filters.metrics.specs import MetricOptions, MetricSpec
from filters.metrics.statistics import CombinedStatistics, Resamplable, SegmentStatistics
from store import Database
from suite.errors import TsqeError
from suite.references import RefChoice
from suite.tasks import TaskState

SACREBLEU_CLASSES: dict[str, tuple[type[SacreMetric], dict[str, object]]] = {
    "bleu": (BLEU, {"effective_order": True, "force": True}),
    "chrf": (CHRF, {}),
    "ter": (TER, {}),
}


def _chrf_multi(per_reference: list[list[float]], metric: SacreMetric) -> list[float]:
    best, best_f = per_reference[0], -1.0
    for stats in per_reference:
        f_score = cast(CHRF, metric)._compute_f_score(stats)  # type: ignore[arg-type]  # its counts sum as floats here
        if f_score > best_f:
            best, best_f = stats, f_score
    return best


def _ter_multi(per_reference: list[list[float]], metric: SacreMetric) -> list[float]:
    return [min(stats[0] for stats in per_reference), sum(stats[1] for stats in per_reference) / len(per_reference)]


_MULTI_REFERENCE: dict[type[SacreMetric], Callable[[list[list[float]], SacreMetric], list[float]]] = {
    CHRF: _chrf_multi, TER: _ter_multi}
"""Multi-reference statistics from single-reference ones, as each sacrebleu class picks them."""


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
        self._pairs: dict[tuple[str, str], list[float]] = {}
        self._hyp_ngrams: dict[str, list[Counter[str]]] = {}
        self._ref_ngrams: dict[str, list[Counter[str]]] = {}
        self._multi = _MULTI_REFERENCE.get(cls)

    @property
    def signature(self) -> Signature:
        return self._signature

    def score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        self._check(hypotheses, references)
        return np.array([self._metric.sentence_score(hyp, list(refs)).score
                         for hyp, refs in zip(hypotheses, references)], dtype=float)

    def system_scores(self, db: Database, systems: Sequence[str], refs: RefChoice, *, suite_name: str | None,
                      task: TaskState) -> SystemScores:
        """Corpus scores over the segments every system translated, from sacrebleu's segment statistics (so a
        bootstrap over segments recomputes them exactly). Joined sets: sacrebleu's multi-reference corpus score
        (``multi``), or the best or mean of the single-set corpus scores (``max``, ``mean``)."""
        if refs.combine == "multi":
            inputs = corpus_inputs(db, systems, refs, suite_name)
            statistics: Resamplable = SegmentStatistics(
                inputs.items, self.segment_statistics(inputs.hypotheses, inputs.references), self._finish)
            segments = len(inputs.items)
        else:
            parts = [self.system_scores(db, systems, single, suite_name=suite_name, task=task)
                     for single in refs.singles()]
            statistics = CombinedStatistics([p.statistics for p in parts if p.statistics is not None], refs.combine,
                                            self.higher_is_better)
            segments = len(statistics.items)
        scores = statistics.scores(np.ones((1, len(statistics.items))))
        return SystemScores(self.signature_for(refs), self.higher_is_better,
                            {system: float(scores[system][0]) for system in systems}, segments, statistics)

    def segment_statistics(self, hypotheses: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]]
                           ) -> dict[str, np.ndarray]:
        """sacrebleu's statistics of each system's hypotheses against the segments' references (one row per
        segment), as its ``corpus_score`` and paired bootstrap compute them.

        BLEU caches the references once for every system (sacrebleu would cache them again per call). chrF
        and TER statistics of each (hypothesis, reference) pair are computed once per metric object and
        reused, and their multi-reference statistics are derived from them exactly as sacrebleu does (chrF:
        the reference with the best sentence F, the first on ties; TER: the fewest edits over the mean
        reference length), so composed sets made of other sets' references (HQ) cost nothing new.
        """
        for texts in hypotheses.values():
            self._check(texts, references)
        metric = self._metric
        multi = self._multi
        if multi is None:
            width = max(len(refs) for refs in references)
            streams = [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]
            metric._ref_cache = metric._cache_references(streams)  # type: ignore[arg-type]  # None pads, as in corpus_score
            try:
                return {system: np.array(metric._extract_corpus_statistics(list(texts), None), dtype=float)
                        for system, texts in hypotheses.items()}
            finally:
                metric._ref_cache = None
        return {system: np.array([multi([self._pair(hypothesis, ref) for ref in refs], metric)
                                  for hypothesis, refs in zip(texts, references)], dtype=float)
                for system, texts in hypotheses.items()}

    def _pair(self, hypothesis: str, reference: str) -> list[float]:
        key = (hypothesis, reference)
        stats = self._pairs.get(key)
        if stats is None:
            metric = self._metric
            if isinstance(metric, CHRF):  # n-grams of each text once, however many pairs it is in
                stats = [count for h, r in zip(self._ngrams(hypothesis, hyp=True), self._ngrams(reference, hyp=False))
                         for count in metric._get_match_statistics(h, r)]
            else:
                info = metric._extract_reference_info([metric._preprocess_segment(reference)])
                stats = list(metric._compute_segment_statistics(metric._preprocess_segment(hypothesis), info))
            self._pairs[key] = stats
        return stats

    def _ngrams(self, text: str, *, hyp: bool) -> list[Counter[str]]:
        """chrF's character (and word) n-grams of a text, as its ``_compute_segment_statistics`` extracts a
        hypothesis's and its ``_extract_reference_info`` a reference's."""
        cache = self._hyp_ngrams if hyp else self._ref_ngrams
        found = cache.get(text)
        if found is None:
            metric = cast(CHRF, self._metric)
            if hyp:
                found = self._chrf_hypothesis_ngrams(metric, metric._preprocess_segment(text))
            else:
                found = metric._extract_reference_info([metric._preprocess_segment(text)])["ref_ngrams"][0]
            cache[text] = found
        return found

    @staticmethod
    def _chrf_hypothesis_ngrams(metric: CHRF, hypothesis: str) -> list[Counter[str]]:
        ngrams = extract_all_char_ngrams(hypothesis, metric.char_order, metric.whitespace)
        if metric.word_order > 0:
            words = metric._remove_punctuation(hypothesis)
            ngrams.extend(extract_word_ngrams(words, n) for n in range(1, metric.word_order + 1))
        return ngrams

    def _finish(self, total: np.ndarray) -> float:
        return float(self._metric._compute_score_from_stats(list(total)).score)

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
        """sacrebleu's corpus-level score, the system-level figure WMT reports (not a mean of sentences).

        References come per hypothesis as for ``score``; sacrebleu wants one stream per reference, and a
        segment with fewer references is padded with ``None``, which sacrebleu skips.
        """
        self._check(hypotheses, references)
        width = max(len(refs) for refs in references)
        streams = [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]
        return float(self._metric.corpus_score(list(hypotheses), streams).score)  # type: ignore[arg-type]  # sacrebleu's annotation omits the None padding it accepts
