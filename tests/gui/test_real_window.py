"""Issue 16's walk-through in a real window: ``tsqe-gui`` on a copy of the demo under Xvfb (Qt's xcb platform, not
offscreen), driven only by key presses sent with xdotool, checked in the database it writes, in what it puts on the
clipboard and in the windows it opens.

- edit a rule and quit: the window asks (Save all / Discard / Cancel); Escape keeps it open with the draft; Save
  all stores the rule, then it quits;
- review 20 outputs of the not-reviewed queue and undo 3: the same rows in the same order (the list is not read
  again), the 3 decisions gone, nothing else in the database changed;
- edit a rule, wait for the autosave, kill the process: the next start offers the draft back, and nothing was
  saved by itself;
- type an item id and a word into the suite tree's search, at a person's speed, on DFKI de-en with the WMT21
  outputs (the demo without ``../shared``) on a 1,280×720 screen: the window's thread never freezes (its stall
  watch, ``gui.stall_watch``, logs every gap; typing an id froze the window for 4 s before). The speed target, a
  keystroke under 0.1 s, is a figure ``bench/gui.py`` prints (``search:``), not a test: on CI's shared 2-core
  machine one keystroke measured 103 ms of the window's CPU, and a timed test would fail on the machine's load.

``RealWindow`` starts an X server of its own (``Xvfb -displayfd``: a free display, never another session's) and the
application with its own settings, and sends keys; other walk-throughs (the tree search of issue 16) add to this
module. Skipped, with the reason, where Xvfb, xdotool, ImageMagick or Qt's X11 libraries are missing: ``make test``
installs them first when it runs as root (``gui/check_platform.py --walkthrough``).
"""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from table_dump import dump

from gui.check_platform import missing_libraries, xcb_plugin
from store import Database, open_database
from store.models import ManualLabel
from suite.demo import DEMO_SUITE
from suite.editing.api import find_item, item_detail
from tests.conftest import SHARED_DATA

REVIEWER = "Walk Through"
TOOLS = ("Xvfb", "xdotool", "import")
GUI = Path(sys.executable).with_name("tsqe-gui")


def _missing() -> str | None:
    absent = [tool for tool in TOOLS if shutil.which(tool) is None]
    if absent:
        return f"{', '.join(absent)} not installed (make test installs them as root: gui/check_platform.py)"
    if missing_libraries(xcb_plugin()):
        return "Qt's X11 libraries are missing (gui/check_platform.py installs them as root)"
    if not GUI.exists():
        return f"{GUI} is not installed"
    return None


pytestmark = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"waited {timeout:.0f} s for {what}")


