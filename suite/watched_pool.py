"""Worker processes with a watchdog on every task, for CPU-bound work that may hang.

Labelling searches untimed in workers (a per-search timeout costs more than the search) and relies on this
watchdog instead: a task that overruns its time budget has its worker killed and comes back as ``None``, as
does one whose worker failed or died, so the caller redoes it the careful way.

A process that runs other threads (a Qt GUI, a progress bar's, a C library's thread pool) is never forked:
the child would inherit locks those threads may hold. Its workers come from a fork server (a clean
single-threaded process that has imported the work's module once; ``spawn`` where there is no fork at all),
so ``work`` and the task list must pickle: each worker receives them once, at its start. A process that runs
one thread only (as the operating system counts them) forks its workers, which then start at once instead
of taking a fraction of a second each. Only task indexes go to workers and their results come back pickled.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
import time
from collections import deque
from collections.abc import Callable, Generator, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Generic, TypeVar, cast

_METHODS = multiprocessing.get_all_start_methods()
_CONTEXT = multiprocessing.get_context("forkserver") if "forkserver" in _METHODS \
    else multiprocessing.get_context("spawn")
_FORK = multiprocessing.get_context("fork") if "fork" in _METHODS else None


def _context() -> BaseContext:
    """Fork when this process runs one thread only, counted by the OS (so C libraries' threads count);
    else (or where that cannot be told) the fork server."""
    try:
        single = len(os.listdir("/proc/self/task")) == 1
    except OSError:
        single = False
    return _FORK if _FORK is not None and single else _CONTEXT



def start_early(module: str) -> None:
    """Start the fork server, importing ``module`` (the work's), ahead of ``run_watched``: that costs about a
    second, which then overlaps the caller's own preparation instead of delaying the first task."""
    if _CONTEXT.get_start_method() == "forkserver":
        _CONTEXT.set_forkserver_preload([module])
        multiprocessing.forkserver.ensure_running()


Task = TypeVar("Task")
Result = TypeVar("Result")


def _serve(connection: Connection, work: Callable[[Task], Result], tasks: Sequence[Task]) -> None:
    """A worker's life: do the tasks it is sent until told to stop, then leave without any clean-up.

    ``os._exit`` skips the clean-up of whatever the work opened (a database connection): the parent owns the
    outcome, and a worker killed by the watchdog gets none either.
    """
    try:
        connection.send(os.getpid())  # ready: the task's time budget starts now, not while the worker started
        while (index := connection.recv()) is not None:
            try:
                result: Result | None = work(tasks[index])
            except Exception:  # noqa: BLE001 - the parent redoes the task and raises the error there
                result = None
            connection.send(result)
    finally:
        os._exit(0)


class _Worker(Generic[Task, Result]):
    def __init__(self, work: Callable[[Task], Result], tasks: Sequence[Task]) -> None:
        context = _context()
        self.connection, child = context.Pipe()
        self.process: BaseProcess = context.Process(  # type: ignore[attr-defined]  # every concrete context has it
            target=_serve, args=(child, work, tasks), daemon=True)
        self.process.start()
        child.close()
        self.task = -1
        self.budget = self.deadline = 0.0
        self.started = False

    def give(self, index: int, budget: float) -> None:
        """Send a task; its budget counts from now, or from the worker's being ready if it is still starting
        (fork server busy, machine loaded), which it may take ``STARTUP_SECONDS`` for."""
        self.task, self.budget = index, budget
        self.deadline = time.monotonic() + budget + (0.0 if self.started else STARTUP_SECONDS)
        self.connection.send(index)

    def ready(self) -> None:
        self.started = True
        self.deadline = time.monotonic() + self.budget

    def stop(self) -> None:
        try:
            self.connection.send(None)
        except OSError:
            pass
        self.process.join(1.0)
        self.kill()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.connection.close()


STARTUP_SECONDS = 60.0
"""How long a worker may take to start before its first task counts as overrun."""

POLL_SECONDS = 0.25
"""How often ``check`` runs while every worker is busy, so that a cancel is heard during a long task."""


def run_watched(tasks: Sequence[Task], work: Callable[[Task], Result], budget: Callable[[Task], float],
                workers: int, check: Callable[[], None] = lambda: None
                ) -> Generator[tuple[int, Result | None], None, None]:
    """Do ``work(task)`` for every task in ``workers`` worker processes; yield (task index, result) as they
    finish, the result ``None`` for a task that overran ``budget(task)`` seconds or failed.

    A worker gets its next task as soon as it hands in a result, before the caller sees that result, so
    workers keep computing while the caller stores. ``check`` is called while waiting and may raise to stop
    (a cancel). Closing the generator, or an exception here or in the caller, kills every worker.
    ``work`` and ``tasks`` must pickle; the fork server preloads ``work``'s module, so that each worker
    starts without importing it again.
    """
    _CONTEXT.set_forkserver_preload([work.__module__])  # no effect once this process's fork server runs
    pending = deque(range(len(tasks)))
    busy: dict[Connection, _Worker[Task, Result]] = {}

    def assign(worker: _Worker[Task, Result]) -> None:
        if pending:
            index = pending.popleft()
            worker.give(index, budget(tasks[index]))
            busy[worker.connection] = worker
        else:
            worker.stop()

    try:
        for _ in range(min(workers, len(tasks))):
            assign(_Worker(work, tasks))
        while busy:
            first_deadline = min(worker.deadline for worker in busy.values())
            ready = wait(list(busy), timeout=min(POLL_SECONDS, max(0.0, first_deadline - time.monotonic())))
            check()
            for connection in ready:
                done = busy.pop(cast(Connection, connection))  # wait() returns some of the connections given
                index = done.task
                try:
                    result: Result | None = done.connection.recv()
                    if not done.started:  # its ready message, not a result
                        done.ready()
                        busy[done.connection] = done
                        continue
                    assign(done)
                except (EOFError, OSError):  # the worker died
                    done.kill()
                    result = None
                    if pending:
                        assign(_Worker(work, tasks))
                yield index, result
            now = time.monotonic()
            for connection, overrun in list(busy.items()):
                if overrun.deadline <= now:
                    del busy[connection]
                    overrun.kill()
                    if pending:
                        assign(_Worker(work, tasks))
                    yield overrun.task, None
    finally:
        for worker in busy.values():
            worker.kill()
