"""The named choices of the layers above the store, as types (the stored ones are in ``store.domain``).

A tie rule or a reference combination travels from the command line or the window through ``qe`` and ``filters``
to the arithmetic; as ``StrEnum`` members they are still the strings that signatures, JSON and the settings file
have always held, and mypy refuses a misspelt one long before a run does. Parse text once, at the edge, with
``store.domain.parse``.
"""
from __future__ import annotations

from enum import StrEnum


class Ties(StrEnum):
    """What a pair whose two outputs a QE system (or metric) scores equally counts for."""

    HALF = "half"
    """0.5: a coin flip, the chance level of QE (Avramidis et al.)."""
    WRONG = "wrong"
    """0: the published convention of challenge sets (DEMETR, ACES)."""
    DROP = "drop"
    """Left out of the pairs."""


class Combine(StrEnum):
    """How a metric uses several reference sets at once."""

    MULTI = "multi"
    """The metric's own multi-reference form (sacrebleu's, BERTScore's best reference per segment)."""
    MAX = "max"
    """The best single-set score."""
    MEAN = "mean"
    """The mean of the single-set scores."""


class Level(StrEnum):
    """What a meta-evaluation statistic compares: one score per system, or one per system and segment."""

    SYSTEM = "system"
    SEGMENT = "segment"


class Statistic(StrEnum):
    """The meta-evaluation statistics of the WMT metrics task since 2023 (``suite.agreement``)."""

    SPA = "spa"
    """Soft pairwise accuracy (Thompson et al. 2024), system level from segment scores."""
    ACC_EQ = "acc-eq"
    """Pairwise accuracy with tie calibration (Deutsch et al. 2023, WMT23's acc*eq)."""
    PEARSON = "pearson"
    KENDALL = "kendall"
    """Kendall's tau-b."""
    KENDALL_23 = "kendall-23"
    """Kendall's tau with ties as Deutsch et al. 2023 count them (a tie in both is agreement)."""


class Grouping(StrEnum):
    """Which vectors a segment-level statistic is computed over before averaging (mt-metrics-eval's
    ``average_by``): all scores as one vector, one vector per item (the systems' outputs of one segment), one
    per system."""

    NONE = "none"
    ITEM = "item"
    SYSTEM = "system"
