"""A reviewer's decision in a test, written the one way every decision is (``suite.editing.review.decide``): one
output, or several at once, with the label each gets (None clears it) and what each review was before and after."""
from __future__ import annotations

from collections.abc import Sequence

from store import Database
from store.domain import Label
from suite.editing.review import OutputDecision, ReviewChange, SeenOutput, decide
from suite.tasks import TaskState


def review_output(db: Database, output_id: int, label: Label | None, reviewer: str, comment: str | None = None, *,
           expected_version: int | None = None) -> ReviewChange:
    """``reviewer``'s ``label`` for one output, which they saw at ``expected_version`` (None: unchecked)."""
    return review_outputs(db, [SeenOutput(output_id, expected_version, comment)], label, reviewer)[0]


def review_outputs(db: Database, outputs: Sequence[SeenOutput], label: Label | None, reviewer: str, *,
               task: TaskState | None = None) -> tuple[ReviewChange, ...]:
    """One decision on several outputs: all of them or none."""
    return decide(db, [OutputDecision(seen, label) for seen in outputs], reviewer, task=task).reviews
