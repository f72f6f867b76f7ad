"""The desktop window's speed on a large suite: open, filter, preview, scroll.

Setup (not timed): the DFKI de-en suite with the WMT21 outputs (imported with the real importers, labelled),
and a database of at least ``--outputs`` distinct outputs built by ``bench/label.py``'s builder (its copies of
every WMT21 output) and labelled; the big one is kept in ``--cache`` and reused by later runs.

Timed, ``--rounds`` times each on a new window (offscreen Qt), the median printed:
- ``open:`` from creating the window to the window shown with the suite tree and the first page of the review
  table filled (every visible row fetched);
- ``filter:`` choosing the label filter "fail" until the new first page is painted;
- ``scroll:`` paging through 2,000 rows of the review table, each page fetched and painted;
- ``search:`` typing ``SEARCHES`` into the suite tree's search, a key at a time as a person types: each keystroke
  from the key event to the tree repainted with that text's result (the slowest keystroke of the round is printed
  as well as the median, since one stall is what a user notices).

Between rounds the closed window is deleted and collected, so that a round does not carry the objects of the
windows before it (Qt deletes a closed window only when its deferred deletions are processed).
``preview:`` is ``bench/gui_editor.py``'s figure (a keystroke in the item editor to the repainted live preview of
an item with 100 outputs), printed last with its own lines. Each figure's line ends with the load average (1 minute)
after it: on a shared machine the figures mean little without it; and beside each wall time, the main thread's CPU
seconds (``time.thread_time``: the window's own work, which a loaded machine inflates far less than the wall time).

Run: ``PYTHONPATH=$PWD QT_QPA_PLATFORM=offscreen python bench/gui.py [--outputs N] [--rounds N] [--cache PATH]``.
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
BENCH = Path(__file__).resolve().parent
# This file's own folder comes first on sys.path, where it would stand for the ``gui`` package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
_spec = importlib.util.spec_from_file_location("bench_label", BENCH / "label.py")
assert _spec is not None and _spec.loader is not None
label = sys.modules["bench_label"] = importlib.util.module_from_spec(_spec)  # its dataclasses look it up
_spec.loader.exec_module(label)  # bench/label.py's builder of a million-output suite
ITEMS, OUTPUTS, load = label.ITEMS, label.OUTPUTS, label.load
_spec = importlib.util.spec_from_file_location("bench_gui_editor", BENCH / "gui_editor.py")
assert _spec is not None and _spec.loader is not None
gui_editor = sys.modules["bench_gui_editor"] = importlib.util.module_from_spec(_spec)  # its dataclasses look it up
_spec.loader.exec_module(gui_editor)  # bench/gui_editor.py's live-preview keystroke

from PySide6.QtCore import QCoreApplication, QEvent, QSettings  # noqa: E402  (after the sys.path fix above)
from PySide6.QtTest import QTest  # noqa: E402  (after the sys.path fix above)
from PySide6.QtWidgets import QApplication  # noqa: E402  (after the sys.path fix above)

from gui.app import application  # noqa: E402  (after the sys.path fix above)
from gui.main_window import MainWindow  # noqa: E402  (after the sys.path fix above)
from store import open_database  # noqa: E402  (after the sys.path fix above)
from suite.engine.labelling import relabel  # noqa: E402  (after the sys.path fix above)
from suite.importers.outputs import import_outputs  # noqa: E402  (after the sys.path fix above)
from suite.importers.suite_import import import_suite  # noqa: E402  (after the sys.path fix above)

SCROLL_ROWS = 2000
SEARCHES = ("00544005", "Hausaufgaben")
"""An item id and a word of a source sentence: what issue 16 typed (the window froze 4 s and 6 s)."""
TYPING_PAUSE = 0.15
"""Seconds between keys, about a person's typing speed: each keystroke is searched on its own."""


