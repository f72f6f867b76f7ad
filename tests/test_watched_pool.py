from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from suite.engine import watched_pool
from suite.engine.watched_pool import WorkerPool


def work(task: str) -> tuple[str, int]:
    if task == "hang":
        time.sleep(60)
    if task == "fail":
        raise ValueError(task)
    if task == "die":
        os._exit(3)
    return task.upper(), os.getpid()


def napping(task: str) -> tuple[str, int]:
    """A task that takes a moment, as a chunk of labelling does: a worker keeps to its own queue."""
    time.sleep(0.02)
    return task, os.getpid()


@dataclass
class Tagged:
    """Work with state of its own, sent to the workers once a run."""

    tag: str

    def __call__(self, task: str) -> tuple[str, int]:
        return f"{self.tag}:{task}", os.getpid()


@pytest.fixture
def pool() -> Iterator[WorkerPool]:
    made = WorkerPool()
    yield made
    made.shutdown()


def run_all(pool: WorkerPool, tasks: list[str], budget: float, workers: int = 2,
            job: Callable[[str], object] = work) -> dict[str, object]:
    """Every task's result; ``budget`` is a hanging task's, the others get a minute (a loaded machine may
    not schedule a worker for seconds)."""
    with pool.run(job, workers) as run:
        for task in tasks:
            run.submit(task, budget if task == "hang" else 60.0)
        results: dict[str, object] = {}
        while run.pending:
            results.update(run.results())
    return results


def test_results_come_back_and_overrun_failed_or_dead_tasks_come_back_as_none(pool: WorkerPool) -> None:
    started = time.monotonic()
    for failing in ("hang", "fail", "die"):  # one at a time: a dying worker takes results it has not sent yet along
        assert run_all(pool, [failing], 0.5, workers=1) == {failing: None}
    results = run_all(pool, ["a", "b", "c"], 0.5)
    assert time.monotonic() - started < 10
    assert {task: result[0] for task, result in results.items()} == {"a": "A", "b": "B", "c": "C"}  # type: ignore[index]
    assert os.getpid() not in {result[1] for result in results.values()}  # type: ignore[index]


def test_workers_are_kept_between_runs_and_get_each_runs_work(pool: WorkerPool) -> None:
    """A second run starts no process: the same workers take its work, sent to them with its first task."""
    first = run_all(pool, ["a", "b", "c", "d"], 5.0, job=Tagged("one"))
    kept = set(pool.pids)
    second = run_all(pool, ["a", "b", "c", "d"], 5.0, job=Tagged("two"))
    assert {result[0] for result in first.values()} == {"one:a", "one:b", "one:c", "one:d"}  # type: ignore[index]
    assert {result[0] for result in second.values()} == {"two:a", "two:b", "two:c", "two:d"}  # type: ignore[index]
    assert len(kept) == 2 and {result[1] for result in second.values()} <= kept  # type: ignore[index]


def test_each_task_goes_to_the_same_worker_as_the_run_before(pool: WorkerPool) -> None:
    """Tasks submitted in the same order land on the same workers, which find what they built for them."""
    tasks = [str(n) for n in range(40)]
    run_all(pool, tasks, 5.0, job=napping)  # starts the workers (the first ready one may take everything)
    second = run_all(pool, tasks, 5.0, job=napping)
    third = run_all(pool, tasks, 5.0, job=napping)
    moved = [task for task in tasks if second[task][1] != third[task][1]]  # type: ignore[index]
    assert len({result[1] for result in third.values()}) == 2  # type: ignore[index]
    assert len(moved) <= 4, moved  # only what one worker took from the other's queue at the end


def test_a_worker_killed_by_the_watchdog_is_replaced_in_the_next_run(pool: WorkerPool) -> None:
    assert run_all(pool, ["hang"], 0.3, workers=1) == {"hang": None}
    assert run_all(pool, ["a"], 5.0, workers=1)["a"][0] == "A"  # type: ignore[index]


def _never_ready(connection: object, niceness: int) -> None:
    time.sleep(60)  # a worker at its niceness on a busy machine, still importing what it needs


