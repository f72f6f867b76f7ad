"""sacrebleu's segment statistics computed once per (hypothesis, reference) pair, many in worker processes,
and TER's edits counted faster: the same numbers as sacrebleu's own code, on real WMT19 en-de outputs and
on the edge cases of its TER (empty sides, lengths far apart: a wider beam)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics.lib_ter import translation_edit_rate

import filters.metrics.pair_statistics as pair_statistics
from filters.metrics.pair_statistics import PairStatistics, sacrebleu_metric
from filters.metrics.ter_edits import ter_edits

EDGE_CASES = [
    ([], ["a"]), (["a"], []), ([], []), (["a", "b"] * 40, ["b"]), (["x"], [chr(97 + k % 26) for k in range(60)]),
    ("the cat sat on the mat".split(), "on the mat the cat sat".split()),
    ("a b c d e f".split(), "f e d c b a".split()), ("a a a a b".split(), "b a a a a".split()),
]


def test_ter_edits_equal_sacrebleus_on_edge_cases() -> None:
    for hypothesis, reference in EDGE_CASES:
        assert ter_edits(hypothesis, reference) == translation_edit_rate(hypothesis, reference)


def _wmt19(shared_data: Path, lines: int, systems: int) -> tuple[list[list[str]], list[list[str]]]:
    wmt19 = shared_data / "global-explainability-metrics" / "WMT19"
    paraphrased = shared_data / "wmt19-paraphrased-references" / "wmt19" / "ende"
    references = [(wmt19 / "references" / "newstest2019-ende-ref.de").read_text(encoding="utf-8").split("\n")[:lines],
                  (paraphrased / "wmt19-ende-wmtp.ref").read_text(encoding="utf-8").split("\n")[:lines]]
    outputs = [path.read_text(encoding="utf-8").split("\n")[:lines]
               for path in sorted((wmt19 / "system-outputs" / "en-de").iterdir())[:systems]]
    return outputs, references


@pytest.mark.shared
def test_ter_edits_equal_sacrebleus_on_wmt19_outputs(shared_data: Path) -> None:
    outputs, references = _wmt19(shared_data, 120, 4)
    metric = sacrebleu_metric("ter", None)
    for reference_lines in references:
        for hypotheses in outputs:
            for hypothesis, reference in zip(hypotheses, reference_lines):
                words_h = metric._preprocess_segment(hypothesis).split()
                words_r = metric._preprocess_segment(reference).split()
                assert ter_edits(words_h, words_r) == translation_edit_rate(words_h, words_r)


@pytest.mark.shared
@pytest.mark.parametrize(("name", "tokenize"), [("bleu", "intl"), ("chrf", None), ("ter", None)])
def test_pair_statistics_in_workers_equal_sacrebleus_corpus_statistics(shared_data: Path,
                                                                       monkeypatch: pytest.MonkeyPatch, name: str,
                                                                       tokenize: str | None) -> None:
    monkeypatch.setattr(pair_statistics, "PARALLEL_PAIRS", 50)  # small enough to take the workers' path
    monkeypatch.setattr(pair_statistics, "CHUNK_PAIRS", 40)
    outputs, references = _wmt19(shared_data, 40, 3)
    statistics = PairStatistics(name, tokenize)
    statistics.compute([(h, (r,)) for hypotheses in outputs for lines in references
                        for h, r in zip(hypotheses, lines)], workers=2)
    direct = sacrebleu_metric(name, tokenize)
    for hypotheses in outputs:
        for lines in references:
            expected = direct._extract_corpus_statistics(hypotheses, [lines])
            found = [statistics.pairs[h, r] for h, r in zip(hypotheses, lines)]
            np.testing.assert_array_equal(np.array(found, dtype=float), np.array(expected, dtype=float))
        if name == "bleu":  # several references at once: computed from them together, as sacrebleu does
            expected = direct._extract_corpus_statistics(hypotheses, references)
            found = [statistics.bleu_multi(h, [a, b]) for h, a, b in zip(hypotheses, *references)]
            np.testing.assert_array_equal(np.array(found, dtype=float), np.array(expected, dtype=float))
    if name == "bleu":  # and in the workers, asked for with the pairs as a table asks
        joined = PairStatistics(name, tokenize)
        joined.compute([(h, (a, b)) for hypotheses in outputs for h, a, b in zip(hypotheses, *references)], workers=2)
        for hypotheses in outputs:
            expected = direct._extract_corpus_statistics(hypotheses, references)
            found = [joined.joined[h, (a, b)] for h, a, b in zip(hypotheses, *references)]
            np.testing.assert_array_equal(np.array(found, dtype=float), np.array(expected, dtype=float))


@pytest.mark.shared
@pytest.mark.parametrize(("name", "tokenize"), [("bleu", "intl"), ("chrf", None), ("ter", None)])
def test_multi_reference_statistics_equal_sacrebleus(shared_data: Path, name: str, tokenize: str | None) -> None:
    """Against several references (sets joined, some segments repeating a reference: equal sentence F's of
    chrF, equal edits of TER), picked from the pairs for all segments at once as sacrebleu picks them."""
    from filters.metrics import MetricOptions, metric_spec
    from filters.metrics.sacrebleu import SacreBleuMetric

    outputs, references = _wmt19(shared_data, 120, 3)
    references.append([line if k % 3 else outputs[0][k] for k, line in enumerate(references[0])])
    references.append(references[1])
    joined = [list(refs) for refs in zip(*references)]
    metric = SacreBleuMetric(metric_spec(name), MetricOptions(tokenize=tokenize))
    found = metric.segment_statistics({str(k): hypotheses for k, hypotheses in enumerate(outputs)}, joined)
    direct = sacrebleu_metric(name, tokenize)
    for k, hypotheses in enumerate(outputs):
        expected = np.array(direct._extract_corpus_statistics(hypotheses, references), dtype=float)
        np.testing.assert_array_equal(found[str(k)], expected)
