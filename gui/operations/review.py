"""A reviewer's decisions as undoable writes (after Anki's ``operations/scheduling.py``).

P, F, U, C and Shift+P/F each become one ``suite.editing.undoable_edits.Decide`` on the rows as the reviewer saw them
(their versions: a decision on a row someone changed since is refused), saved in one transaction, and one step
of the window's undo stack named after what it did ("pass on 00544005 · UEdin"); a decision on a group of alike
outputs is one such step over all of them. Answers to one's blind assignments and adjudications of disagreements
are steps of the same stack (``suite.assist.assignment_edits``).
"""
from __future__ import annotations

from collections.abc import Sequence

from gui.operations.runner import Operations, Write
from gui.operations.undo import EditsWrite, undoable
from gui.state import AppState
from store import Database
from store.domain import Label
from suite.assist.assignment_edits import Adjudicate, AnswerAssignments, answer_name
from suite.assist.double_review import (
    Answer,
    Assignment,
    PlanResult,
    ReviewDisagreement,
    plan_review_checks,
    take_assignments,
)
from suite.changes import ASSIGNMENTS
from suite.editing.undoable_edits import Decide, ReviewedOutput, output_name
from suite.reading.browse import OutputRow

PROGRESS_ROWS = 50
"""A decision on more rows than this may take a moment: it gets the progress dialog (and its Cancel)."""


def reviewed(row: OutputRow) -> ReviewedOutput:
    return ReviewedOutput(row.output_id, row.item_id, output_name(row.external_id, row.systems), row.text,
                          row.manual_version, row.comment, row.manual_label)


def _write(state: AppState, ops: Operations, rows: Sequence[OutputRow], decision: Decide) -> EditsWrite:
    write = undoable(state, ops, [decision], decision.summary())
    write.progress = len(rows) > PROGRESS_ROWS
    return write


def decide(state: AppState, ops: Operations, rows: Sequence[OutputRow], label: Label, *,
           as_known: bool = False) -> EditsWrite:
    """P / F, or with ``as_known`` Shift+P / Shift+F (the outputs also become known translations)."""
    return _write(state, ops, rows, Decide(tuple(map(reviewed, rows)), label, as_known=as_known))


def clear(state: AppState, ops: Operations, rows: Sequence[OutputRow]) -> EditsWrite:
    """U: the automatic label applies again."""
    return _write(state, ops, rows, Decide(tuple(map(reviewed, rows)), None))


def comment(state: AppState, ops: Operations, rows: Sequence[OutputRow], text: str) -> EditsWrite:
    """C: each decision keeps its label and gets the comment (an empty one removes it)."""
    return _write(state, ops, rows, Decide(tuple(map(reviewed, rows)), None, text.strip() or None, commenting=True))


def answer(state: AppState, ops: Operations, assignments: Sequence[Assignment], label: Label | None) -> EditsWrite:
    """P / F / U on one's own blind assignments: an answer, kept in the assignment; one undo step."""
    names = [assignment.external_id or f"assignment {assignment.id}" for assignment in assignments]
    step = AnswerAssignments(tuple(Answer(a.id, label) for a in assignments), answer_name(label, names))
    return undoable(state, ops, [step], step.summary())


def adjudicate(state: AppState, ops: Operations, disagreement: ReviewDisagreement, label: Label) -> EditsWrite:
    """P / F on a disagreement: the output's label from now on, with both decisions in its history; one undo step."""
    assert disagreement.output_id is not None and disagreement.item_id is not None
    step = Adjudicate(disagreement.assignment_id, disagreement.output_id, disagreement.item_id,
                      disagreement.external_id or f"output {disagreement.output_id}", label,
                      disagreement.manual_version)
    return undoable(state, ops, [step], step.summary())


def take(db: Database, suite: str, reviewer: str, limit: int) -> Write[list[Assignment]]:
    """Take open assignments (double reviews nobody holds, controls mixed in) up to ``limit``."""
    return Write("taking assignments", lambda task: take_assignments(db, reviewer, suite_name=suite, limit=limit),
                 said=lambda given: f"{len(given):,} open assignments", changes=lambda _: ASSIGNMENTS,
                 progress=False)


def plan(state: AppState, db: Database, suite: str, share: float, controls: float, seed: int) -> Write[PlanResult]:
    """Plan (or top up) double review and controls, as ``tsqe reviewers plan``."""
    return Write("planning double review", lambda task: plan_review_checks(
        db, double_share=share, control_share=controls, seed=seed, author=state.author(), suite_name=suite),
        said=lambda planned: planned.lines()[0], changes=lambda _: ASSIGNMENTS, progress=False)
