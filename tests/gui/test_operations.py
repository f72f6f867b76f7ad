"""Background operations: threads, progress dialog timing, cancel, one writer at a time, errors, superseded reads."""
from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import shown_errors
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QProgressDialog, QPushButton
from pytestqt.qtbot import QtBot
from sqlalchemy import func, select, update

from gui.operations import Operations, Write, changes_nothing
from gui.state import AppState
from store import open_database
from store.models import LabelFingerprint, Suite
from suite.changes import ANYWHERE, Changes
from suite.demo import DemoSummary, create_demo
from suite.engine import labelling
from suite.engine.labelling import relabel
from suite.errors import TsqeError
from suite.tasks import Progress, TaskState


def _write(ops: Operations, title: str, work: Callable[[TaskState], object],
           on_failure: Callable[[Exception], bool] | None = None) -> None:
    """Queue a write that changes nothing the screens show."""
    write: Write[object] = Write(title, work, said=lambda _: "did it", changes=changes_nothing)
    if on_failure is not None:
        write.failure(on_failure)
    write.run(ops)


def _dialogs(ops: Operations) -> list[QProgressDialog]:
    parent = ops.parent()
    assert parent is not None
    return [d for d in parent.findChildren(QProgressDialog) if d.isVisible()]


def test_a_write_runs_off_the_main_thread_then_reports_on_it(qtbot: QtBot, ops: Operations, state: AppState) -> None:
    threads: list[int] = []
    results: list[int] = []

    def work(task: TaskState) -> int:
        threads.append(threading.get_ident())
        return 42

    def succeeded(r: int) -> None:
        results.append(r)
        threads.append(threading.get_ident())

    messages: list[str] = []
    ops.message.connect(messages.append)
    with qtbot.waitSignal(state.operation_executed) as executed:
        Write("answering", work, said=lambda answer: f"the answer is {answer}",
              changes=lambda _: Changes(labels=ANYWHERE)).success(succeeded).run(ops)
    assert results == [42]
    assert threads[0] != threading.get_ident() and threads[1] == threading.get_ident()
    assert executed.args == [Changes(labels=ANYWHERE)]
    assert messages == ["answering: the answer is 42"]  # what it did, not "done"
    assert not ops.busy()


def test_progress_dialog_appears_only_after_half_a_second(qtbot: QtBot, ops: Operations) -> None:
    release = threading.Event()

    def work(task: TaskState) -> None:
        task.progress(1, 4, "steps")
        release.wait(5)

    _write(ops, "slow work", work)
    qtbot.wait(300)
    assert _dialogs(ops) == []
    qtbot.waitUntil(lambda: len(_dialogs(ops)) == 1, timeout=1000)
    release.set()
    assert ops.wait_idle()
    assert _dialogs(ops) == []


def test_a_quick_write_never_shows_a_dialog(qtbot: QtBot, ops: Operations) -> None:
    _write(ops, "quick", lambda task: None)
    assert ops.wait_idle()
    qtbot.wait(600)
    assert _dialogs(ops) == []


def test_cancel_in_the_dialog_rolls_back_a_real_core_call(qtbot: QtBot, tmp_path: Path, ops: Operations) -> None:
    """Building the demo is cancelled after its first step: no half-built suite is left behind."""
    db = open_database(tmp_path / "empty.sqlite")
    first_step = threading.Event()
    go_on = threading.Event()

    def work(task: TaskState) -> DemoSummary:
        def slowly(progress: Progress) -> None:
            task.progress(round(progress.fraction * 1000), 1000, progress.message)  # raises once cancelled
            if progress.fraction >= 0.2 and not first_step.is_set():
                first_step.set()
                go_on.wait(60)  # the suite is imported, its outputs not yet: time for the test to press Cancel

        return create_demo(db, task=TaskState(slowly))

    messages: list[str] = []
    ops.message.connect(messages.append)
    said: list[str] = []
    ops.progressed.connect(lambda title, _: said.append(title) if title not in said else None)
    _write(ops, "building the demo", work)
    qtbot.waitUntil(first_step.is_set, timeout=60_000)  # importing the suite takes over a second under load
    qtbot.waitUntil(lambda: len(_dialogs(ops)) == 1, timeout=3000)
    qtbot.mouseClick(_dialogs(ops)[0].findChild(QPushButton), Qt.MouseButton.LeftButton)
    go_on.set()
    assert ops.wait_idle()
    assert messages == ["building the demo: cancelled: nothing was stored"]
    assert said == ["building the demo", "building the demo: cancelling"]  # until it stopped, then the message
    assert shown_errors() == []
    with db.session() as session:
        assert session.scalar(select(func.count(Suite.id))) == 0
    db.close()


