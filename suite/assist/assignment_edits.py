"""Answers to assignments and adjudications as undoable edit values (the protocol of ``suite.editing.undoable_edits``),
so that they share the window's one undo stack with every other decision.

An answer is taken back by answering as before (only the reviewer it was given to answers it, so there is no
colleague's answer to overwrite). An adjudication is taken back by putting the output's review back as it was
and opening the disagreement again, in one transaction (``reopen_adjudication``); doing it again expects the
review at the version that left.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from store import Database
from store.domain import Label
from suite.assist.double_review import Answer, adjudicate, answer_assignments, reopen_adjudication
from suite.changes import ASSIGNMENTS, Changes, review_changes
from suite.editing.review import ReviewerDecision
from suite.editing.undoable_edits import Edit, Ledger


@dataclass(frozen=True)
class AnswerAssignments:
    answers: tuple[Answer, ...]
    name: str
    """The step's name either way ("pass on 00544005")."""

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        answered = answer_assignments(db, self.answers, author)
        return AnswerAssignments(answered.before, self.name)

    def summary(self) -> str:
        return self.name

    def changes(self) -> Changes:
        return ASSIGNMENTS


def answer_name(label: Label | None, names: Sequence[str]) -> str:
    """"pass on 00544005", "take back the answer on 3 assignments"."""
    verb = f"{label} on" if label else "take back the answer on"
    return f"{verb} {names[0] if len(names) == 1 else f'{len(names)} assignments'}"


@dataclass(frozen=True)
class Adjudicate:
    assignment_id: int
    output_id: int
    item_id: int
    name: str
    """The output's name ("00544005 · UEdin")."""
    label: Label
    version: int
    """The output's review version the adjudicator saw."""
    comment: str | None = None

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        decided = adjudicate(db, self.assignment_id, self.label, author, comment=self.comment,
                             expected_version=self.version)
        (change,) = decided.reviews
        ledger.seen("review", self.output_id, change.version)
        return ReopenAdjudication(self.assignment_id, self.output_id, self.item_id, self.name, self.label,
                                  self.comment, change.version, change.before)

    def summary(self) -> str:
        return f"adjudicate {self.label} on {self.name}"

    def changes(self) -> Changes:
        return review_changes([self.output_id]) | ASSIGNMENTS


@dataclass(frozen=True)
class ReopenAdjudication:
    assignment_id: int
    output_id: int
    item_id: int
    name: str
    label: Label
    comment: str | None
    version: int
    """The review's version the adjudication left."""
    review: ReviewerDecision | None
    """The review before the adjudication, put back."""

    def apply(self, db: Database, author: str, ledger: Ledger) -> Edit:
        decided = reopen_adjudication(db, self.assignment_id, expected_version=self.version, review=self.review,
                                      author=author)
        (change,) = decided.reviews
        ledger.seen("review", self.output_id, change.version)
        return Adjudicate(self.assignment_id, self.output_id, self.item_id, self.name, self.label, change.version,
                          self.comment)

    def summary(self) -> str:
        return f"adjudicate {self.label} on {self.name}"

    def changes(self) -> Changes:
        return review_changes([self.output_id]) | ASSIGNMENTS