class RealWindow:
    """An X server of its own and ``tsqe-gui`` on it, with settings and autosaves in ``home``."""

    def __init__(self, home: Path, size: str = "1600x1000", *, reviewer_known: bool = True) -> None:
        self.home = home
        (home / "config" / "tsqe").mkdir(parents=True, exist_ok=True)
        if reviewer_known:
            (home / "config" / "tsqe" / "tsqe.conf").write_text(f"[review]\nreviewer={REVIEWER}\n",
                                                               encoding="utf-8")
        read, write = os.pipe()
        self.server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", f"{size}x24",
                                        "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as numbers:
            self.display = f":{numbers.readline().strip()}"
        self.env = {**os.environ, "DISPLAY": self.display, "QT_QPA_PLATFORM": "xcb",
                    "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data"),
                    "TSQE_USER": "login-name"}
        self.app: subprocess.Popen[bytes] | None = None
        self.shots = 0

    def start(self, database: Path) -> None:
        self.app = subprocess.Popen([str(GUI), str(database)], env=self.env, stdout=subprocess.DEVNULL,
                                    stderr=(self.home / "gui.log").open("ab"))
        self.main_window()
        self.settle()

    def running(self) -> bool:
        return self.app is not None and self.app.poll() is None

    def _xdotool(self, *args: str) -> str:
        return subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True,
                              check=False).stdout.strip()

    def windows(self, name: str) -> list[str]:
        """The ids of the application's windows whose title matches ``name`` (a regular expression)."""
        return self._xdotool("search", "--onlyvisible", "--name", name).split()

    def title(self, window: str) -> str:
        return self._xdotool("getwindowname", window)

    def main_window(self) -> str:
        return wait_until(lambda: self.windows("^tsqe — ")[:1], 90, "the main window")[0]

    def focus(self, window: str | None = None) -> None:
        """Give ``window`` (the main one) the keyboard, as a click would: there is no window manager to do it."""
        self._xdotool("windowfocus", "--sync", window or self.main_window())

    def key(self, *keys: str, delay_ms: int = 120) -> None:
        self._xdotool("key", "--delay", str(delay_ms), *keys)

    def type(self, text: str, delay_ms: int = 60) -> None:
        self._xdotool("type", "--delay", str(delay_ms), text)

    def screenshot(self, name: str) -> Path:
        self.shots += 1
        path = self.home / f"{self.shots:02d}-{name}.png"
        subprocess.run(["import", "-window", "root", str(path)], env=self.env, check=True, capture_output=True)
        return path

    def settle(self, timeout: float = 60) -> None:
        """Until two pictures of the screen a second apart are the same: the window has drawn what its background
        reads brought (the suite tree, the review table) and waits for keys."""
        previous: list[bytes] = [b""]

        def still() -> bool:
            time.sleep(1)
            picture = self.screenshot("settling").read_bytes()
            same, previous[0] = picture == previous[0], picture
            return same

        wait_until(still, timeout, "the window to settle")

    def clipboard(self) -> str:
        """What the application put on the clipboard (read by a small Qt program on the same display)."""
        script = ("import sys; from PySide6.QtGui import QGuiApplication; app = QGuiApplication(sys.argv); "
                  "sys.stdout.write(QGuiApplication.clipboard().text())")
        return subprocess.run([sys.executable, "-c", script], env=self.env, capture_output=True, text=True,
                              check=True, timeout=60).stdout

    def wait_exit(self, timeout: float = 60) -> int:
        assert self.app is not None
        return self.app.wait(timeout)

    def kill(self) -> None:
        if self.running():
            assert self.app is not None
            self.app.send_signal(signal.SIGKILL)
            self.app.wait(30)

    def close(self) -> None:
        self.kill()
        self.server.terminate()
        self.server.wait(30)


@pytest.fixture
def real_window(tmp_path: Path) -> Iterator[RealWindow]:
    window = RealWindow(tmp_path)
    try:
        yield window
    finally:
        window.close()


