"""sacrebleu's BLEU, chrF and TER through its own metric classes, at sentence and corpus level.

sacrebleu only knows the number of references after a corpus call; the signature is fixed to
``nrefs:var`` (its own spelling for "varies per segment") because scores are cached per output whatever
the number of references of its item. BLEU takes sacrebleu's ``tokenize`` choice (``13a`` by default,
``intl`` as Freitag et al. 2020 use), which its signature states as ``tok:``. BLEU is made with ``force``:
sacrebleu would warn on every corpus call about outputs ending in a tokenised period (one WMT19 en-de system
has them); the scores are the same.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric as SacreMetric

from filters.metrics.base import SystemScores, TextMetric
from filters.metrics.corpus import CorpusReads
from filters.metrics.pair_statistics import PairStatistics, Wanted
from filters.metrics.signature import Signature
from filters.metrics.spec_types import MetricOptions, MetricSpec
from filters.metrics.statistics import CombinedStatistics, Resamplable, SegmentStatistics
from filters.metrics.summed_scores import Scores, summed_scores
from store import Database
from suite.domain import Combine
from suite.errors import TsqeError
from suite.references import RefChoice
from suite.tasks import TaskState


def _chrf_multi(per_reference: np.ndarray, starts: np.ndarray, f_scores: Scores) -> np.ndarray:
    """Per segment, the statistics of the reference with the best sentence F, the first of equals, as sacrebleu
    picks them; ``per_reference``: a row per segment and reference, segment ``k``'s from ``starts[k]`` on."""
    segment = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(per_reference))))
    ranked = np.lexsort((np.arange(len(per_reference)), -f_scores(per_reference), segment))
    return np.asarray(per_reference[ranked[starts]])


def _ter_multi(per_reference: np.ndarray, starts: np.ndarray, f_scores: Scores) -> np.ndarray:
    """Per segment, the fewest edits over the mean reference length, as sacrebleu counts them."""
    references = np.diff(np.append(starts, len(per_reference)))
    return np.column_stack([np.minimum.reduceat(per_reference[:, 0], starts),
                            np.add.reduceat(per_reference[:, 1], starts) / references])


_MULTI_REFERENCE: dict[type[SacreMetric], Callable[[np.ndarray, np.ndarray, Scores], np.ndarray]] = {
    CHRF: _chrf_multi, TER: _ter_multi}
"""Multi-reference statistics from single-reference ones, as each sacrebleu class picks them, all segments of a
system at once (chrF's sentence F of 130,000 pairs one by one took seconds of a table)."""


