"""Worker processes kept for the life of this process, with a watchdog on every task, for CPU-bound work that
may hang.

Labelling searches untimed in workers (a per-search timeout costs more than the search) and relies on this
watchdog instead: a task that overruns its time budget has its worker killed and comes back as ``None``, as
does one whose worker failed or died, so the caller redoes it the careful way.

A ``WorkerPool`` starts its workers once and keeps them between runs: starting one costs a tenth of a second
to a second (more on a loaded machine), and what a worker builds up stays with it for the next run, such as
labelling's compiled patterns. A run (``WorkerPool.run``) sends each worker its work, pickled once, with the
worker's first task of the run; then only tasks go to the workers and their results come back, pickled.
Workers run without the cyclic garbage collector (the work allocates millions of objects without cycles,
which the collector would scan again and again) and collect once after each run, what they inherited from this
process (a forked worker) left out of it: scanning a benchmark's million inherited strings cost each forked
worker 0.3 s a run.

A process that runs other threads (a Qt GUI, a progress bar's, a C library's thread pool) is never forked:
the child would inherit locks those threads may hold. Its workers come from a fork server (a clean
single-threaded process that has imported the work's module once; ``spawn`` where there is no fork at all),
so work and tasks must pickle. A process that runs one thread only (as the operating system counts them)
forks its workers, which then start at once. A forked worker closes its copies of the other workers' pipes, so
that every worker sees its pipe close, and leaves, when this process ends, even when it is killed.
"""
from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.spawn
import os
import pickle
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import count
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

_METHODS = multiprocessing.get_all_start_methods()
_CONTEXT = multiprocessing.get_context("forkserver") if "forkserver" in _METHODS \
    else multiprocessing.get_context("spawn")
_FORK = multiprocessing.get_context("fork") if "fork" in _METHODS else None

STARTUP_SECONDS = 60.0
"""How long a worker may take to start before it counts as failed."""

POLL_SECONDS = 0.25
"""How often a run's ``check`` is called while it waits, so that a cancel is heard during a long task."""


def _context() -> BaseContext:
    """Fork when this process runs one thread only, counted by the OS (so C libraries' threads count);
    else (or where that cannot be told) the fork server."""
    try:
        single = len(os.listdir("/proc/self/task")) == 1
    except OSError:
        single = False
    return _FORK if _FORK is not None and single else _CONTEXT


_STARTING = threading.local()
"""Set in the thread that is starting one of this module's workers, for as long as it does."""
_PREPARATION_DATA = multiprocessing.spawn.get_preparation_data


def _preparation_data(name: str) -> dict[str, Any]:
    """What ``multiprocessing`` tells a new process to set up before it runs; for a worker of this module, without
    the parent's main module, which a worker never needs (its work and tasks come from modules of their own).

    A fork server's or spawned child otherwise runs the parent's script again (as ``__mp_main__``): a script that
    uses tsqe without an ``if __name__ == "__main__"`` guard, from a process with a second thread, started workers
    that each ran the whole script again (writing its files again) and failed starting workers of their own, to
    be started again: the script's body ran over 6,000 times in two minutes and labelling never ended. The
    standard library has no option for it; this wraps its function, and leaves it as it was for every other
    caller and thread.
    """
    data: dict[str, Any] = _PREPARATION_DATA(name)
    if getattr(_STARTING, "worker", False):
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
    return data


multiprocessing.spawn.get_preparation_data = _preparation_data


@contextmanager
def _starting_worker() -> Iterator[None]:
    _STARTING.worker = True
    try:
        yield
    finally:
        _STARTING.worker = False


_PARENT_ENDS: set[Connection] = set()
"""This process's ends of its workers' pipes, which a forked child (a new worker) closes."""


def _forget_parent_ends() -> None:
    for connection in _PARENT_ENDS:
        connection.close()
    _PARENT_ENDS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_parent_ends)


