"""ACES's summary score of a metric over an ACES suite (Amrhein et al., WMT 2022, section 6).

ACES evaluates a metric per phenomenon with a Kendall's tau-like correlation over its contrastive pairs,
``tau = (concordant - discordant) / (concordant + discordant)``, where a pair is concordant when the good
translation scores strictly higher than the incorrect one (a tie is discordant), averages the taus of the
phenomena of each top-level category, and weighs the categories by the severity of their errors:

    ACES = 5 * (addition + omission + mistranslation + overtranslation + undertranslation)
         + 1 * (untranslated + do not translate + real-world knowledge + wrong language)
         + 0.1 * punctuation

as ACES's own ``evaluate.py`` computes it (``comp_aces_score``). Two
differences, both where ACES's code gives no number: a category without pairs in the suite is left out of the
sum (the code would make the whole score NaN), and a phenomenon's tau runs over the pairs the system scored on
both sides (the code gives NaN when any score is missing). A tie is a difference of at most the system's tie
margin, 0 for every metric ACES's paper reports.

A suite's categories are the top-level classes (``suite.importers.challenge_formats.ACES_CATEGORIES``), its
phenomena ACES's phenomena, so the rows of the pair table group exactly as ACES groups.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from qe.accuracy import item_sums, row_groups
from qe.pairs import PairTable
from suite.domain import Ties
from suite.qe_scores import QEScores

ACES_WEIGHTS = {"addition": 5.0, "omission": 5.0, "mistranslation": 5.0, "untranslated": 1.0,
                "do not translate": 1.0, "overtranslation": 5.0, "undertranslation": 5.0,
                "real-world knowledge": 1.0, "wrong language": 1.0, "punctuation": 0.1}


def phenomenon_taus(pairs: PairTable, systems: Sequence[QEScores],
                    tie_epsilon: float | None = None) -> dict[tuple[str | None, str | None], np.ndarray]:
    """(category, phenomenon) -> each system's tau over the phenomenon's pairs (NaN: it scored none of them)."""
    sums = item_sums(pairs, systems, Ties.WRONG, tie_epsilon)
    keys, groups = row_groups(pairs, "phenomenon")
    taus = {}
    for key, members in zip(keys, groups):
        concordant = sums.credit[members].sum(axis=0)
        scored = sums.scored[members].sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            taus[key] = (2 * concordant - scored) / scored
    return taus


def aces_scores(pairs: PairTable, systems: Sequence[QEScores], tie_epsilon: float | None = None) -> dict[str, float]:
    """Each system's ACES score over the suite's pairs (NaN when no weighed category has a scored pair)."""
    by_category: dict[str, list[np.ndarray]] = defaultdict(list)
    for (category, _), taus in phenomenon_taus(pairs, systems, tie_epsilon).items():
        if category in ACES_WEIGHTS:
            by_category[category].append(taus)
    scores = {}
    for k, system in enumerate(systems):
        weighed = [ACES_WEIGHTS[category] * float(np.mean(known))
                   for category, taus in by_category.items()
                   if (known := [float(tau[k]) for tau in taus if not np.isnan(tau[k])])]
        scores[system.name] = float(sum(weighed)) if weighed else float("nan")
    return scores