class SacreBleuMetric(TextMetric):
    def __init__(self, spec: MetricSpec, options: MetricOptions) -> None:
        self.spec = spec
        if options.tokenize is not None and options.tokenize not in BLEU.TOKENIZERS:
            raise TsqeError(f"unknown BLEU tokenizer {options.tokenize!r} (sacrebleu's: "
                            f"{', '.join(BLEU.TOKENIZERS)})")
        self._statistics = PairStatistics(spec.name, options.tokenize)
        self._metric = self._statistics.metric
        self._signature = Signature.parse(f"{spec.name}|{self._metric.get_signature()}")
        self._multi = _MULTI_REFERENCE.get(type(self._metric))
        self._reads: CorpusReads | None = None
        self._finish_rows = summed_scores(self._metric)

    @property
    def signature(self) -> Signature:
        return self._signature

    def score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        self._check(hypotheses, references)
        return np.array([self._metric.sentence_score(hyp, list(refs)).score
                         for hyp, refs in zip(hypotheses, references)], dtype=float)

    def prepare(self, systems: Sequence[str], entries: Sequence[RefChoice], reads: CorpusReads,
                task: TaskState) -> None:
        """Compute the statistics of every entry's pairs in one run of the workers, segment by segment (a
        worker then prepares a segment's texts once for all the sets, and no worker waits while this process
        reads the next entry), and read the entries' inputs through ``reads`` from now on."""
        self._reads = reads
        choices = dict.fromkeys(single for entry in entries
                                for single in entry.scored())
        by_item: dict[int, list[Wanted]] = {}
        for choice in choices:
            inputs = reads.inputs(systems, choice)
            for item, one in zip(inputs.items, self._wanted(inputs.hypotheses, inputs.references)):
                by_item.setdefault(item, []).extend(one)
        self._statistics.compute((one for wanted in by_item.values() for one in wanted), task)

    def system_scores(self, db: Database, systems: Sequence[str], refs: RefChoice, *, suite_name: str | None,
                      task: TaskState) -> SystemScores:
        """Corpus scores over the segments every system translated, from sacrebleu's segment statistics (so a
        bootstrap over segments recomputes them exactly). Joined sets: sacrebleu's multi-reference corpus score
        (``multi``), or the best or mean of the single-set corpus scores (``max``, ``mean``)."""
        if refs.combine == Combine.MULTI:
            reads = self._reads if self._reads is not None else CorpusReads(db, suite_name)
            inputs = reads.inputs(systems, refs)
            statistics: Resamplable = SegmentStatistics(
                inputs.items, self.segment_statistics(inputs.hypotheses, inputs.references, task), self._finish,
                self._finish_rows)
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

    def segment_statistics(self, hypotheses: Mapping[str, Sequence[str]], references: Sequence[Sequence[str]],
                           task: TaskState | None = None) -> dict[str, np.ndarray]:
        """sacrebleu's statistics of each system's hypotheses against the segments' references (one row per
        segment), as its ``corpus_score`` and paired bootstrap compute them.

        The statistics of each (hypothesis, reference) pair are computed once per metric object, in worker
        processes when there are many new ones (:class:`PairStatistics`), and reused: by every system that
        gave the same output, by every reference set holding the same reference (the HQ sets are made of the
        others' references) and by the joined entries, whose multi-reference statistics chrF and TER derive
        from them exactly as sacrebleu does (chrF: the reference with the best sentence F, the first on ties;
        TER: the fewest edits over the mean reference length). Multi-reference BLEU clips n-gram counts by
        every reference at once, so it is computed from the segment's references together (once per distinct
        output and references).
        """
        for texts in hypotheses.values():
            self._check(texts, references)
        statistics = self._statistics
        statistics.compute((one for wanted in self._wanted(hypotheses, references) for one in wanted), task)
        if self._multi is None:
            return {system: np.array([statistics.statistics(hypothesis, tuple(refs))
                                      for hypothesis, refs in zip(texts, references)], dtype=float)
                    for system, texts in hypotheses.items()}
        starts = np.cumsum([0, *map(len, references)])[:-1]
        return {system: self._multi(np.array([statistics.pairs[hypothesis, ref]
                                              for hypothesis, refs in zip(texts, references) for ref in refs],
                                             dtype=float), starts, self._finish_rows)
                for system, texts in hypotheses.items()}

    def _wanted(self, hypotheses: Mapping[str, Sequence[str]],
                references: Sequence[Sequence[str]]) -> list[list[Wanted]]:
        """Per segment, the statistics its hypotheses need: each pair, or BLEU's against all its references."""
        segments = []
        for k, refs in enumerate(map(tuple, references)):
            asked = [refs] if len(refs) == 1 or self._multi is None else [(ref,) for ref in refs]
            segments.append([(texts[k], one) for texts in hypotheses.values() for one in asked])
        return segments

    def _finish(self, total: np.ndarray) -> float:
        return float(self._metric._compute_score_from_stats(list(total)).score)

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> float:
        """sacrebleu's corpus-level score, the system-level figure WMT reports (not a mean of sentences)."""
        self._check(hypotheses, references)
        return float(self._metric.corpus_score(list(hypotheses), _streams(references)).score)  # type: ignore[arg-type]  # sacrebleu's annotation omits the None padding it accepts

    def statistics(self, hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
        """sacrebleu's sufficient statistics, a row per hypothesis (BLEU's n-gram counts and lengths, chrF's
        n-gram counts, TER's edits and reference length): the corpus score of any subset, or of a bootstrap
        resample, is :meth:`score_of_statistics` of their sum."""
        self._check(hypotheses, references)
        rows = self._metric._extract_corpus_statistics(list(hypotheses), _streams(references))  # type: ignore[arg-type]  # as in corpus_score
        return np.asarray(rows, dtype=float).reshape(len(hypotheses), -1)

    def score_of_statistics(self, summed: np.ndarray) -> float:
        """The corpus score of summed :meth:`statistics`, exactly as sacrebleu computes it from its own sums."""
        return float(self._metric._compute_score_from_stats(summed.tolist()).score)


def _streams(references: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """References per hypothesis as sacrebleu wants them, one stream per reference; a segment with fewer
    references is padded with ``None``, which sacrebleu skips."""
    width = max(len(refs) for refs in references)
    return [[refs[k] if k < len(refs) else None for refs in references] for k in range(width)]
