from __future__ import annotations

import os
import time

from suite.watched_pool import run_watched


def work(task: str) -> tuple[str, int]:
    if task == "hang":
        time.sleep(60)
    if task == "fail":
        raise ValueError(task)
    if task == "die":
        os._exit(3)
    return task.upper(), os.getpid()


def test_results_come_back_and_overrun_failed_or_dead_tasks_come_back_as_none() -> None:
    tasks = ["a", "hang", "b", "fail", "die", "c"]
    started = time.monotonic()
    results = dict(run_watched(tasks, work, lambda task: 0.5, workers=2))
    assert time.monotonic() - started < 10
    assert {index: result and result[0] for index, result in results.items()} == {
        0: "A", 1: None, 2: "B", 3: None, 4: None, 5: "C"}
    assert os.getpid() not in {result[1] for result in results.values() if result}  # done in the workers


def test_a_raising_check_stops_waiting_and_the_workers() -> None:
    """How labelling's cancel gets through while every worker is busy with a long task."""
    calls: list[int] = []

    def cancel() -> None:
        calls.append(1)
        raise KeyboardInterrupt

    results = run_watched(["hang", "hang"], work, lambda task: 60.0, workers=2, check=cancel)
    started = time.monotonic()
    try:
        next(results)
    except KeyboardInterrupt:
        pass
    assert calls and time.monotonic() - started < 5
