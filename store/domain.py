"""The named values tsqe stores, as types: one ``StrEnum`` per idea, defined here once.

They are ``StrEnum`` so that a member *is* the string the database has always held (``Label.PASS == "pass"``):
no value is migrated, SQLAlchemy binds them as plain text, and JSON and TSV exports write them unchanged. Each is
parsed from text once, at an edge (the command line, an importer, a settings file) with ``parse``, so that mypy
catches a wrong value everywhere behind it; a literal ``"pass"`` inside the core is a type error waiting to happen.

This module is at the bottom (``store``) because the schema's check constraints are built from these members; the
values that only the layers above need (tie rules, reference combinations) are in ``suite.domain``.
"""
from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

_E = TypeVar("_E", bound=StrEnum)


class Label(StrEnum):
    """The state of an output: what the rule engine decides, and what a reviewer may say of it.

    ``unknown``: no rule matched (or a reviewer cannot tell); ``conflict``: a positive and a negative rule both
    matched; ``error``: a pattern could not be run (too complex, timed out)."""

    PASS = "pass"
    FAIL = "fail"
    CONFLICT = "conflict"
    UNKNOWN = "unknown"
    ERROR = "error"


AUTO_LABELS: tuple[Label, ...] = (Label.PASS, Label.FAIL, Label.CONFLICT, Label.UNKNOWN, Label.ERROR)
"""What the rule engine decides for an output."""
STORED_AUTO_LABELS: tuple[Label, ...] = (Label.PASS, Label.FAIL, Label.CONFLICT, Label.ERROR)
"""What an ``auto_labels`` row holds: ``unknown``, often a third of a suite's outputs or more, is stored as no row
at all for an output that its item's last labelling covered (``LabelFingerprint.labelled_through``)."""
MANUAL_LABELS: tuple[Label, ...] = (Label.PASS, Label.FAIL, Label.UNKNOWN)
"""What a reviewer may decide."""
POLICY_LABELS: tuple[Label, ...] = (Label.UNKNOWN, Label.FAIL)
"""What a suite's output policy gives degenerate outputs: ``unknown`` leaves them to the rules as any output (none
matches an empty output), ``fail`` decides them before any rule (``suite.engine.output_policy``)."""
CONSTRUCTED_LABELS: tuple[Label, ...] = (Label.PASS, Label.FAIL)
"""What a challenge set's construction says of an output: its good translation passes, its bad one fails."""


class Polarity(StrEnum):
    """What a rule's match means: a positive match passes the output, a negative one fails it."""

    POSITIVE = "positive"
    NEGATIVE = "negative"


class TranslationKind(StrEnum):
    """A known translation of an item: a good one must pass, a bad one must fail."""

    GOOD = "good"
    BAD = "bad"


class ChallengeFormat(StrEnum):
    """The layouts of contrastive challenge sets a suite can be imported from (``suite.importers.challenge``)."""

    DEMETR = "demetr"
    ACES = "aces"
    CONTRASTIVE_TSV = "contrastive-tsv"


class EmbeddingPrecision(StrEnum):
    FLOAT16 = "float16"
    FLOAT32 = "float32"


class HumanScoreKind(StrEnum):
    """What a suite's human scores are, named when they are imported: each campaign's scale and direction differ,
    so a statistic says which it was computed on."""

    DA = "da"
    """Direct assessment, the raw 0-100 scale."""
    Z = "z"
    """DA standardised per annotator (WMT's official DA scores, and what an unnamed import holds)."""
    ESA = "esa"
    """Error span annotation (WMT24), 0-100."""
    MQM = "mqm"
    """Multidimensional Quality Metrics: the negated weighted error count (0 best)."""


class ErrorSeverity(StrEnum):
    """The severity of an annotated error span (MQM, ESA)."""

    MINOR = "minor"
    MAJOR = "major"


def parse(kind: type[_E], text: str, what: str | None = None) -> _E:
    """``text`` as a member of ``kind``, or a ``ValueError`` that names the accepted values (an importer turns it
    into a line-numbered problem, the command line into its usage error)."""
    try:
        return kind(text)
    except ValueError:
        accepted = ", ".join(member.value for member in kind)
        raise ValueError(f"{what or kind.__name__.lower()} {text!r} is not one of {accepted}") from None


class NameKind(StrEnum):
    """What a name names, for its one validation at import (``store.names``): each is stored in a column of its
    own length."""

    SYSTEM = "system"
    QE_SYSTEM = "QE system"
    SUITE = "suite"
    REFERENCE_SET = "reference set"
    REVIEWER = "reviewer"
