"""A segment's annotated errors (MQM, ESA: ``human_error_spans``), for Review to mark them in the output beside it:
the errors as imported, and the output cut into pieces each covered by the same errors, so that a widget only
paints pieces (the worst severity over a piece decides its colour) and never computes offsets."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select

from store import Database
from store.domain import ErrorSeverity, HumanScoreKind
from store.models import HumanErrorSpan, Item, System
from suite.suites import find_suite


@dataclass(frozen=True)
class ErrorSpan:
    severity: ErrorSeverity
    category: str
    weight: float
    rater: str | None
    in_source: bool
    start: int | None
    """Character offsets into the output (or the source when ``in_source``); None: the error marks no span (an
    omission, or the whole segment)."""
    end: int | None
    kind: HumanScoreKind = HumanScoreKind.MQM
    """The kind of human scores the error counts in."""


@dataclass(frozen=True)
class Piece:
    text: str
    errors: tuple[int, ...]
    """Indices into the segment's errors of those covering the piece; empty: unmarked."""
    severity: ErrorSeverity | None
    """The worst severity among them."""


@dataclass(frozen=True)
class SegmentErrors:
    errors: list[ErrorSpan]
    output: list[Piece]
    source: list[Piece]
    unplaced: list[int]
    """Errors that mark no span: listed beside the output, not in it."""


def read_error_spans(db: Database, suite: str | None, item: str, system: str) -> list[ErrorSpan]:
    """The errors annotated on ``system``'s output of the item with external id ``item``, in output order."""
    with db.session() as session:
        suite_id = find_suite(session, suite).id
        rows = session.execute(
            select(HumanErrorSpan).join(System, System.id == HumanErrorSpan.system_id)
            .join(Item, Item.id == HumanErrorSpan.item_id)
            .where(System.suite_id == suite_id, System.name == system, Item.external_id == item)
            .order_by(HumanErrorSpan.in_source, HumanErrorSpan.start, HumanErrorSpan.id)).scalars().all()
        return [ErrorSpan(ErrorSeverity(r.severity), r.category, r.weight, r.rater, r.in_source, r.start, r.end,
                          HumanScoreKind(r.kind)) for r in rows]


def pieces(text: str, errors: list[ErrorSpan], *, in_source: bool = False) -> list[Piece]:
    """``text`` cut at every span's ends (spans of the other side and spans outside the text left out)."""
    placed = [(k, e) for k, e in enumerate(errors) if e.in_source == in_source and e.start is not None
              and e.end is not None and 0 <= e.start < e.end <= len(text)]
    cuts = sorted({0, len(text), *(e.start for _, e in placed if e.start is not None),
                   *(e.end for _, e in placed if e.end is not None)})
    out = []
    for left, right in zip(cuts, cuts[1:]):
        covering = tuple(k for k, e in placed if e.start is not None and e.end is not None
                         and e.start <= left and right <= e.end)
        severities = {errors[k].severity for k in covering}
        worst = ErrorSeverity.MAJOR if ErrorSeverity.MAJOR in severities else \
            ErrorSeverity.MINOR if severities else None
        out.append(Piece(text[left:right], covering, worst))
    return out


def segment_errors(db: Database, suite: str | None, item: str, system: str, output: str,
                   source: str) -> SegmentErrors:
    """What Review shows of a segment's errors: the output and the source cut into marked pieces."""
    errors = read_error_spans(db, suite, item, system)
    placed = {k for piece in (*pieces(output, errors), *pieces(source, errors, in_source=True))
              for k in piece.errors}
    return SegmentErrors(errors, pieces(output, errors), pieces(source, errors, in_source=True),
                         [k for k in range(len(errors)) if k not in placed])


@dataclass(frozen=True)
class SystemErrors:
    system: str
    errors: SegmentErrors


def output_errors(db: Database, suite: str | None, item: str, systems: Sequence[str], output: str,
                  source: str) -> list[SystemErrors]:
    """The errors annotated on one output of the item, per system that produced it and has any: identical outputs
    of several systems are one output (one review row), while the raters marked each system's separately."""
    found = [SystemErrors(system, segment_errors(db, suite, item, system, output, source)) for system in systems]
    return [errors for errors in found if errors.errors.errors]
