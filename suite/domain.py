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
