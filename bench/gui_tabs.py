"""Every tab of the window on DFKI de-en: how long until it is painted, and what the main thread spent on it.

Run by ``bench/gui_reports.py`` (its ``tabs:`` lines) on the database it builds: the DFKI de-en suite with the
WMT21 outputs, labelled, with two QE systems. A ``MainWindow`` (offscreen, 1,280×720, settings in a temporary
folder) opens the database on Review, as a user's first start does; ``window filled:`` is from creating the
window to its title, the suite tree and the review table's first page shown. Then each tab (and each page of a
tab that reads on its own) is opened in turn, and for each the bench prints:

- ``painted``: from the click to the tab's table shown and painted (its reads done; a chart still rendering in the
  background, or the rules being compiled ahead, is not waited for: the table is what the tab shows first);
- ``done``: to every read and write it started finished and painted (those included);
- ``cpu``: the main thread's CPU seconds (``time.thread_time``) until ``painted`` and until ``done``: what the
  window itself did, which a loaded machine does not inflate as it does the wall time;
- ``stall``: the longest gap between two ticks of a 10 ms timer on the main thread, less the period;
- the load average (1 minute) after it.

Then ``after a change:`` one output of the queue decided (pass) in Review, and every tab opened again: each tab
recomputes what the decision concerns.

The wait sleeps until an event comes (``WaitForMoreEvents``, woken by the tick timer), so the bench's own polling
costs the main thread little; the ticks themselves are counted in ``cpu`` (a few ms a second).
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QEventLoop, QSettings, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from gui.main_window import MainWindow

TICK_MS = 10
BACKGROUND_KEYS = ("chart", "compile")
"""A read whose key has one of these in it is work the window does after the table is shown: a chart drawn
below it, the suite's rules compiled ahead of the rule health (``gui.editor.rule_health``)."""


@dataclass(frozen=True)
class Figure:
    name: str
    painted: float
    done: float
    cpu_painted: float
    cpu_done: float
    stall: float
    load: float

    def __str__(self) -> str:
        return (f"{self.name}: painted {self.painted:.2f} s (cpu {self.cpu_painted:.2f} s), done {self.done:.2f} s "
                f"(cpu {self.cpu_done:.2f} s), stall {self.stall:.3f} s; load {self.load:.1f}")


def _pending(holder: list[MainWindow], *, background: bool) -> bool:
    if not holder:
        return True  # the window is being made
    ops = holder[0].ops
    return ops.busy() or any(background or not any(k in (job.key or "") for k in BACKGROUND_KEYS) for job in ops._reads)


def _measure(holder: list[MainWindow], name: str, start: Callable[[], None], shown: Callable[[], bool],
             timeout: float = 300.0) -> Figure:
    """Time ``start()`` until ``shown()`` holds with no read of the table pending, then until nothing is."""
    app = QApplication.instance()
    assert app is not None
    longest = 0.0
    clock = QElapsedTimer()

    def tick() -> None:
        nonlocal longest
        longest = max(longest, clock.restart() / 1000)

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    QCoreApplication.processEvents()
    clock.start()
    timer.start()
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    start()
    deadline = wall0 + timeout

    def until(condition: Callable[[], bool]) -> None:
        while not condition():
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{name}: not shown within {timeout:.0f} s")
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
        QCoreApplication.processEvents()
        holder[0].repaint()  # painted, not just asked to be

    # A tab asks for its reads as it is shown: give the click's events one pass before looking at what is pending.
    QCoreApplication.processEvents()
    until(lambda: shown() and not _pending(holder, background=False))
    painted, cpu_painted = time.perf_counter() - wall0, time.thread_time() - cpu0
    until(lambda: not _pending(holder, background=True))
    done, cpu_done = time.perf_counter() - wall0, time.thread_time() - cpu0
    timer.stop()
    return Figure(name, painted, done, cpu_painted, cpu_done, max(0.0, longest - TICK_MS / 1000),
                  os.getloadavg()[0])