def _serve(connection: Connection, niceness: int) -> None:
    """A worker's life: load each run's work, do the tasks it is sent, until its pipe closes or it is told to
    stop; then leave without any clean-up.

    Results are sent by a thread of their own: a result larger than the pipe holds waits until the caller reads
    it (labelling's writer may be busy writing), and meanwhile this one goes on with the next task it holds.
    ``os._exit`` skips the clean-up of whatever the work opened (a database connection): the parent owns the
    outcome, and a worker killed by the watchdog gets none either.
    """
    outbox: queue.SimpleQueue[object] = queue.SimpleQueue()

    def send_all() -> None:
        try:
            while (result := outbox.get()) is not _STOP:
                connection.send(result)
        except OSError:  # this process's parent has gone
            os._exit(0)

    sender = threading.Thread(target=send_all, daemon=True)
    work: Any = None
    try:
        gc.disable()
        gc.freeze()  # what a forked worker inherited is never collected here: its pages are not copied by the scan
        if niceness and hasattr(os, "nice"):
            os.nice(niceness)
        sender.start()
        outbox.put(os.getpid())  # ready: a task's time budget starts when it is sent to a ready worker
        while (message := connection.recv()) is not None:
            kind, payload = message
            if kind == "task":
                try:
                    outbox.put(work(payload))
                except Exception:  # noqa: BLE001 - the parent redoes the task and raises the error there
                    outbox.put(None)
                continue
            if hasattr(work, "close"):  # the run has ended ("done"), or a new one begins ("work")
                work.close()
            work = pickle.loads(payload) if kind == "work" else None
            if work is None:  # between runs: collecting when a run's work arrived held its first task up 25-30 ms
                gc.collect()
        outbox.put(_STOP)
        sender.join()
    except (EOFError, OSError):  # this process's parent has gone
        pass
    finally:
        os._exit(0)


_STOP = object()
"""Tells a worker's sender thread that no result follows."""


class _Worker:
    """One worker process and the tasks it holds: the first it is working on until ``deadline``, the next ones
    waiting in its pipe (``PREFETCH``)."""

    def __init__(self, niceness: int) -> None:
        context = _context()
        self.connection, child = context.Pipe()
        _PARENT_ENDS.add(self.connection)
        self.process: BaseProcess = context.Process(  # type: ignore[attr-defined]  # every concrete context has it
            target=_serve, args=(child, niceness), daemon=True)
        with _starting_worker():
            self.process.start()
        child.close()
        self.ready = False
        self.run = -1
        """The run whose work this worker has loaded."""
        self.tasks: deque[tuple[Any, float | None]] = deque()
        self.deadline = time.monotonic() + STARTUP_SECONDS
        self.slot = 0
        """Which of a run's queues this worker takes from first (``WatchedRun``)."""

    @property
    def busy(self) -> bool:
        return bool(self.tasks)

    def give(self, run: int, payload: bytes, task: Any, budget: float | None) -> None:
        """Send a task (and the run's work first, if the worker has not loaded it); raises OSError when the
        worker has died."""
        if self.run != run:
            self.connection.send(("work", payload))
            self.run = run
        self.connection.send(("task", task))
        self.tasks.append((task, budget))
        if len(self.tasks) == 1:
            self._start(budget)

    def _start(self, budget: float | None) -> None:
        self.deadline = float("inf") if budget is None else time.monotonic() + budget

    def finished(self) -> Any:
        """The task whose result has come; the next one's budget starts now."""
        task, _ = self.tasks.popleft()
        if self.tasks:
            self._start(self.tasks[0][1])
        return task

    def done(self) -> None:
        """The run has ended: the worker drops its work (closing what it opened)."""
        if self.run != -1:
            self.connection.send(("done", b""))
            self.run = -1

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
        _PARENT_ENDS.discard(self.connection)
        self.connection.close()


PREFETCH = 3
"""Tasks a worker holds at once: while the caller is busy with results (labelling writes them), the worker has
its next tasks already and keeps computing, instead of waiting for the caller to hand it one."""


Task = TypeVar("Task")
Result = TypeVar("Result")