def test_a_relabel_cancelled_partway_says_what_it_kept_and_screens_refresh(qtbot: QtBot, ops: Operations,
                                                                           state: AppState,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Labelling writes chunk by chunk: cancelled after its first chunk, that chunk stays. The status bar says so
    (not "nothing was stored") and the screens are told that labels changed."""
    db = state.db
    assert db is not None
    with db.transaction() as session:  # every item's labels are outdated: the whole suite is labelled again
        session.execute(update(LabelFingerprint).values(fingerprint="outdated"))
    monkeypatch.setattr(labelling, "CHUNK", 10)
    first_chunk, go_on = threading.Event(), threading.Event()

    def work(task: TaskState) -> object:
        def after_each_chunk(progress: Progress) -> None:
            task.progress(progress.done, progress.total, progress.message)  # raises once cancelled
            if progress.done and not first_chunk.is_set():
                first_chunk.set()
                go_on.wait(60)  # time for the test to cancel

        return relabel(db, task=TaskState(after_each_chunk))

    messages: list[str] = []
    executed: list[Changes] = []
    ops.message.connect(messages.append)
    state.operation_executed.connect(executed.append)
    _write(ops, "labelling", work)
    qtbot.waitUntil(first_chunk.is_set, timeout=30_000)
    ops.cancel()
    go_on.set()
    assert ops.wait_idle()
    [message] = messages  # the cancel is heard at the report after the next chunk
    assert re.fullmatch(r"labelling: cancelled: [12]0 of \d+ items were labelled and are kept, the others are as "
                        r"they were: label again to finish", message), message
    assert executed == [Changes(labels=ANYWHERE)]
    assert shown_errors() == []


def test_one_writer_at_a_time_in_the_order_asked(qtbot: QtBot, ops: Operations) -> None:
    spans: list[tuple[str, float, float]] = []

    def work(name: str) -> Callable[[TaskState], None]:
        def run(task: TaskState) -> None:
            start = time.monotonic()
            time.sleep(0.15)
            spans.append((name, start, time.monotonic()))
        return run

    for name in "abc":
        _write(ops, name, work(name))
    assert ops.busy()
    assert ops.wait_idle()
    assert [s[0] for s in spans] == ["a", "b", "c"]
    for (_, _, end), (_, start, _) in itertools.pairwise(spans):
        assert start >= end


def test_a_core_error_reaches_a_dialog_in_its_own_words(qtbot: QtBot, ops: Operations, state: AppState) -> None:
    executed: list[object] = []
    state.operation_executed.connect(executed.append)

    def work(task: TaskState) -> None:
        raise TsqeError("no item 'x' in suite 'de-en'")

    _write(ops, "moving an item", work)
    assert ops.wait_idle()
    [box] = shown_errors()
    assert box.text() == "no item 'x' in suite 'de-en'"
    assert box.detailedText() == ""
    assert executed == []
    box.close()


def test_a_bug_reaches_a_dialog_with_its_traceback(qtbot: QtBot, ops: Operations) -> None:
    _write(ops, "exporting", lambda task: 1 / 0)
    assert ops.wait_idle()
    [box] = shown_errors()
    assert "exporting failed: division by zero" in box.text()
    assert "ZeroDivisionError" in box.detailedText()
    box.close()


def test_on_failure_can_handle_the_error_itself(qtbot: QtBot, ops: Operations) -> None:
    handled: list[Exception] = []

    def work(task: TaskState) -> None:
        raise TsqeError("edited meanwhile")

    _write(ops, "saving", work, lambda e: handled.append(e) is None)  # type: ignore[func-returns-value]
    assert ops.wait_idle()
    assert [str(e) for e in handled] == ["edited meanwhile"]
    assert shown_errors() == []


def test_a_superseded_keyed_read_drops_its_result(qtbot: QtBot, ops: Operations) -> None:
    delivered: list[str] = []
    slow_started = threading.Event()

    def slow(task: TaskState) -> str:
        slow_started.set()
        time.sleep(0.3)
        return "old"

    ops.read(slow, delivered.append, key="preview")
    slow_started.wait(2)
    ops.read(lambda task: "new", delivered.append, key="preview")
    ops.read(lambda task: "other key", delivered.append, key="filter")
    assert ops.wait_idle()
    assert sorted(delivered) == ["new", "other key"]


def test_reads_run_while_a_write_holds_the_writer(qtbot: QtBot, ops: Operations) -> None:
    release = threading.Event()
    delivered: list[str] = []
    Write("long", lambda task: release.wait(5), said=str, changes=changes_nothing, progress=False).run(ops)
    ops.read(lambda task: "read", delivered.append)
    qtbot.waitUntil(lambda: delivered == ["read"], timeout=2000)
    assert ops.busy()
    release.set()
    assert ops.wait_idle()
