"""The status bar and the progress dialog while jobs run (issue 28): one job line, replaced by the job's message
when it ends; messages that clear; nothing that moves while a job runs; the last message whole on hover; a
progress dialog whose Cancel stays put whether its phase has a message or not."""
from __future__ import annotations

import threading

import pytest
from PySide6.QtWidgets import QApplication, QProgressDialog, QPushButton
from pytestqt.qtbot import QtBot

from gui.main_window import MainWindow
from gui.operations import Operations, Write, changes_nothing
from gui.window import status
from suite.tasks import TaskState


def _slow(window: MainWindow, title: str, steps: list[str], release: threading.Event,
          advanced: threading.Event | None = None, *, quiet: bool = False) -> None:
    def work(task: TaskState) -> None:
        for number, message in enumerate(steps):
            task.progress(number, len(steps), message)
            if advanced is not None:
                advanced.set()
            release.wait(5)
            release.clear()

    Write(title, work, said=lambda _: "did it", changes=changes_nothing, quiet=quiet).run(window.ops)


class _Finished:
    """Lets the job run to its end whatever happens in the test (a window closed while a job runs asks first)."""

    def __init__(self, window: MainWindow, release: threading.Event) -> None:
        self.window, self.release = window, release

    def __enter__(self) -> _Finished:
        return self

    def __exit__(self, *_: object) -> None:
        while self.window.ops.busy():
            self.release.set()
            QApplication.processEvents()


def _geometry(window: MainWindow) -> list[tuple[int, int]]:
    return [(w.x(), w.width()) for w in (window.counts_label, window.review_label, window.job_bar)]


def test_one_job_line_replaced_by_its_message_and_nothing_moves(qtbot: QtBot, window: MainWindow) -> None:
    bar = window.statusBar()
    window.show_message("opening demo.sqlite: 1 suite")
    assert bar.currentMessage() == "opening demo.sqlite: 1 suite"
    release, advanced = threading.Event(), threading.Event()
    _slow(window, "importing outputs from x.tsv", ["reading", "", "writing MT outputs"], release, advanced)
    with _Finished(window, release):
        _watch_job(qtbot, window, release, advanced)
    QApplication.processEvents()
    assert bar.currentMessage() == "importing outputs from x.tsv: did it"
    assert window.job_label.text() == "" and not window.job_bar.isVisible()
    assert bar.toolTip() == "importing outputs from x.tsv: did it"  # the whole text, however narrow the bar


def _watch_job(qtbot: QtBot, window: MainWindow, release: threading.Event,
               advanced: threading.Event) -> None:
    bar = window.statusBar()
    qtbot.waitUntil(lambda: window.job_label.text() == "importing outputs from x.tsv…")
    assert bar.currentMessage() == ""  # the job has the line, not the message of what came before
    qtbot.waitUntil(lambda: window.job_bar.isVisible())
    QApplication.processEvents()
    placed = _geometry(window)
    for _ in range(2):
        advanced.clear()
        release.set()
        qtbot.waitUntil(advanced.is_set)
        QApplication.processEvents()
        assert _geometry(window) == placed
    window.ops.message.emit("copied 3 rows")  # a screen speaks while the job runs: it covers the job line for a
    QApplication.processEvents()              # while, and the counts stay put
    assert window.statusBar().currentMessage() == "copied 3 rows"
    assert _geometry(window)[:2] == placed[:2]


def test_messages_clear_but_their_text_stays_on_hover(qtbot: QtBot, window: MainWindow,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status, "MESSAGE_MS", 200)
    long = "saving: " + "a very long message about what was saved " * 8
    window.show_message(long)
    assert window.statusBar().currentMessage() == long
    qtbot.waitUntil(lambda: window.statusBar().currentMessage() == "", timeout=2000)
    assert window.statusBar().toolTip() == long


def test_a_job_the_window_runs_by_itself_leaves_the_users_message(qtbot: QtBot, window: MainWindow) -> None:
    window.ops.message.emit("importing QE scores from x.tsv: 278 scores")
    release = threading.Event()
    release.set()
    _slow(window, "scoring with label", ["scoring"], release, quiet=True)
    assert window.ops.wait_idle()
    assert "scoring with label" not in window.statusBar().toolTip()
    assert "scoring with label" not in window.statusBar().currentMessage()


def _dialog(ops: Operations) -> QProgressDialog:
    parent = ops.parent()
    assert parent is not None
    return next(d for d in parent.findChildren(QProgressDialog) if d.isVisible())


def test_the_progress_dialog_keeps_its_height_and_cancel_its_place(qtbot: QtBot, window: MainWindow) -> None:
    release, advanced = threading.Event(), threading.Event()
    long = "labelling item 1,204 of 2,767 in the category Named entity & terminology, phenomenon Measuring unit"
    _slow(window, "labelling", ["", long, "", "writing labels"], release, advanced)
    with _Finished(window, release):
        _watch_dialog(qtbot, window, release, advanced)


def _watch_dialog(qtbot: QtBot, window: MainWindow, release: threading.Event,
                  advanced: threading.Event) -> None:
    parent = window.ops.parent()
    assert parent is not None
    qtbot.waitUntil(lambda: any(d.isVisible() for d in parent.findChildren(QProgressDialog)),
                    timeout=3000)
    dialog = _dialog(window.ops)
    cancel = dialog.findChild(QPushButton)
    assert cancel is not None
    seen = set()
    for _ in range(3):
        QApplication.processEvents()
        seen.add((dialog.height(), cancel.mapTo(dialog, cancel.rect().topLeft()).y()))
        advanced.clear()
        release.set()
        qtbot.waitUntil(advanced.is_set)
        qtbot.wait(50)
    assert len(seen) == 1, seen