def wait(condition: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the window did not get there in time")
        QCoreApplication.processEvents()
        time.sleep(0.001)


def page_filled(window: MainWindow) -> bool:
    review = window.review
    first, last = review.table.rowAt(0), review.table.rowAt(review.table.viewport().height() - 1)
    if review.model.rowCount() and first < 0:
        return False
    last = review.model.rowCount() - 1 if last < 0 else last
    return not window.ops.busy() and review.model.all_cached(first, last)


def search_keystrokes(window: MainWindow) -> list[float]:
    """Seconds from each key typed into the tree's search to the tree repainted with its result."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    pane = window.tree
    times = []
    for query in SEARCHES:
        pane.search.clear()
        pane.search.setFocus()
        wait(lambda: pane.shown_view.query == "" and not window.ops._reads)
        for key in query:
            pause = time.monotonic() + TYPING_PAUSE
            while time.monotonic() < pause:
                app.processEvents()
                time.sleep(0.005)
            started = time.perf_counter()
            QTest.keyClicks(pane.search, key)
            wanted = pane.search.text().strip()
            wait(lambda wanted=wanted: pane.shown_view.query == wanted)  # type: ignore[misc]
            pane.view.viewport().repaint()
            times.append(time.perf_counter() - started)
    pane.search.clear()
    return times


Timed = tuple[float, float]
"""Wall seconds and the main thread's CPU seconds."""


def since(started: float, cpu: float) -> Timed:
    return time.perf_counter() - started, time.thread_time() - cpu


def measure(target: str) -> tuple[Timed, Timed, Timed, list[float]]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    started, cpu = time.perf_counter(), time.thread_time()
    window = MainWindow()
    window.resize(1500, 900)
    window.tabs.setCurrentWidget(window.review)
    window.show()
    window.open_target(target)
    wait(lambda: window.state.tree is not None and window.review.model.rowCount() > 0 and page_filled(window))
    app.processEvents()  # paint
    opened = since(started, cpu)

    review = window.review
    started, cpu = time.perf_counter(), time.thread_time()
    review.label_box.setCurrentText("fail")
    wait(lambda: review.model.filter.label == "fail" and review.model.rowCount() > 0
         and review.count_label.text() != "" and page_filled(window)
         and review.model.cached(0) is not None and review.model.cached(0).effective_label == "fail")  # type: ignore[union-attr]
    app.processEvents()
    filtered = since(started, cpu)

    review.label_box.setCurrentText("any label")
    window.ops.wait_idle(600_000)  # the query for every output has come back, not just been asked
    wait(lambda: page_filled(window) and review.model.rowCount() > SCROLL_ROWS)
    started, cpu = time.perf_counter(), time.thread_time()
    bar = review.table.verticalScrollBar()
    while review.table.rowAt(review.table.viewport().height() - 1) < SCROLL_ROWS:
        bar.setValue(bar.value() + bar.pageStep())
        app.processEvents()
        wait(lambda: page_filled(window))
    scrolled = since(started, cpu)
    searched = search_keystrokes(window)
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
    return opened, filtered, scrolled, searched


def big_database(cache: Path, outputs: int) -> Path:
    if cache.exists():
        return cache
    partial = cache.with_suffix(".building")
    partial.unlink(missing_ok=True)
    started = time.perf_counter()
    db, _, copies = load(partial, "de-en", outputs)
    relabel(db)  # type: ignore[attr-defined]
    db.close()  # type: ignore[attr-defined]
    partial.rename(cache)
    print(f"setup: {copies} copies of each WMT21 output, labelled, {time.perf_counter() - started:.1f} s -> {cache}")
    return cache


def dfki_database(folder: Path) -> Path | None:
    items, outputs = Path(str(ITEMS).format(lp="de-en")), Path(str(OUTPUTS).format(lp="de-en"))
    if not items.is_file() or not outputs.is_file():
        return None
    path = folder / "dfki.sqlite"
    db = open_database(path)
    import_suite(db, items, name="de-en")
    import_outputs(db, outputs, suite_name="de-en")
    relabel(db, "de-en")
    db.close()
    return path


def load_average() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def report(name: str, target: Path, rounds: int) -> None:
    runs = [measure(str(target)) for _ in range(rounds)]
    figures = [[opened for opened, _, _, _ in runs], [filtered for _, filtered, _, _ in runs],
               [scrolled for _, _, scrolled, _ in runs]]
    for label, values in zip(("open", "filter", "scroll"), figures, strict=True):
        walls, cpus = [wall for wall, _ in values], [cpu for _, cpu in values]
        print(f"{name} {label}: {statistics.median(walls):.2f} s, main thread cpu {statistics.median(cpus):.2f} s  "
              f"(rounds: {' '.join(f'{w:.2f}/{c:.2f}' for w, c in values)}; {load_average()})")
    keystrokes = [[1000 * t for t in searched] for _, _, _, searched in runs]
    every = [t for round_ in keystrokes for t in round_]
    print(f"{name} search keystroke to repainted tree: median {statistics.median(every):.0f} ms, slowest "
          f"{max(every):.0f} ms (slowest per round: {' '.join(f'{max(r):.0f}' for r in keystrokes)} ms; "
          f"{len(every)} keystrokes typing {' and '.join(SEARCHES)}; target < 100 ms; {load_average()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "tsqe-bench-gui-1M.sqlite")
    args = parser.parse_args()
    application()
    with tempfile.TemporaryDirectory() as folder:
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, folder)
        dfki = dfki_database(Path(folder))
        if dfki is not None:
            report("dfki de-en (WMT21 outputs):", dfki, args.rounds)
        big = big_database(args.cache, args.outputs)
        report(f"{args.outputs:,} outputs:", big, args.rounds)
        print("editor live preview (bench/gui_editor.py):", *gui_editor.report(), sep="\n")


if __name__ == "__main__":
    main()
