"""The bootstrap's scores of many summed statistics at once are sacrebleu's ``_compute_score_from_stats`` of
each, float for float: on resamples of real WMT19 en-de statistics, and on the rows where its branches turn
(no n-grams of an order, no matches, an empty hypothesis or reference)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from filters.correlation_table import _draws
from filters.metrics.pair_statistics import sacrebleu_metric
from filters.metrics.summed_scores import summed_scores

METRICS = [("bleu", "intl"), ("bleu", None), ("chrf", None), ("ter", None)]


def _sacrebleu(name: str, tokenize: str | None, totals: np.ndarray) -> np.ndarray:
    metric = sacrebleu_metric(name, tokenize)
    return np.array([metric._compute_score_from_stats(list(row)).score for row in totals])


def _summed(name: str, tokenize: str | None, totals: np.ndarray) -> np.ndarray:
    return summed_scores(sacrebleu_metric(name, tokenize))(totals)


@pytest.mark.parametrize(("name", "tokenize"), METRICS)
def test_edge_rows_equal_sacrebleus(name: str, tokenize: str | None) -> None:
    metric = sacrebleu_metric(name, tokenize)
    pairs = [("", "a b"), ("a b", ""), ("", ""), ("x", "y"), ("a", "a"), ("a b", "a b c d e"),
             ("a b c d e f", "a b"), ("a a a a", "a a"), ("das ist gut .", "das ist sehr gut .")]
    rows = np.array([metric._extract_corpus_statistics([h], [[r]])[0] for h, r in pairs], dtype=float)
    rows = np.vstack([rows, rows[3] + rows[5], rows[0] + rows[4], np.zeros(rows.shape[1])])
    np.testing.assert_array_equal(_summed(name, tokenize, rows), _sacrebleu(name, tokenize, rows))


@pytest.mark.shared
@pytest.mark.parametrize(("name", "tokenize"), METRICS)
def test_resampled_wmt19_statistics_equal_sacrebleus(shared_data: Path, name: str, tokenize: str | None) -> None:
    wmt19 = shared_data / "global-explainability-metrics" / "WMT19"
    references = (wmt19 / "references" / "newstest2019-ende-ref.de").read_text(encoding="utf-8").split("\n")[:150]
    metric = sacrebleu_metric(name, tokenize)
    for path in sorted((wmt19 / "system-outputs" / "en-de").iterdir())[:3]:
        hypotheses = path.read_text(encoding="utf-8").split("\n")[:150]
        stats = np.array(metric._extract_corpus_statistics(hypotheses, [references]), dtype=float)
        weights = np.vstack([np.ones(len(stats)), _draws(len(stats), 300, 0), np.eye(len(stats))[:40]])
        totals = weights @ stats
        np.testing.assert_array_equal(_summed(name, tokenize, totals), _sacrebleu(name, tokenize, totals))