@pytest.fixture
def demo_file(demo_template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "demo.sqlite"
    shutil.copyfile(demo_template, path)
    return path


def _rules(path: Path, external_id: str) -> list[str]:
    db = open_database(path)
    try:
        return [rule.spec.pattern for rule in item_detail(db, find_item(db, external_id, DEMO_SUITE)).rules]
    finally:
        db.close()


def _edit_the_first_rows_item(window: RealWindow, pattern: str) -> None:
    """From Review's first row, E opens its item (amb-01) in Item & rules; Ctrl+Shift+N adds a negative rule."""
    window.focus()
    window.key("ctrl+Home", "e")
    window.settle()
    window.key("ctrl+shift+n")
    window.type(pattern)
    wait_until(lambda: window.title(window.main_window()).endswith("*"), 20, "the title's unsaved mark")


def test_edit_a_rule_and_quit_the_window_asks(real_window: RealWindow, demo_file: Path) -> None:
    real_window.start(demo_file)
    _edit_the_first_rows_item(real_window, r"\bshore\b")
    real_window.screenshot("unsaved-rule")
    assert real_window.title(real_window.main_window()) == "tsqe — tsqe-demo-de-en · demo.sqlite*"

    real_window.key("ctrl+q")
    [asked] = wait_until(lambda: real_window.windows("unsaved changes"), 30, "the question about unsaved changes")
    real_window.screenshot("asked-on-quit")
    real_window.focus(asked)
    real_window.key("Escape")  # Cancel: nothing closes, nothing is lost
    wait_until(lambda: not real_window.windows("unsaved changes"), 20, "the question to go")
    time.sleep(1)
    assert real_window.running() and real_window.title(real_window.main_window()).endswith("*")
    assert r"\bshore\b" not in _rules(demo_file, "amb-01")

    real_window.focus()
    real_window.key("ctrl+q")
    [asked] = wait_until(lambda: real_window.windows("unsaved changes"), 30, "the question, again")
    real_window.focus(asked)
    real_window.key("Return")  # Save all, the default
    assert real_window.wait_exit() == 0
    assert r"\bshore\b" in _rules(demo_file, "amb-01")


def _copied_rows(window: RealWindow, count: int) -> list[dict[str, str]]:
    """The first ``count`` rows of the review table, as its Copy (Ctrl+C) puts them on the clipboard."""
    window.focus()
    window.key("ctrl+Home", *["shift+Down"] * (count - 1), "ctrl+c", delay_ms=60)
    text = wait_until(lambda: (copied := window.clipboard()).count("\n") == count + 1 and copied, 30,
                      f"{count} rows on the clipboard")
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


def _reviews(path: Path) -> dict[int, str]:
    db = open_database(path)
    try:
        with db.session() as session:
            return dict(session.execute(select(ManualLabel.output_id, ManualLabel.label)
                                        .where(ManualLabel.reviewer == REVIEWER)).all())
    finally:
        db.close()


def test_the_name_asked_at_the_first_p_then_every_p_decides(tmp_path: Path, demo_file: Path) -> None:
    """Without a window manager no window was active after the name dialog: of ten P presses one decided, and the
    other nine moved the cursor by the table's keyboard search (2026-12-03)."""
    window = RealWindow(tmp_path / "home", size="1280x720", reviewer_known=False)
    try:
        window.start(demo_file)
        window.focus()
        window.key("ctrl+f", *["shift+Tab"] * 4, "n", "ctrl+2")  # show: not reviewed; the keys back to the table
        window.settle()
        window.key("p")
        [asked] = wait_until(lambda: window.windows("reviewer"), 30, "the reviewer's name asked")
        window.focus(asked)
        window.key("ctrl+a")
        window.type(REVIEWER)
        window.key("Return")
        wait_until(lambda: len(_reviews(demo_file)) == 1, 30, "the first decision")
        window.key(*["p"] * 9, delay_ms=400)
        wait_until(lambda: len(_reviews(demo_file)) == 10, 60, "ten decisions stored")
        window.screenshot("ten-decided")
        window.key("ctrl+q")
        assert window.wait_exit() == 0
    finally:
        window.close()


def _db_dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    db: Database = open_database(path)
    try:
        return dump(db)
    finally:
        db.close()


def test_review_20_outputs_and_undo_3_keeps_the_rows_and_takes_only_the_decisions_back(
        real_window: RealWindow, demo_file: Path) -> None:
    before = _db_dump(demo_file)
    real_window.start(demo_file)
    real_window.focus()
    real_window.key("ctrl+f", *["shift+Tab"] * 4, "n", "ctrl+2")  # show: not reviewed; the keys back to the table
    real_window.settle()
    real_window.key(*["p"] * 20, delay_ms=250)
    wait_until(lambda: len(_reviews(demo_file)) == 20, 60, "20 decisions stored")
    real_window.settle()
    decided = _copied_rows(real_window, 25)
    real_window.screenshot("20-decided")

    real_window.key(*["ctrl+z"] * 3, delay_ms=400)
    wait_until(lambda: len(_reviews(demo_file)) == 17, 60, "3 decisions taken back")
    real_window.settle()
    real_window.screenshot("3-undone")
    undone = _copied_rows(real_window, 25)

    assert [row["output_id"] for row in undone] == [row["output_id"] for row in decided]  # the same rows
    assert [row["manual_label"] for row in decided] == ["pass"] * 20 + [""] * 5
    assert [row["manual_label"] for row in undone] == ["pass"] * 17 + [""] * 8
    unchanged = [key for key in decided[0] if key not in ("manual_label", "reviewer", "reviewed_at", "comment",
                                                          "effective_label", "manual_version")]
    assert [{k: row[k] for k in unchanged} for row in undone] == [{k: row[k] for k in unchanged} for row in decided]
    assert set(_reviews(demo_file)) == {int(row["output_id"]) for row in decided[:17]}

    real_window.focus()
    real_window.key("ctrl+q")
    assert real_window.wait_exit() == 0  # nothing unsaved: no question
    after = _db_dump(demo_file)
    changed = sorted(table for table in before if before[table] != after[table])
    assert changed == ["history", "item_review_counts", "manual_labels"]  # nothing else (the counts follow the reviews)
    assert len(after["manual_labels"]) == len(before["manual_labels"]) + 17
    assert len(after["history"]) == len(before["history"]) + 23  # 20 decisions, 3 taken back


def test_a_killed_window_offers_its_unsaved_rule_back_at_the_next_start(real_window: RealWindow,
                                                                       demo_file: Path) -> None:
    real_window.start(demo_file)
    _edit_the_first_rows_item(real_window, r"\bbankside\b")
    time.sleep(32)  # the autosave's half minute
    real_window.kill()
    assert r"\bbankside\b" not in _rules(demo_file, "amb-01")

    real_window.start(demo_file)
    [offer] = wait_until(lambda: real_window.windows("unsaved changes found"), 30, "the offer of the drafts")
    real_window.screenshot("offered-back")
    real_window.focus(offer)
    real_window.key("Return")  # Restore, the default
    wait_until(lambda: real_window.title(real_window.main_window()).endswith("*"), 30, "the restored draft")
    real_window.focus()
    real_window.key("ctrl+1")
    real_window.settle()
    real_window.screenshot("restored-draft")
    assert r"\bbankside\b" not in _rules(demo_file, "amb-01")  # offered back, never saved by itself



FREEZE_MS = 1000  # a quarter of the 4 s freeze this guards against, ten times bench/gui.py's target
SEARCHED = ("00544005", "Hausaufgaben")


def _dfki_or_demo(folder: Path, demo_file: Path) -> Path:
    """DFKI de-en with the WMT21 outputs, labelled, when ``../shared`` is there (the issue's 13,985 outputs), else
    the demo."""
    items = SHARED_DATA / "mt-testsuite" / "testset" / "de-en" / "items.json"
    outputs = SHARED_DATA / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv"
    if not (items.is_file() and outputs.is_file()):
        return demo_file
    path = folder / "dfki.sqlite"
    for step in (["import", "suite", str(items)], ["import", "outputs", str(outputs)], ["label"]):
        subprocess.run([sys.executable, "-m", "cli", "--db", str(path), *step], check=True, capture_output=True,
                       cwd=Path(__file__).resolve().parents[2])
    return path


def test_typing_in_the_tree_search_never_freezes_the_window(tmp_path: Path, demo_file: Path) -> None:
    """Gaps in which the window's thread got no CPU (a machine busy with other work) are printed, not held against
    the window: only a gap it spent computing is its own stall."""
    database = _dfki_or_demo(tmp_path, demo_file)
    log = tmp_path / "stalls.jsonl"
    window = RealWindow(tmp_path / "home", size="1280x720")
    window.env["TSQE_STALL_LOG"] = str(log)
    try:
        window.start(database)
        window.focus()
        window.key("ctrl+shift+f")
        begin = time.time()
        for text in SEARCHED:
            window.type(text, delay_ms=150)
            time.sleep(1)
            window.screenshot(f"searched-{text}")
            window.key("ctrl+a", "BackSpace")
            time.sleep(1)
        end = time.time()
        window.key("ctrl+q")
        assert window.wait_exit() == 0
    finally:
        window.close()
    gaps = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    while_typing = [gap for gap in gaps if begin <= gap["at"] <= end + 1.0]
    print(f"gaps over 50 ms while typing {' and '.join(SEARCHED)}: {while_typing or 'none'}")
    freezes = [gap for gap in while_typing if gap["cpu_ms"] > FREEZE_MS]
    assert not freezes, f"the window's thread was busy over {FREEZE_MS} ms at a time while keys were typed: {freezes}"
