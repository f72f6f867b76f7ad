"""Forked worker processes with a watchdog on every task, for CPU-bound work that may hang.

Labelling searches untimed in workers (a per-search timeout costs more than the search) and relies on this
watchdog instead: a task that overruns its time budget has its worker killed and comes back as ``None``, as
does one whose worker failed or died, so the caller redoes it the careful way. Workers are forked, so they
inherit the task list and whatever the caller prepared (rules, lookups) without pickling; only task
indexes go to them and their results come back pickled.
"""
from __future__ import annotations

import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Generic, TypeVar

Task = TypeVar("Task")
Result = TypeVar("Result")


def _serve(connection: Connection, work: Callable[[Task], Result], tasks: Sequence[Task]) -> None:
    """A worker's life: do the tasks it is sent until told to stop, then leave without any clean-up.

    ``os._exit`` skips flushing stdio and finalisers inherited from the parent, whose locks another parent
    thread (a progress bar's) may have held at the fork.
    """
    try:
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
        context = multiprocessing.get_context("fork")
        self.connection, child = context.Pipe()
        self.process: BaseProcess = context.Process(target=_serve, args=(child, work, tasks), daemon=True)
        self.process.start()
        child.close()
        self.task = -1
        self.deadline = 0.0

    def give(self, index: int, budget: float) -> None:
        self.task, self.deadline = index, time.monotonic() + budget
        self.connection.send(index)

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


def run_watched(tasks: Sequence[Task], work: Callable[[Task], Result], budget: Callable[[Task], float],
                workers: int) -> Iterator[tuple[int, Result | None]]:
    """Do ``work(task)`` for every task in ``workers`` forked processes; yield (task index, result) as they
    finish, the result ``None`` for a task that overran ``budget(task)`` seconds or failed.

    A worker gets its next task as soon as it hands in a result, before the caller sees that result, so
    workers keep computing while the caller stores. Closing the generator (or an exception in the caller)
    kills every worker.
    """
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
            ready = wait(list(busy), timeout=max(0.0, first_deadline - time.monotonic()))
            for connection in ready:
                worker: _Worker[Task, Result] | None = busy.pop(connection)  # type: ignore[arg-type]
                assert worker is not None
                index = worker.task
                try:
                    result: Result | None = worker.connection.recv()
                except (EOFError, OSError):  # the worker died
                    worker.kill()
                    result, worker = None, (_Worker(work, tasks) if pending else None)
                if worker is not None:
                    assign(worker)
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