def test_workers_that_never_start_are_not_started_again_and_again(pool: WorkerPool,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The tasks come back as failed, for the caller to do itself, once every worker of the run failed to start:
    the old code started a new worker every ``STARTUP_SECONDS``, for as long as the machine stayed busy."""
    if watched_pool._FORK is None:
        pytest.skip("the stand-in worker needs fork")
    monkeypatch.setattr(watched_pool, "_context", lambda: watched_pool._FORK)
    monkeypatch.setattr(watched_pool, "_serve", _never_ready)
    monkeypatch.setattr(watched_pool, "STARTUP_SECONDS", 0.5)
    started: list[int] = []
    worker_class = watched_pool._Worker

    def counted(niceness: int) -> watched_pool._Worker:
        started.append(niceness)
        return worker_class(niceness)

    monkeypatch.setattr(watched_pool, "_Worker", counted)
    outcome: dict[str, object] = {}
    thread = threading.Thread(target=lambda: outcome.update(run_all(pool, ["a", "b", "c"], 5.0)), daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), f"still waiting after 30 s, {len(started)} workers started"
    assert outcome == {"a": None, "b": None, "c": None}
    assert len(started) <= 4  # the old code: one every half second, about 60 before the test gave up


def test_tasks_submitted_while_results_come_in_are_done_too(pool: WorkerPool) -> None:
    with pool.run(work, 2) as run:
        run.submit("a", 5.0)
        done = {}
        while run.pending:
            for task, result in run.results():
                done[task] = result
                if task == "a":
                    run.submit("b", 5.0)
    assert {task: result[0] for task, result in done.items()} == {"a": "A", "b": "B"}  # type: ignore[index]


def test_a_raising_check_stops_waiting_and_the_workers(pool: WorkerPool) -> None:
    """How labelling's cancel gets through while every worker is busy with a long task."""
    calls: list[int] = []

    def cancel() -> None:
        calls.append(1)
        raise KeyboardInterrupt

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt), pool.run(work, 2, cancel) as run:
        run.submit("hang", 60.0)
        run.submit("hang", 60.0)
        run.results()
    assert calls and time.monotonic() - started < 5


def test_workers_leave_when_the_process_that_started_them_is_killed(tmp_path: Path) -> None:
    """Forked workers hold no copy of each other's pipes, so each sees its own close when its parent dies."""
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
        sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
        from suite.engine.watched_pool import WorkerPool
        from test_watched_pool import work
        pool = WorkerPool()
        with pool.run(work, 3) as run:
            for task in "abc":
                run.submit(task, 30.0)
            pids = set()
            while run.pending:
                pids.update(result[1] for _, result in run.results())
        print(" ".join(map(str, sorted(pids))), flush=True)
        time.sleep(60)
    """), encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    pids = [int(pid) for pid in parent.stdout.readline().split()]
    assert pids
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    alive = pids
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [pid for pid in pids if running(pid)]
    for pid in alive:  # not left behind when the test fails
        os.kill(pid, signal.SIGKILL)
    assert alive == []


def running(pid: int) -> bool:
    """Whether the process runs (an exited one may wait as a zombie for its new parent to reap it)."""
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False


def test_a_script_without_a_main_guard_runs_once_when_workers_come_from_the_fork_server(tmp_path: Path) -> None:
    """A worker started by the fork server (this process has a second thread) is not told to run the parent's main
    module: the old code ran a guard-less script's body again in every worker, whose own start then failed, over
    6,000 times in two minutes, and the run never ended."""
    if "forkserver" not in watched_pool._METHODS:
        pytest.skip("no fork server on this platform")
    log = tmp_path / "ran.txt"
    script = tmp_path / "no_guard.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys, threading
        sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
        with open({str(log)!r}, "a") as log:
            log.write(f"{{os.getpid()}}\\n")
        threading.Thread(target=threading.Event().wait, daemon=True).start()
        from suite.engine.watched_pool import WorkerPool
        pool = WorkerPool()
        with pool.run(str.upper, 2) as run:
            for task in "abc":
                run.submit(task, 30.0)
            results = {{}}
            while run.pending:
                results.update(run.results())
        print(sorted(results.items()))
    """), encoding="utf-8")
    script_run = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                                  start_new_session=True)
    try:
        output, _ = script_run.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        output = "still running after 60 s"
    finally:
        with contextlib.suppress(ProcessLookupError):  # the script, its fork server and every worker left behind
            os.killpg(script_run.pid, signal.SIGKILL)
    assert output.strip() == "[('a', 'A'), ('b', 'B'), ('c', 'C')]"
    assert log.read_text().split() == [str(script_run.pid)]
