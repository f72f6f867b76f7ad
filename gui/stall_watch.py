"""How long the window's thread was kept from answering: a heartbeat that notes every late beat.

Set ``TSQE_STALL_LOG=FILE`` and ``tsqe-gui`` writes, when it quits, every gap between two beats longer than
``REPORTED_MS`` with the wall time it ended at and the CPU time the window's thread spent in it, as JSON lines.
A gap the thread spent computing is the window's own stall; a gap without CPU time is the machine not running it
(another process had the cores). The real-window test types into the suite tree's search and reads it (issue 16:
typing an id froze the window for 4 s).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QTimer

BEAT_MS = 10
REPORTED_MS = 50
ENVIRONMENT = "TSQE_STALL_LOG"


class StallWatch(QObject):
    def __init__(self, out: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.out = out
        self.gaps: list[dict[str, float]] = []
        self._wall = time.monotonic()
        self._cpu = time.thread_time()
        self._timer = QTimer(self)
        self._timer.setInterval(BEAT_MS)
        self._timer.timeout.connect(self._beat)
        self._timer.start()

    def _beat(self) -> None:
        wall, cpu = time.monotonic(), time.thread_time()
        gap = 1000 * (wall - self._wall) - BEAT_MS
        if gap > REPORTED_MS:
            self.gaps.append({"at": time.time(), "gap_ms": round(gap, 1),
                              "cpu_ms": round(1000 * (cpu - self._cpu), 1)})
        self._wall, self._cpu = wall, cpu

    def write(self) -> None:
        self.out.write_text("".join(json.dumps(gap) + "\n" for gap in self.gaps), encoding="utf-8")


def watch_stalls(app: QCoreApplication) -> StallWatch | None:
    """A watch writing to ``$TSQE_STALL_LOG`` when the application quits; None when it is not set."""
    out = os.environ.get(ENVIRONMENT)
    if not out:
        return None
    watch = StallWatch(Path(out), app)
    app.aboutToQuit.connect(watch.write)
    return watch
