"""``tsqe score``'s sentence scores of BLEU, chrF and TER come from the pair statistics ``correlate`` computes;
they must be sacrebleu's ``sentence_score`` exactly (issue 29: TER's took minutes the other way)."""
from __future__ import annotations

import numpy as np
import pytest

from filters.metrics import MetricOptions, metric_spec
from filters.metrics.sacrebleu import SacreBleuMetric

HYPOTHESES = ["Der Hund bellt laut.", "Die Katze schläft.", "", "Ein Haus am See, sagte er.", "ja ja ja ja"]
REFERENCES = [["Der Hund bellt sehr laut."], ["Die Katze schläft, sagte sie."], ["Nichts."],
              ["Ein Haus an einem See, sagte er.", "Ein Seehaus, sagte er."], ["ja", "nein ja"]]


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_sentence_scores_equal_sacrebleus(name: str) -> None:
    metric = SacreBleuMetric(metric_spec(name), MetricOptions())
    expected = [metric._metric.sentence_score(h, refs).score for h, refs in zip(HYPOTHESES, REFERENCES)]
    assert np.array_equal(metric.score(HYPOTHESES, REFERENCES), np.array(expected, dtype=float))
