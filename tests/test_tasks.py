"""Nested progress, the overall fraction a GUI polls, and cancellation shared by every step."""
from __future__ import annotations

import pytest

from store import Database
from suite.demo import create_demo
from suite.tasks import Cancelled, Progress, TaskState


def test_a_child_maps_its_progress_into_its_share_of_the_parent() -> None:
    reports: list[Progress] = []
    task = TaskState(reports.append)
    step = task.child(0.2, 0.6)
    step.progress(1, 4, "first quarter")
    inner = step.child(0.5, 1.0)
    inner.progress(1, 2, "half of the second half")
    inner.progress(0, 0, "nothing to do")
    assert [(round(r.fraction, 6), r.message, r.done, r.total) for r in reports] == [
        (0.3, "first quarter", 1, 4), (0.5, "half of the second half", 1, 2), (0.6, "nothing to do", 0, 0)]
    assert (task.fraction, task.message) == (pytest.approx(0.6), "nothing to do")
    assert inner.fraction == task.fraction
    with pytest.raises(ValueError):
        task.child(0.5, 0.4)


def test_cancelling_any_step_stops_the_whole_work() -> None:
    task = TaskState()
    first, second = task.child(0.0, 0.5), task.child(0.5, 1.0)
    first.progress(1, 1)
    second.cancel()
    assert task.cancelled and first.cancelled
    with pytest.raises(Cancelled):
        first.progress(1, 1)


def test_the_demo_reports_forward_only_with_messages(db: Database) -> None:
    reports: list[Progress] = []
    create_demo(db, task=TaskState(reports.append))
    fractions = [report.fraction for report in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    messages = [report.message for report in reports]
    assert "labelling item 78 of 78" in messages
    assert messages[0] == "reading the suite" and "reviews imported" in messages
    assert messages[-1] == "QE scores imported"  # the demo's QE systems come last
