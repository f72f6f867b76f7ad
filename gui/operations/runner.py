"""Background work for every screen (after Anki's ``CollectionOp`` / ``QueryOp`` and its task manager).

Widgets never touch the database on the main thread: a write or a read is a function of a ``TaskState`` run
on a worker thread, and its result comes back to the main thread through a queued signal. Writes run one at
a time, in the order they were asked for, so two edits never race for SQLite's write lock and a reviewer's
quick P-P-P lands in order. Reads run beside them and see the last committed state.

A write is a ``Write`` value, built by the factory of its domain (``gui.operations.review``, ``.editing``,
``.suite``, ``.qe``, ``.scores``, as Anki's ``operations/note.py``): the core call, what its result says it
changed (``suite.changes.Changes``: every screen refreshes from that alone, through
``AppState.operation_executed``) and what it did in words for the status bar ("labelling: 1,204 new outputs
labelled · …"): a finished job says what it did, a cancelled one that nothing was stored.
"""
from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from PySide6.QtCore import (
    QCoreApplication,
    QEventLoop,
    QObject,
    QRunnable,
    Qt,
    QThreadPool,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import QLabel, QProgressDialog, QWidget

from gui.dialogs import show_error
from gui.state import AppState
from suite.changes import NOTHING, Changes
from suite.tasks import Cancelled, CancelledPartway, Progress, TaskState

T = TypeVar("T")

PROGRESS_DELAY_MS = 500
"""A dialog that flashes up for a quick save is worse than none; only work that lasts gets one."""
PROGRESS_WIDTH = 440
PROGRESS_LINES = 3
"""The progress dialog's text is this many lines high, whatever it says: title, message, count and time left."""

CANCELLED = "cancelled: nothing was stored"
"""Every write is one transaction (or, for a save of several edits, stops before the next one): a cancelled
write stored nothing, and the status bar says so once it has stopped. Labelling, which commits chunk by chunk,
says what it kept instead (``CancelledPartway``)."""


def said_by_core(result: Any) -> Changes:
    """What the core's result says it changed: a ``Changes``, or a result carrying one as ``changes``."""
    if isinstance(result, Changes):
        return result
    changes = result.changes
    assert isinstance(changes, Changes), f"{type(result).__name__}.changes is not a Changes"
    return changes


def changes_nothing(_: object) -> Changes:
    """For writes that store nothing the screens show (an export, opening a database: that has its own signal)."""
    return NOTHING


@dataclass(eq=False)
class Write(Generic[T]):
    """One write to run in the background: the core call, what it changed and what it did, in words.

    ``success`` and ``failure`` add callbacks (a factory's, then a screen's), as Anki's ``CollectionOp`` does;
    a failure callback returns True when it has told the user itself, else the error goes to a dialog.
    """

    title: str
    """What is being done, for the progress dialog and the status bar ("importing outputs from x.tsv")."""
    work: Callable[[TaskState], T]
    said: Callable[[T], str]
    """What it did, from its result ("13,985 outputs added · …"): the status bar shows "title: said"."""
    changes: Callable[[T], Changes] = said_by_core
    progress: bool = True
    """Whether a progress dialog (with Cancel) may open once the write lasts; quick edits go without."""
    quiet: bool = False
    """A write the window started by itself (a tab refreshing its report, which shows the result): its success is
    not said in the status bar, where "scoring with label: 47,871 outputs scored" replaced what a QE import said."""
    on_success: list[Callable[[T], None]] = field(default_factory=list)
    on_failure: list[Callable[[Exception], bool]] = field(default_factory=list)

    def success(self, callback: Callable[[T], None]) -> Write[T]:
        self.on_success.append(callback)
        return self

    def failure(self, callback: Callable[[Exception], bool]) -> Write[T]:
        self.on_failure.append(callback)
        return self

    def run(self, ops: Operations) -> None:
        ops.run(self)


class _Relay(QObject):
    """Lives on the main thread; the worker emits through it, so every slot runs on the main thread."""

    progressed = Signal(object)  # a suite.tasks.Progress
    succeeded = Signal(object)
    failed = Signal(object)


class _Runnable(QRunnable):
    def __init__(self, work: Callable[[TaskState], Any], task: TaskState, relay: _Relay) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._work = work
        self._task = task
        self._relay = relay

    def run(self) -> None:
        try:
            result = self._work(self._task)
        except BaseException as error:  # noqa: BLE001 - every failure must reach the main thread
            self._relay.failed.emit(error)
        else:
            self._relay.succeeded.emit(result)


@dataclass(eq=False)
class _Job(Generic[T]):
    title: str
    work: Callable[[TaskState], T]
    write: Write[T] | None  # None for a read
    on_success: Callable[[T], None] | None
    on_failure: Callable[[Exception], bool] | None
    progress: bool
    key: str | None = None
    generation: int = 0
    task: TaskState | None = None
    relay: _Relay | None = None
    started: float = 0.0
    last: Progress | None = None  # the latest progress, for a dialog that opens after it came


class Operations(QObject):
    """Runs the core's calls off the main thread and reports their outcome where the user looks."""

    message = Signal(str)  # what a finished write did, for the status bar ("labelling: cancelled: nothing was …")
    progressed = Signal(str, float)  # the running write's title ("… cancelling") and fraction done (-1: unknown)
    busy_changed = Signal(bool)  # a write started (True) or the last queued one ended (False)
    idle = Signal()  # the last read or write ended, and what its callbacks started too: the window has settled

    def __init__(self, state: AppState, parent_widget: QWidget) -> None:
        super().__init__(parent_widget)
        self._state = state
        self._parent = parent_widget
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(4)
        self._writes: deque[_Job[Any]] = deque()
        self._writing: _Job[Any] | None = None
        self._reads: set[_Job[Any]] = set()
        self._generations: dict[str, int] = {}
        self._dialog: QProgressDialog | None = None
        self._dialog_timer = QTimer(self)
        self._dialog_timer.setSingleShot(True)
        self._dialog_timer.timeout.connect(self._show_dialog)
        self._tick = QTimer(self)  # the time left changes while no progress arrives
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._refresh_dialog)

    # --- writes -----------------------------------------------------------------------------------
    def run(self, write: Write[T]) -> None:
        """Queue a write; it starts when every earlier write has finished."""
        self._writes.append(_Job(write.title, write.work, write, self._succeeded(write), self._failed(write),
                                 write.progress))
        if self._writing is None:
            self.busy_changed.emit(True)
            self._start_next_write()

    @staticmethod
    def _succeeded(write: Write[T]) -> Callable[[T], None]:
        def succeeded(result: T) -> None:
            for callback in write.on_success:
                callback(result)
        return succeeded

    @staticmethod
    def _failed(write: Write[T]) -> Callable[[Exception], bool]:
        def failed(error: Exception) -> bool:
            told = False
            for callback in write.on_failure:
                told = callback(error) or told
            return told
        return failed

    def busy(self) -> bool:
        return self._writing is not None or bool(self._writes)

    def cancel(self) -> None:
        """Ask the running write to stop at its next step (the core rolls it back); until it has stopped, the
        status bar says "cancelling…" (a training between two steps may take a while to notice)."""
        job = self._writing
        if job is not None and job.task is not None and not job.task.cancelled:
            job.task.cancel()
            self.progressed.emit(f"{job.title}: cancelling", -1.0)

    def _start_next_write(self) -> None:
        if not self._writes:
            self._writing = None
            self.busy_changed.emit(False)
            self._say_idle()
            return
        job = self._writes.popleft()
        self._writing = job
        relay = _Relay(self)
        job.relay = relay
        job.task = TaskState(relay.progressed.emit)
        job.started = time.monotonic()
        relay.progressed.connect(self._write_progressed)
        relay.succeeded.connect(lambda result: self._write_done(job, result, None))
        relay.failed.connect(lambda error: self._write_done(job, None, error))
        if job.progress:
            self._dialog_timer.start(PROGRESS_DELAY_MS)
        self.progressed.emit(job.title, -1.0)
        self._pool.start(_Runnable(job.work, job.task, relay))

    def _show_dialog(self) -> None:
        job = self._writing
        if job is None:
            return
        dialog = QProgressDialog(job.title, "Cancel", 0, 0, self._parent)
        dialog.setWindowTitle(f"tsqe — {job.title}")
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        # One width for the dialog's whole life, the text wrapping inside it: sized to each message, it changed
        # width as the messages came and Cancel moved under the pointer (issue 16).
        label = QLabel(dialog)
        label.setWordWrap(True)
        # One height too, whether the phase has a message or not: sized to its text, the dialog grew by a line
        # when the first message came and Cancel moved 14 px under the pointer (issue 28).
        label.setFixedHeight(PROGRESS_LINES * label.fontMetrics().lineSpacing() + 4)
        label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        dialog.setLabel(label)
        dialog.setFixedWidth(PROGRESS_WIDTH)
        dialog.canceled.connect(self._cancel_from_dialog)
        self._dialog = dialog
        self._refresh_dialog()
        self._tick.start()
        dialog.open()

    def _cancel_from_dialog(self) -> None:
        self.cancel()
        if self._dialog is not None:
            self._dialog.setLabelText("cancelling…")

    def _write_progressed(self, progress: Progress) -> None:
        job = self._writing
        if job is None or (job.task is not None and job.task.cancelled):
            return
        job.last = progress
        self.progressed.emit(job.title, progress.fraction)
        self._refresh_dialog()

    def _refresh_dialog(self) -> None:
        job, dialog = self._writing, self._dialog
        if job is None or dialog is None or job.last is None or (job.task is not None and job.task.cancelled):
            return
        dialog.setLabelText(_progress_text(job.title, job.last, time.monotonic() - job.started))
        dialog.setMaximum(1000)
        dialog.setValue(round(1000 * min(job.last.fraction, 1.0)))

    def _write_done(self, job: _Job[Any], result: Any, error: BaseException | None) -> None:
        self._dialog_timer.stop()
        self._tick.stop()
        if self._dialog is not None:
            self._dialog.canceled.disconnect(self._cancel_from_dialog)
            self._dialog.close()
            self._dialog.deleteLater()
            self._dialog = None
        if job.relay is not None:
            job.relay.deleteLater()
        try:
            if error is None:
                self._done(job, result)
            elif isinstance(error, CancelledPartway):  # what it had committed stays, and the screens show it
                self.message.emit(f"{job.title}: cancelled: {error}")
                self._state.operation_executed.emit(error.changes)
            elif isinstance(error, Cancelled):
                self.message.emit(f"{job.title}: {CANCELLED}")
            else:
                self._fail(job, error)
        finally:
            self._start_next_write()

    def _done(self, job: _Job[Any], result: Any) -> None:
        """Say what the write did (first, so that a screen's callback can say more), let the screens refresh from
        what it changed, then run its callbacks; a bug in any of them reaches a dialog."""
        write = job.write
        assert write is not None
        try:
            said, changes = write.said(result), write.changes(result)
        except Exception as error:  # noqa: BLE001 - a bug in a factory must reach the user, not the console
            self._fail(job, error)
            return
        if not write.quiet:
            self.message.emit(f"{job.title}: {said}")
        self._succeed(job, result)
        self._state.operation_executed.emit(changes)

    # --- reads ------------------------------------------------------------------------------------
    def read(self, work: Callable[[TaskState], T], on_success: Callable[[T], None], *,
             on_failure: Callable[[Exception], bool] | None = None, key: str | None = None) -> None:
        """Run a query in the background; a newer read with the same key makes this one's result moot."""
        job: _Job[T] = _Job("reading", work, None, on_success, on_failure, False, key)
        if key is not None:
            job.generation = self._generations.get(key, 0) + 1
            self._generations[key] = job.generation
            for older in self._reads:
                if older.key == key and older.task is not None:
                    older.task.cancel()  # stop its work early too, where the core checks
        relay = _Relay(self)
        job.relay = relay
        job.task = TaskState()
        relay.succeeded.connect(lambda result: self._read_done(job, result, None))
        relay.failed.connect(lambda error: self._read_done(job, None, error))
        self._reads.add(job)
        self._pool.start(_Runnable(job.work, job.task, relay))

    def supersede(self, *keys: str) -> None:
        """Make the running reads of these keys moot without starting new ones.

        A screen calls this when a write that changes what they read has finished: they may have read the data
        as they were before it, and their results, arriving after the write's notification, would be taken
        for current ones.
        """
        for job in self._reads:
            if job.key in keys and job.task is not None and self._generations.get(job.key) == job.generation:
                self._generations[job.key] = job.generation + 1
                job.task.cancel()

    def _read_done(self, job: _Job[Any], result: Any, error: BaseException | None) -> None:
        self._reads.discard(job)
        if job.relay is not None:
            job.relay.deleteLater()
        if job.key is not None and self._generations.get(job.key) != job.generation:
            self._say_idle()
            return  # superseded: a newer read of the same key will deliver
        if error is None:
            self._succeed(job, result)
        elif not isinstance(error, Cancelled):
            self._fail(job, error)
        self._say_idle()

    def _say_idle(self) -> None:
        if not self._reads and not self.busy():
            self.idle.emit()

    # --- shared -----------------------------------------------------------------------------------
    def _succeed(self, job: _Job[Any], result: Any) -> None:
        if job.on_success is None:
            return
        try:
            job.on_success(result)
        except Exception as error:  # noqa: BLE001 - a bug in a screen must reach the user, not the console
            self._fail(job, error)

    def _fail(self, job: _Job[Any], error: BaseException) -> None:
        if not isinstance(error, Exception):
            raise error  # KeyboardInterrupt, SystemExit: not ours to swallow
        if job.on_failure is not None and job.on_failure(error):
            return
        show_error(self._parent, job.title, error)

    def wait_idle(self, timeout_ms: int = 30000) -> bool:
        """Process events until no write or read is pending (the reads their results started included); False if
        that took longer than the timeout.

        Each pass sleeps until an event comes (a result, a timer), so it neither spins nor sleeps a guessed time;
        it stays at the outer event loop's level, so widgets a test has closed are not deleted under it.
        """
        deadline = QTimer()  # an event too, which ends the last wait
        deadline.setSingleShot(True)
        deadline.start(timeout_ms)
        while self.busy() or self._reads:
            if not deadline.isActive():
                return False
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
        QCoreApplication.processEvents()
        return True


def _progress_text(title: str, progress: Progress, elapsed: float) -> str:
    """"labelling — labelling item 1,204 of 2,767 · about 12 s left" (the bar shows the percentage)."""
    message = progress.message
    text = title if not message else message if message.startswith(title) else f"{title} — {message}"
    if progress.total > 0 and not any(ch.isdigit() for ch in message):
        text += f" {progress.done:,} of {progress.total:,}"
    if 0.02 <= progress.fraction < 1.0 and elapsed >= 1.0:
        text += f" · about {_duration(elapsed * (1 - progress.fraction) / progress.fraction)} left"
    return text


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    return f"{round(seconds / 60)} min"
