"""sacrebleu's segment statistics of (hypothesis, reference) pairs, each pair computed once, many in workers.

A table of reference sets (Freitag et al. 2020 on WMT19 en-de: 22 systems x 1,997 segments against seven
sets and three joined entries) asks for the same pairs again and again: systems share outputs (35,292
distinct of 43,934), the HQ sets are made of the other sets' references, and the joined entries of the sets
themselves. This cache computes each pair once, and what depends on one text alone (tokenising, n-grams,
TER's words) once per text. Many new pairs are computed in worker processes (``suite.engine.watched_pool``),
in the caller's order: a table asks for every entry's pairs at once, segment by segment, so that a worker
prepares each text of a segment once for all the sets (and BLEU's multi-reference statistics of the joined
entries go to the workers too); a chunk a worker fails on is computed here.

The statistics are sacrebleu's own (its ``_compute_segment_statistics``): BLEU's and chrF's by its code, TER's
by ``filters.metrics.ter_edits``, which counts the same edits compiled.
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric as SacreMetric
from sacrebleu.metrics.helpers import extract_all_char_ngrams, extract_word_ngrams

from suite.engine.watched_pool import WorkerPool
from suite.tasks import TaskState

if TYPE_CHECKING:
    from filters.metrics.ter_edits import Vocabulary

SACREBLEU_CLASSES: dict[str, tuple[type[SacreMetric], dict[str, object]]] = {
    "bleu": (BLEU, {"effective_order": True, "force": True}),
    "chrf": (CHRF, {}),
    "ter": (TER, {}),
}
PARALLEL_PAIRS = 1000
"""Fewer new pairs than this are computed in this process: starting workers would cost more than it saves."""
CHUNK_PAIRS = 2000
"""About this many pairs go to a worker at a time (a multi-reference BLEU counts its references)."""
_POOL = WorkerPool()
"""Workers kept for the life of the process (the labelling engine's pool): a second table starts none."""
CHUNK_SECONDS = 900.0
"""A chunk still running after this long (a machine loaded far beyond its cores) is computed here instead."""


def sacrebleu_metric(name: str, tokenize: str | None) -> SacreMetric:
    """sacrebleu's metric object for ``name``, with BLEU's tokenizer when one is given."""
    cls, kwargs = SACREBLEU_CLASSES[name]
    if tokenize is not None:
        kwargs = {**kwargs, "tokenize": tokenize}
    metric = cls(**kwargs)
    metric.num_refs = -1  # sacrebleu's marker for a variable number of references
    return metric


Wanted = tuple[str, tuple[str, ...]]
"""A hypothesis and the references its statistics are against: one (a pair), or several at once (BLEU)."""


class PairStatistics:
    def __init__(self, name: str, tokenize: str | None) -> None:
        self.name = name
        self.tokenize = tokenize
        self.metric = sacrebleu_metric(name, tokenize)
        self.pairs: dict[tuple[str, str], list[float]] = {}
        self.joined: dict[Wanted, list[float]] = {}
        """BLEU's statistics against several references at once, by hypothesis and references."""
        self._hypotheses: dict[str, Any] = {}
        self._references: dict[str, Any] = {}
        self._joined_references: dict[tuple[str, ...], dict[str, Any]] = {}
        self._vocabulary: Vocabulary | None = None
        if isinstance(self.metric, TER):
            from filters.metrics.ter_edits import Vocabulary  # numba: imported for TER only (0.3 s)

            self._vocabulary = Vocabulary()

    def known(self, hypothesis: str, references: tuple[str, ...]) -> bool:
        if len(references) == 1:
            return (hypothesis, references[0]) in self.pairs
        return (hypothesis, references) in self.joined

    def compute(self, wanted: Iterable[Wanted], task: TaskState | None = None, workers: int | None = None) -> None:
        """Compute the statistics wanted and not known yet (several references: BLEU's only; chrF's and TER's
        are derived from the pairs); ``workers``: processes (default: one per CPU). Many go to the workers in
        the caller's order, cut into chunks of about :data:`CHUNK_PAIRS` pairs: a caller that lists them
        segment by segment sends each worker whole segments, whose texts it then prepares once."""
        new = list(dict.fromkeys(w for w in wanted if not self.known(*w)))
        workers = os.cpu_count() or 1 if workers is None else workers
        if sum(map(_size, new)) < PARALLEL_PAIRS or workers < 2:
            for hypothesis, references in new:
                self.statistics(hypothesis, references)
            return
        chunks: list[list[Wanted]] = [[]]
        size = 0
        for one in new:
            if size >= CHUNK_PAIRS:
                chunks.append([])
                size = 0
            chunks[-1].append(one)
            size += _size(one)
        check = task.raise_if_cancelled if task is not None else (lambda: None)
        with _POOL.run(_Worker(self.name, self.tokenize), workers, check) as run:
            for chunk in chunks:
                run.submit(chunk, CHUNK_SECONDS)
            while run.pending:
                for chunk, found in run.results():
                    for one, stats in zip(chunk, found or [self.statistics(*w) for w in chunk]):
                        self._keep(one, stats)

    def statistics(self, hypothesis: str, references: tuple[str, ...]) -> list[float]:
        """The statistics of ``hypothesis`` against ``references`` (one, or several for BLEU), kept."""
        if len(references) == 1:
            found = self.pairs.get((hypothesis, references[0]))
            if found is None:
                found = self.pairs[hypothesis, references[0]] = self.pair(hypothesis, references[0])
            return found
        found = self.joined.get((hypothesis, references))
        if found is None:
            found = self.joined[hypothesis, references] = self.bleu_multi(hypothesis, references)
        return found

    def _keep(self, one: Wanted, stats: list[float]) -> None:
        hypothesis, references = one
        if len(references) == 1:
            self.pairs[hypothesis, references[0]] = stats
        else:
            self.joined[one] = stats

    def pair(self, hypothesis: str, reference: str) -> list[float]:
        """sacrebleu's statistics of ``hypothesis`` against the single ``reference``."""
        metric = self.metric
        if isinstance(metric, CHRF):
            return [count for h, r in zip(self._hypothesis(hypothesis), self._reference(reference))
                    for count in metric._get_match_statistics(h, r)]
        if isinstance(metric, TER):
            from filters.metrics.ter_edits import ter_edit_ids

            return [float(x) for x in ter_edit_ids(self._hypothesis(hypothesis), self._reference(reference))]
        return list(metric._compute_segment_statistics(self._hypothesis(hypothesis), self._reference(reference)))

    def bleu_multi(self, hypothesis: str, references: Sequence[str]) -> list[float]:
        """BLEU's statistics against several references at once (n-grams clipped by their highest count in
        any reference, the reference length closest to the hypothesis's)."""
        metric = cast(BLEU, self.metric)
        key = tuple(references)
        info = self._joined_references.get(key)
        if info is None:
            info = self._joined_references[key] = metric._extract_reference_info(
                [self._preprocessed(ref) for ref in key])
        return list(metric._compute_segment_statistics(self._hypothesis(hypothesis), info))

    def _preprocessed(self, text: str) -> str:
        return self.metric._preprocess_segment(text)

    def _hypothesis(self, text: str) -> Any:
        """What a hypothesis text gives every pair it is in: BLEU's tokenised text, chrF's n-grams, TER's word
        ids."""
        found = self._hypotheses.get(text)
        if found is None:
            metric = self.metric
            prepared = self._preprocessed(text)
            if isinstance(metric, CHRF):
                found = _chrf_hypothesis_ngrams(metric, prepared)
            elif self._vocabulary is not None:
                found = self._vocabulary.ids(prepared.split())
            else:
                found = prepared
            self._hypotheses[text] = found
        return found

    def _reference(self, text: str) -> Any:
        """What a reference text gives every pair it is in: BLEU's n-grams and length, chrF's n-grams, TER's
        word ids."""
        found = self._references.get(text)
        if found is None:
            metric = self.metric
            prepared = self._preprocessed(text)
            if isinstance(metric, CHRF):
                found = metric._extract_reference_info([prepared])["ref_ngrams"][0]
            elif self._vocabulary is not None:
                found = self._vocabulary.ids(prepared.split())
            else:
                found = metric._extract_reference_info([prepared])
            self._references[text] = found
        return found


def _chrf_hypothesis_ngrams(metric: CHRF, hypothesis: str) -> list[Counter[str]]:
    """chrF's character (and word) n-grams of a hypothesis, as its ``_compute_segment_statistics`` extracts them."""
    ngrams = extract_all_char_ngrams(hypothesis, metric.char_order, metric.whitespace)
    if metric.word_order > 0:
        words = metric._remove_punctuation(hypothesis)
        ngrams.extend(extract_word_ngrams(words, n) for n in range(1, metric.word_order + 1))
    return ngrams


def _size(one: Wanted) -> int:
    return len(one[1])


class _Worker:
    """A worker process's share: pickled once into each worker, which prepares each chunk's texts afresh (a
    chunk holds whole segments, whose texts other chunks seldom share: the memory stays a chunk's)."""

    def __init__(self, name: str, tokenize: str | None) -> None:
        self.name = name
        self.tokenize = tokenize

    def __call__(self, chunk: list[Wanted]) -> list[list[float]]:
        statistics = PairStatistics(self.name, self.tokenize)
        return [statistics.statistics(hypothesis, references) for hypothesis, references in chunk]