def _page_filled(window: MainWindow) -> bool:
    review = window.review
    table = review.table
    first, last = table.rowAt(0), table.rowAt(table.viewport().height() - 1)
    if review.model.rowCount() == 0 or first < 0:
        return False
    last = review.model.rowCount() - 1 if last < 0 else last
    return review.model.all_cached(first, last)


def _tabs(window: MainWindow) -> list[tuple[str, Callable[[], None], Callable[[], bool]]]:
    """Each tab or page as a user opens it, with what says its table is shown."""
    tabs, review, systems, qe = window.tabs, window.review, window.systems, window.qe
    always: Callable[[], bool] = lambda: True  # noqa: E731 - a page that only shows what its reads bring

    def tab(widget: QWidget, then: Callable[[], None] = lambda: None) -> Callable[[], None]:
        def start() -> None:
            tabs.setCurrentWidget(widget)
            then()
        return start

    return [
        ("Item & rules (rule health of the suite)", tab(window.editor),
         lambda: window.editor.health.model.report is not None),
        ("Review queue", tab(review, lambda: review.show_page("queue")), lambda: _page_filled(window)),
        ("Review my assignments", tab(review, lambda: review.show_page("assignments")), always),
        ("Review disagreements", tab(review, lambda: review.show_page("disagreements")), always),
        ("Systems per category", tab(systems, lambda: systems.by.setCurrentIndex(0)),
         lambda: systems.model.report is not None and systems.model.report.by == "category"),
        ("Systems per phenomenon", tab(systems, lambda: systems.by.setCurrentIndex(1)),
         lambda: systems.model.report is not None and systems.model.report.by == "phenomenon"),
        ("QE accuracy", tab(qe, lambda: qe.pages.setCurrentIndex(0)), lambda: qe.view_data is not None),
        ("QE stability", tab(qe, lambda: qe.pages.setCurrentIndex(1)), lambda: qe.stability is not None),
        ("QE disagreement", tab(qe, lambda: qe.pages.setCurrentIndex(2)), always),
        ("QE chart", tab(qe, lambda: qe.pages.setCurrentIndex(4)), always),
        ("Discriminative", tab(window.discriminative), lambda: window.discriminative.model.rowCount() > 0),
        ("Meta-evaluation", tab(window.meta_eval), always),
    ]


def report(database: Path, folder: Path) -> list[str]:
    """The ``tabs:`` lines for a window opened on ``database`` (settings kept in ``folder``)."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    lines = []
    holder: list[MainWindow] = []

    def open_window() -> None:
        window = MainWindow()
        window.state.set_reviewer("bench")  # the assignments page asks a first reviewer's name
        holder.append(window)
        window.resize(1280, 720)
        window.tabs.setCurrentWidget(window.review)
        window.show()
        window.open_target(str(database))

    def filled() -> bool:
        if not holder:
            return False
        window = holder[0]
        return (window.state.tree is not None and window.tree.model.rowCount() > 0 and "de-en" in window.windowTitle()
                and _page_filled(window))

    lines.append(f"{_measure(holder, 'window filled', open_window, filled)} (title, tree, first review page)")
    window = holder[0]
    for name, start, shown in _tabs(window):
        lines.append(str(_measure(holder, name, start, shown)))
    lines.append("after a change: one output decided (pass) in Review, each tab opened again")
    review = window.review
    window.tabs.setCurrentWidget(review)
    review.show_page("queue")
    window.ops.wait_idle(300_000)
    review.table.setFocus()
    review.set_current_row(0)
    lines.append(str(_measure(holder, "decide (P) in Review", lambda: review.decide("pass"),
                              lambda: _page_filled(window))))
    for name, start, shown in _tabs(window)[:1] + _tabs(window)[4:]:
        lines.append(str(_measure(holder, name, start, shown)))
    window.close()
    window.deleteLater()
    return lines