class WatchedRun(Generic[Task, Result]):
    """One run on a pool's workers: tasks submitted (more may follow while results come in), results collected
    as they are ready, every task watched.

    Each worker has a queue of its own, which the n-th task submitted joins in turn (n modulo the workers), and
    takes from another's only when its own is empty. A caller that submits the same tasks in the same order on
    every run (labelling, the chunks of a suite) thus sends each task to the same worker as the run before, which
    finds what it built for it last time (labelling's compiled patterns: handed out as they came, the chunks
    wandered between workers, and each worker compiled the patterns of chunks new to it for runs on end).
    """

    def __init__(self, pool: WorkerPool, work: Callable[[Task], Result], workers: int, check: Callable[[], None],
                 number: int) -> None:
        self._pool, self._workers, self._check, self._number = pool, max(1, workers), check, number
        self._payload = pickle.dumps(work, protocol=pickle.HIGHEST_PROTOCOL)
        self._queues: list[deque[tuple[Task, float | None]]] = [deque() for _ in range(self._workers)]
        self._submitted = 0
        self._running: list[_Worker] = pool.take(self._workers)
        for slot, worker in enumerate(self._running):
            worker.slot = slot
        self._failed_starts = 0
        """Workers of this run that did not start within ``STARTUP_SECONDS``: once there are as many as the run
        has workers, it starts no more, and the tasks no worker is left to do come back as failed, for the
        caller to do itself. A worker at its niceness on a busy machine can take minutes to import what it
        needs; started again and again, it kept a labelling run waiting for over twelve minutes (issue 32)."""

    def submit(self, task: Task, budget: float | None) -> None:
        """Queue ``task``; it may take ``budget`` seconds from when a worker gets it (None: no limit)."""
        self._queues[self._submitted % self._workers].append((task, budget))
        self._submitted += 1

    @property
    def pending(self) -> int:
        """Tasks submitted whose results have not been returned yet."""
        return sum(map(len, self._queues)) + sum(len(worker.tasks) for worker in self._running)

    def _next(self, slot: int) -> tuple[Task, float | None] | None:
        """The next task of the worker in ``slot``: from its own queue, else the last of the longest other one."""
        if self._queues[slot]:
            return self._queues[slot].popleft()
        longest = max(self._queues, key=len)
        return longest.pop() if longest else None

    def _assign(self) -> list[tuple[Task, Result | None]]:
        """Give queued tasks to ready workers (up to ``PREFETCH`` each, the least loaded first), starting workers
        up to the run's number; the tasks of workers that turned out dead, the first as failed."""
        failed: list[tuple[Task, Result | None]] = []
        for depth in range(PREFETCH):
            for worker in list(self._running):
                if not (worker.ready and len(worker.tasks) == depth):
                    continue
                queued = self._next(worker.slot)
                if queued is None:
                    break
                try:
                    worker.give(self._number, self._payload, *queued)
                except OSError:
                    self._queues[worker.slot].appendleft(queued)
                    failed += self._lost(worker)
        if self._failed_starts < self._workers:
            taken = {worker.slot for worker in self._running}
            for slot in range(self._workers):
                if slot not in taken and any(self._queues):
                    worker = _Worker(self._pool.niceness)
                    worker.slot = slot
                    self._running.append(worker)
        elif not self._running:
            for waiting in self._queues:
                failed += [(task, None) for task, _ in waiting]
                waiting.clear()
        return failed

    def _lost(self, worker: _Worker) -> list[tuple[Task, Result | None]]:
        """A worker died or overran: its current task failed, the ones it had not begun go back in its queue."""
        self._running.remove(worker)
        worker.kill()
        if not worker.tasks:
            return []
        (task, _), *waiting = worker.tasks
        self._queues[worker.slot].extendleft(reversed(waiting))
        return [(task, None)]

    def results(self, block: bool = True, timeout: float | None = None) -> list[tuple[Task, Result | None]]:
        """The tasks finished since the last call, with their results (None: overran its budget, failed, or its
        worker died). ``block``: wait until at least one is finished, unless none is pending, or ``timeout``
        seconds have passed (None: however long that takes)."""
        finished = self._assign()
        end = float("inf") if timeout is None else time.monotonic() + timeout
        while not finished and self._running and self.pending and time.monotonic() < end:
            waiting = [worker for worker in self._running if worker.busy or not worker.ready]
            first = min(worker.deadline for worker in waiting)
            pause = 0.0 if not block else min(POLL_SECONDS, max(0.0, min(first, end) - time.monotonic()))
            ready = set(wait([worker.connection for worker in waiting], pause))
            self._check()
            for worker in waiting:
                if worker.connection in ready:
                    finished += self._receive(worker)
                elif worker.deadline <= time.monotonic():  # overran its budget, or never started
                    self._failed_starts += not worker.ready
                    finished += self._lost(worker)
            finished += self._assign()
            if not block:
                break
        return finished

    def _receive(self, worker: _Worker) -> list[tuple[Task, Result | None]]:
        try:
            message = worker.connection.recv()
        except (EOFError, OSError):  # the worker died
            return self._lost(worker)
        if not worker.ready:  # its ready message
            worker.ready = True
            return []
        return [(worker.finished(), message)]

    def close(self) -> None:
        """Kill the workers still busy (a cancel, an error), hand the others back to the pool."""
        kept = []
        for worker in self._running:
            if worker.busy:
                worker.kill()
                continue
            try:
                worker.done()
            except OSError:
                worker.kill()
                continue
            kept.append(worker)
        self._pool.give_back(sorted(kept, key=lambda worker: worker.slot))  # the same slots next run


