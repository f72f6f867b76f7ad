"""The QE accuracy table in the window: 1,000 resamples on the DFKI de-en suite, and the window's responsiveness.

Setup (not timed): the DFKI de-en suite with the WMT21 outputs, imported with the real importers and labelled,
and two QE systems scored by simple black-box heuristics (output/source length ratio; share of source words
copied into the output), stored with ``suite.qe_scores.save_qe_system``. The DFKI items carry no references,
so no metric proxy can score them.

Timed once, ``first table:``, from showing the QE tab until its table (1,000 resamples) is shown, including
reading the suite's pairs and QE scores. Then ``--rounds`` times on the same tab (offscreen Qt), the median
printed:
- ``accuracy:`` from asking for the table (a new seed) until it is shown: ``pairwise_accuracy`` per category
  with ``--resamples`` item resamples on the pairs and scores the tab read already, the table model (the
  chart is rendered in the background after that);
- ``stall:`` the longest gap between two ticks of a 10 ms QTimer on the main thread meanwhile, less the
  10 ms period: how long the window could not react (repaint, typing, clicks) while the table was computed
  and for half a second after it arrived, while the table and the chart are painted.

Each line also gives the full (oldest-generation) garbage collections meanwhile and the longest of them: one
holds the GIL for as long as it takes to visit every object of the process, so any thread that sets it off
stalls the main thread that long. On a loaded machine the ticks also wait for a core; the collections do not
depend on the load, which makes them the figure to compare between runs.

Before that, ``tabs:`` (``bench/gui_tabs.py``): the whole window opened on the same database, the time until it is
filled, then every tab (and each page that reads on its own) opened in turn, each with its wall time to its table
painted and to everything it started finished (charts included), the main thread's CPU seconds meanwhile, the
longest stall and the load; then the same after a change (one output decided in Review).

Run: ``PYTHONPATH=$PWD QT_QPA_PLATFORM=offscreen python bench/gui_reports.py [--rounds N] [--resamples B] [--no-tabs]``.
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
from functools import partial
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
BENCH = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]  # bench/gui*.py must not shadow gui/
_spec = importlib.util.spec_from_file_location("bench_gui_tabs", BENCH / "gui_tabs.py")
assert _spec is not None and _spec.loader is not None
gui_tabs = sys.modules["bench_gui_tabs"] = importlib.util.module_from_spec(_spec)  # its dataclasses look it up
_spec.loader.exec_module(gui_tabs)  # every tab of the whole window

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from gui.operations import Operations  # noqa: E402
from gui.reports.qe import AccuracyOptions, QETab  # noqa: E402
from gui.state import AppState  # noqa: E402
from qe.outputs import read_suite_outputs  # noqa: E402
from store import Database, open_database  # noqa: E402
from suite.engine.labelling import relabel  # noqa: E402
from suite.importers.outputs import import_outputs  # noqa: E402
from suite.importers.suite_import import import_suite  # noqa: E402
from suite.qe_scores import save_qe_system  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "external"
TICK_MS = 10
AFTER_S = 0.5


def dfki_database(folder: Path) -> Database | None:
    items = DATA / "mt-testsuite" / "testset" / "de-en" / "items.json"
    outputs = DATA / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv"
    if not (items.is_file() and outputs.is_file()):
        return None
    db = open_database(folder / "dfki.sqlite")
    import_suite(db, items, name="de-en")
    import_outputs(db, outputs, suite_name="de-en")
    relabel(db, "de-en")
    suite = read_suite_outputs(db, "de-en")
    ids = suite.output_ids.tolist()
    ratio = {o: len(t.split()) / max(len(s.split()), 1) for o, s, t in zip(ids, suite.sources, suite.texts)}
    copied = {o: -sum(w in set(s.lower().split()) for w in t.lower().split()) / max(len(t.split()), 1)
              for o, s, t in zip(ids, suite.sources, suite.texts)}
    save_qe_system(db, name="length-ratio", kind="imported", higher_is_better=True, scores=ratio,
                   meta={"bench": "output words / source words"})
    save_qe_system(db, name="copy-penalty", kind="imported", higher_is_better=True, scores=copied,
                   meta={"bench": "minus the share of output words copied from the source"})
    return db


class FullCollections:
    """The full garbage collections (generation 2) while it is installed, and how long each took."""

    def __init__(self) -> None:
        self.durations: list[float] = []
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.durations.append(time.perf_counter() - self._started)

    def __str__(self) -> str:
        return f"{len(self.durations)} full collections, longest {max(self.durations, default=0.0):.3f} s"


def measure(tab: QETab, ops: Operations, options: AccuracyOptions,
            start: Callable[[], None]) -> tuple[float, float, FullCollections]:
    longest = 0.0
    clock = QElapsedTimer()
    collections = FullCollections()
    gc.callbacks.append(collections)

    def tick() -> None:
        nonlocal longest
        longest = max(longest, clock.restart() / 1000)

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    clock.start()
    timer.start()
    started = time.perf_counter()
    start()
    while tab.view_data is None or tab.view_data.options != options:
        QCoreApplication.processEvents()
        time.sleep(0.001)
    elapsed = time.perf_counter() - started
    settled = time.perf_counter() + AFTER_S  # the new chart is painted after the table arrives: keep ticking
    while time.perf_counter() < settled:
        QCoreApplication.processEvents()
        time.sleep(0.001)
    timer.stop()
    ops.wait_idle()
    gc.callbacks.remove(collections)
    return elapsed, max(0.0, longest - TICK_MS / 1000), collections


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--no-tabs", action="store_true", help="leave out the whole window's tabs")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        db = dfki_database(Path(folder))
        if db is None:
            print("skipped: the DFKI test suite or the WMT21 outputs are not in ../shared/data/external")
            return
        print(f"setup: DFKI de-en imported, labelled, two QE systems scored in {time.perf_counter() - started:.1f} s")
        if not args.no_tabs:
            print(f"tabs: uptime {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
            print(*gui_tabs.report(Path(folder) / "dfki.sqlite", Path(folder)), sep="\n")
        state = AppState()
        parent = QWidget()
        ops = Operations(state, parent)
        state.open(db, "de-en")
        tab = QETab(state, ops)
        tab.resize(1400, 900)
        first, first_stall, first_collections = measure(tab, ops, AccuracyOptions(bootstrap=1000), tab.show)
        assert tab.view_data is not None, tab.status.text()
        result = tab.view_data.result
        print(f"table: {len(result.rows)} categories, {result.total.amount:,} pairs of {result.total.items:,} items, "
              f"QE systems {', '.join(result.qe_systems)}")
        print(f"first table: {first:.2f} s, longest stall {first_stall:.3f} s (reads the pairs and QE scores), "
              f"{first_collections}")
        times, stalls = [], []
        for seed in range(1, args.rounds + 1):
            options = AccuracyOptions(bootstrap=args.resamples, seed=seed)
            elapsed, stall, collections = measure(tab, ops, options, partial(tab.set_options, options))
            times.append(elapsed)
            stalls.append(stall)
            print(f"round {seed}: {elapsed:.2f} s, longest stall {stall:.3f} s, {collections}")
        print(f"accuracy: {statistics.median(times):.2f} s")
        print(f"stall: {statistics.median(stalls):.3f} s")
        tab.close()
        del tab
        app.processEvents()
        db.close()


if __name__ == "__main__":
    main()
