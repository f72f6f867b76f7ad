"""The TED en-de MQM vectors of the comparison with mt-metrics-eval, read straight from the shared file (no
database): 13 systems x 529 segments, MQM (negated weighted errors, Freitag et al.'s weights) and sentence BLEU,
chrF and -TER against the human translation ``ref``."""
from __future__ import annotations

import csv
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from sacrebleu.metrics.base import Score

MARK = re.compile(r"</?v>")


@dataclass(frozen=True)
class TedVectors:
    systems: list[str]
    segments: list[int]
    gold: np.ndarray
    metrics: dict[str, np.ndarray]


def _weight(severity: str, category: str) -> float:
    if severity == "No-error":
        return 0.0
    if severity == "Major":
        return 25.0 if category == "Non-translation" else 5.0
    return 0.1 if category == "Fluency/Punctuation" else 1.0


@cache
def ted_vectors(path: Path, names: tuple[str, ...] = ("bleu", "chrf", "ter")) -> TedVectors:
    import sacrebleu

    scores: dict[tuple[str, int], float] = defaultdict(float)
    texts: dict[tuple[str, int], str] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            key = (row["system"], int(row["seg_id"]))
            scores[key] -= _weight(row["severity"], row["category"])
            texts[key] = MARK.sub("", row["target"])
    systems = sorted({s for s, _ in scores if s != "ref"})
    segments = sorted({seg for _, seg in scores})
    gold = np.array([[scores[(s, seg)] for seg in segments] for s in systems])
    refs = [texts[("ref", seg)] for seg in segments]
    scorers: dict[str, tuple[Callable[[str, list[str]], Score], float]] = {
        "bleu": (sacrebleu.sentence_bleu, 1.0), "chrf": (sacrebleu.sentence_chrf, 1.0),
        "ter": (sacrebleu.sentence_ter, -1.0)}
    metrics = {name: sign * np.array([[scorer(texts[(s, seg)], [r]).score for seg, r in zip(segments, refs)]
                                      for s in systems])
               for name, (scorer, sign) in scorers.items() if name in names}
    return TedVectors(systems, segments, gold, metrics)