class WorkerPool:
    """Worker processes started once and kept between runs; one run at a time uses them (a second one meanwhile,
    from another thread, gets workers of its own, which end with it)."""

    def __init__(self, niceness: int = 0) -> None:
        self.niceness = niceness
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._owner = os.getpid()
        self._runs = count()

    def _forked(self) -> None:
        """In a child forked from the process that started the workers, they are not this process's own."""
        if os.getpid() != self._owner:
            self._idle, self._lock, self._owner = [], threading.Lock(), os.getpid()

    def start(self, workers: int, module: str) -> None:
        """Start workers up to ``workers`` now, so that they start while the caller prepares its first run;
        the fork server (when there is one) imports ``module``, the work's, once for all of them."""
        self._forked()
        if _CONTEXT.get_start_method() == "forkserver":
            _CONTEXT.set_forkserver_preload([module])  # no effect once this process's fork server runs
        if not self._lock.acquire(blocking=False):
            return  # a run is using the workers
        try:
            self._idle = [worker for worker in self._idle if worker.process.is_alive()]
            self._idle += [_Worker(self.niceness) for _ in range(workers - len(self._idle))]
        finally:
            self._lock.release()

    def take(self, workers: int) -> list[_Worker]:
        """Up to ``workers`` of the kept workers, for a run (which holds the pool's lock)."""
        taken, self._idle = self._idle[:workers], self._idle[workers:]
        return taken

    def give_back(self, workers: list[_Worker]) -> None:
        self._idle += workers

    @property
    def pids(self) -> list[int]:
        """The kept workers' process ids (a benchmark reads their CPU time)."""
        return [worker.process.pid for worker in self._idle if worker.process.pid is not None]

    @contextmanager
    def run(self, work: Callable[[Task], Result], workers: int,
            check: Callable[[], None] = lambda: None) -> Iterator[WatchedRun[Task, Result]]:
        """A run of ``work`` on up to ``workers`` workers. ``check`` is called while waiting and may raise to
        stop (a cancel). Leaving the block, normally or by an exception, kills the workers still busy."""
        self._forked()
        if not self._lock.acquire(blocking=False):
            private = WorkerPool(self.niceness)
            try:
                with private.run(work, workers, check) as run:
                    yield run
            finally:
                private.shutdown()
            return
        try:
            watched: WatchedRun[Task, Result] = WatchedRun(self, work, workers, check, next(self._runs))
            try:
                yield watched
            finally:
                watched.close()
        finally:
            self._lock.release()

    def shutdown(self) -> None:
        """Stop the idle workers."""
        self._forked()
        with self._lock:
            for worker in self._idle:
                worker.stop()
            self._idle = []
