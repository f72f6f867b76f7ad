"""sacrebleu's segment statistics of (hypothesis, reference) pairs, each pair computed once, many in workers.

A table of reference sets (Freitag et al. 2020 on WMT19 en-de: 22 systems x 1,997 segments against seven
sets and three joined entries) asks for the same pairs again and again: systems share outputs (35,292
distinct of 43,934), the HQ sets are made of the other sets' references, and the joined entries of the sets
themselves. This cache computes each pair once, and what depends on one text alone (tokenising, n-grams,
TER's words) once per text. Many new pairs are computed in
worker processes (``suite.engine.watched_pool``), grouped by reference so that each worker reuses a reference's
work across the hypotheses compared with it; a chunk a worker fails on is computed here.

The statistics are sacrebleu's own (its ``_compute_segment_statistics`` for one reference): BLEU's and
chrF's by its code, TER's by ``filters.metrics.ter_edits``, which counts the same edits faster.
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.metrics.base import Metric as SacreMetric
from sacrebleu.metrics.helpers import extract_all_char_ngrams, extract_word_ngrams

from filters.metrics.ter_edits import ter_edits
from suite.engine.watched_pool import WorkerPool
from suite.tasks import TaskState

SACREBLEU_CLASSES: dict[str, tuple[type[SacreMetric], dict[str, object]]] = {
    "bleu": (BLEU, {"effective_order": True, "force": True}),
    "chrf": (CHRF, {}),
    "ter": (TER, {}),
}
PARALLEL_PAIRS = 1000
"""Fewer new pairs than this are computed in this process: starting workers would cost more than it saves."""
CHUNK_PAIRS = 2000
"""About this many pairs go to a worker at a time (whole references: a reference's pairs stay together)."""
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


class PairStatistics:
    def __init__(self, name: str, tokenize: str | None) -> None:
        self.name = name
        self.tokenize = tokenize
        self.metric = sacrebleu_metric(name, tokenize)
        self.pairs: dict[tuple[str, str], list[float]] = {}
        self._hypotheses: dict[str, Any] = {}
        self._references: dict[str, Any] = {}
        self._joined: dict[tuple[str, ...], dict[str, Any]] = {}

    def compute(self, pairs: set[tuple[str, str]], task: TaskState | None = None,
                workers: int | None = None) -> None:
        """Compute the statistics of the pairs not known yet; ``workers``: processes (default: one per CPU)."""
        new = sorted(pairs - self.pairs.keys(), key=lambda pair: (pair[1], pair[0]))
        workers = os.cpu_count() or 1 if workers is None else workers
        if len(new) < PARALLEL_PAIRS or workers < 2:
            for hypothesis, reference in new:
                self.pairs[hypothesis, reference] = self.pair(hypothesis, reference)
            return
        chunks: list[list[tuple[str, str]]] = [[]]
        for pair in new:
            if len(chunks[-1]) >= CHUNK_PAIRS and pair[1] != chunks[-1][-1][1]:
                chunks.append([])
            chunks[-1].append(pair)
        check = task.raise_if_cancelled if task is not None else (lambda: None)
        with _POOL.run(_Worker(self.name, self.tokenize), workers, check) as run:
            for chunk in chunks:
                run.submit(chunk, CHUNK_SECONDS)
            while run.pending:
                for chunk, found in run.results():
                    for (hypothesis, reference), stats in zip(chunk, found or [self.pair(*p) for p in chunk]):
                        self.pairs[hypothesis, reference] = stats

    def pair(self, hypothesis: str, reference: str) -> list[float]:
        """sacrebleu's statistics of ``hypothesis`` against the single ``reference``."""
        metric = self.metric
        if isinstance(metric, CHRF):
            return [count for h, r in zip(self._hypothesis(hypothesis), self._reference(reference))
                    for count in metric._get_match_statistics(h, r)]
        if isinstance(metric, TER):
            return [float(x) for x in ter_edits(self._hypothesis(hypothesis), self._reference(reference))]
        return list(metric._compute_segment_statistics(self._hypothesis(hypothesis), self._reference(reference)))

    def bleu_multi(self, hypothesis: str, references: Sequence[str]) -> list[float]:
        """BLEU's statistics against several references at once (n-grams clipped by their highest count in
        any reference, the reference length closest to the hypothesis's)."""
        metric = cast(BLEU, self.metric)
        key = tuple(references)
        info = self._joined.get(key)
        if info is None:
            info = self._joined[key] = metric._extract_reference_info([self._preprocessed(ref) for ref in key])
        return list(metric._compute_segment_statistics(self._hypothesis(hypothesis), info))

    def _preprocessed(self, text: str) -> str:
        return self.metric._preprocess_segment(text)

    def _hypothesis(self, text: str) -> Any:
        """What a hypothesis text gives every pair it is in: BLEU's tokenised text, chrF's n-grams, TER's words."""
        found = self._hypotheses.get(text)
        if found is None:
            metric = self.metric
            prepared = self._preprocessed(text)
            if isinstance(metric, CHRF):
                found = _chrf_hypothesis_ngrams(metric, prepared)
            elif isinstance(metric, TER):
                found = prepared.split()
            else:
                found = prepared
            self._hypotheses[text] = found
        return found

    def _reference(self, text: str) -> Any:
        """What a reference text gives every pair it is in: BLEU's n-grams and length, chrF's n-grams, TER's
        words. (TER's edit-distance rows are not kept across hypotheses: its cache of hypothesis prefixes
        fills up at 10,000 rows, after which the shift search of later hypotheses would go uncached, 1.5x
        slower on WMT19 en-de than a fresh cache per pair.)"""
        found = self._references.get(text)
        if found is None:
            metric = self.metric
            prepared = self._preprocessed(text)
            if isinstance(metric, CHRF):
                found = metric._extract_reference_info([prepared])["ref_ngrams"][0]
            elif isinstance(metric, TER):
                found = prepared.split()
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


class _Worker:
    """A worker process's share: pickled once into each worker, which makes its own cache on its first chunk."""

    def __init__(self, name: str, tokenize: str | None) -> None:
        self.name = name
        self.tokenize = tokenize
        self.statistics: PairStatistics | None = None

    def __call__(self, chunk: list[tuple[str, str]]) -> list[list[float]]:
        if self.statistics is None:
            self.statistics = PairStatistics(self.name, self.tokenize)
        return [self.statistics.pair(hypothesis, reference) for hypothesis, reference in chunk]
