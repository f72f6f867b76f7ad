"""The editor's live preview: a keystroke in a pattern field to the repainted preview of an item with 100 outputs.

Setup (not timed): the demo suite in a fresh SQLite database, plus distinct outputs for ``amb-01`` until it has
``--outputs`` of them (variations of its real outputs); an ``ItemEditorScreen`` (offscreen Qt) showing it.

Timed, per keystroke: one character typed into the positive pattern field (``QTest.keyClick``: the field, the
draft, the model and the underline update), the preview computed on the operations' worker thread
(``suite.engine.preview.PreviewSession``, whose read of the item's outputs is cached between keystrokes as in the
editor), delivered to the main thread and the preview table repainted. The clock stops when Qt has painted the
rows that changed (its own update, the end of the paint event) or, when no row changed, when the preview
arrived. The 150 ms debounce that the editor waits while the linguist is still typing is not part of the
figure (the bench starts the preview at once); a linguist sees the preview ``debounce + preview`` after the
last keystroke. Prints the median and the worst
of the keystrokes; run it three times on a shared machine and take the median.

Run: ``QT_QPA_PLATFORM=offscreen PYTHONPATH=$PWD python bench/gui_editor.py [--outputs N] [--keystrokes N]``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path, where bench/gui.py would stand for the gui package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QObject, Qt, QTimer  # noqa: E402 - after the sys.path fix above
from PySide6.QtTest import QTest  # noqa: E402 - after the sys.path fix above
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402 - after the sys.path fix above

from gui.editor.screen import ItemEditorScreen  # noqa: E402 - after the sys.path fix above
from gui.operations import Operations  # noqa: E402 - after the sys.path fix above
from gui.state import AppState, Selection  # noqa: E402 - after the sys.path fix above
from store import open_database  # noqa: E402 - after the sys.path fix above
from store.domain import Polarity  # noqa: E402 - after the sys.path fix above
from suite.demo import DEMO_SUITE, create_demo  # noqa: E402 - after the sys.path fix above
from suite.editing.api import find_item  # noqa: E402 - after the sys.path fix above
from suite.engine.preview import ItemPreview  # noqa: E402 - after the sys.path fix above
from suite.importers import import_outputs  # noqa: E402 - after the sys.path fix above

ITEM = "amb-01"
PATTERN = r"\b(bench|seat|river)\b"


def _with_outputs(directory: Path, outputs: int) -> Path:
    path = directory / "bench.sqlite"
    db = open_database(path)
    create_demo(db)
    lines = ["item_id\tsystem\toutput"]
    bases = ["The bench on the riverbank had been freshly painted", "The bank at the river shore was painted",
             "The seat by the river had been freshly varnished", "The bench by the water was newly painted"]
    for number in range(outputs - 4):
        lines.append(f"{ITEM}\tBench-{number + 1}\t{bases[number % 4]} ({number + 1}).")
    (directory / "outputs.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_outputs(db, directory / "outputs.tsv", suite_name=DEMO_SUITE)
    db.close()
    return path


@dataclass(frozen=True)
class Keystroke:
    total: float
    """From the keystroke to the repainted preview."""
    core: float
    """Of which ``PreviewSession.preview`` on the worker thread (the rest: Qt, the thread hops, painting)."""
    cpu: float
    """CPU time of the whole process (every thread) meanwhile: the work itself, whatever else the machine runs."""


class _PaintWatch(QObject):
    """Notes when the preview table has finished painting."""

    def __init__(self, painted: list[float]) -> None:
        super().__init__()
        self._painted = painted

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, lambda: self._painted.append(time.perf_counter()))
        return False


def preview_seconds(outputs: int = 100, keystrokes: int = 20) -> list[Keystroke]:
    """Each keystroke's time to the repainted preview of an item with ``outputs`` distinct outputs."""
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as directory:
        db = open_database(_with_outputs(Path(directory), outputs))
        state = AppState()
        state.open(db, DEMO_SUITE)
        parent = QWidget()
        ops = Operations(state, parent)
        screen = ItemEditorScreen(state, ops)
        screen.resize(1400, 900)
        screen.show()
        state.select(Selection(item_id=find_item(db, ITEM, DEMO_SUITE)))
        ops.wait_idle()
        assert screen.last_preview is not None and len(screen.last_preview.outputs) == outputs, "setup failed"
        editor = screen.rule_lists[Polarity.POSITIVE].editor(0)
        assert editor is not None
        previews = screen.previews
        assert previews is not None
        core: list[float] = []
        compute = previews.preview

        def timed(*args: Any, **kwargs: Any) -> ItemPreview:
            start = time.perf_counter()
            try:
                return compute(*args, **kwargs)
            finally:
                core.append(time.perf_counter() - start)

        previews.preview = timed  # type: ignore[method-assign]
        changed: list[bool] = []
        screen.preview.model.dataChanged.connect(lambda *_: changed.append(True))
        screen.preview.model.modelReset.connect(lambda: changed.append(True))
        painted: list[float] = []
        watch = _PaintWatch(painted)
        screen.preview.view.viewport().installEventFilter(watch)
        editor.setFocus()
        editor.selectAll()
        QTest.keyClick(editor, Qt.Key.Key_Delete)
        ops.wait_idle()
        times: list[Keystroke] = []
        for character in (PATTERN * (keystrokes // len(PATTERN) + 1))[:keystrokes]:
            ops.wait_idle()
            before = screen.last_preview
            core.clear()
            start, cpu = time.perf_counter(), time.process_time()
            QTest.keyClicks(editor, character)
            screen.start_preview()
            changed.clear()
            while screen.last_preview is before:  # idle in the event loop, as the editor is between keystrokes
                QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)
            arrived = time.perf_counter()
            painted.clear()
            while changed and not painted:  # the rows that changed are repainted by Qt's own update
                QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
            times.append(Keystroke((painted[-1] if changed else arrived) - start, core[-1],
                                   time.process_time() - cpu))
            if len(times) % len(PATTERN) == 0:
                editor.selectAll()
                QTest.keyClick(editor, Qt.Key.Key_Delete)
        ops.wait_idle()
        screen.close()
        db.close()
    del app
    return times


def report(outputs: int = 100, keystrokes: int = 40) -> list[str]:
    """The measurement as printed lines, ending with ``preview: <s> s``; bench/gui.py prints them too."""
    times = preview_seconds(outputs, keystrokes)
    total = [t.total for t in times]
    return [f"outputs: {outputs}, keystrokes: {len(times)}, load average: {os.getloadavg()[0]:.1f}",
            (f"core: {statistics.median(t.core for t in times):.4f} s, gui: "
             f"{statistics.median(t.total - t.core for t in times):.4f} s, cpu: "
             f"{statistics.median(t.cpu for t in times):.4f} s (medians)"),
            f"preview: {statistics.median(total):.4f} s (median; worst {max(total):.4f} s; target < 0.05 s)"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=int, default=100)
    parser.add_argument("--keystrokes", type=int, default=40)
    args = parser.parse_args()
    print("\n".join(report(args.outputs, args.keystrokes)))


if __name__ == "__main__":
    main()
