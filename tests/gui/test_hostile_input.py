"""The window under hostile input: a pattern typed into the editor never freezes or kills it, and a failed import
or export shows the core's one sentence in a dialog, not a traceback.

Typing ``(?:a{65535}){65535}`` key by key compiled every prefix on the main thread: from ``(?:a{65535}){65}``
on, each compile wanted gigabytes. The test runs under a bound on the process's address space, so that code
without the protection fails with ``MemoryError`` rather than taking the machine's memory.
"""
from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import shown_errors
from hostile_helpers import fill, mounted_tmpfs, read_only_mount
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from gui.editor.screen import ItemEditorScreen
from gui.main_window import MainWindow
from gui.operations import Operations
from gui.state import AppState, Selection
from suite.demo import DEMO_SUITE
from suite.editing import find_item, item_detail

HEADROOM = 2 * 1024 ** 3


@pytest.fixture
def bounded_memory() -> Iterator[None]:
    """This process may grow by ``HEADROOM`` bytes of address space while the test runs."""
    with open("/proc/self/status", encoding="ascii") as status:
        size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (size + HEADROOM, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.fixture
def screen(qtbot, state: AppState, ops: Operations) -> Iterator[ItemEditorScreen]:  # type: ignore[no-untyped-def]
    editor = ItemEditorScreen(state, ops)
    qtbot.addWidget(editor)
    editor.resize(1400, 900)
    editor.show()
    yield editor
    ops.wait_idle()


@pytest.mark.parametrize("pattern", ["(?:a{65535}){65535}", "(" * 300 + "a" + ")" * 300])
def test_typing_a_pattern_that_would_exhaust_the_compiler_is_refused_at_once(  # type: ignore[no-untyped-def]
        qtbot, screen, state, ops, bounded_memory, pattern: str) -> None:
    assert state.db is not None
    item_id = find_item(state.db, "amb-02", DEMO_SUITE)
    state.select(Selection(item_id=item_id))
    assert ops.wait_idle()
    editor = screen.rule_lists["positive"].editor(0)
    assert editor is not None
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Delete)
    started = time.monotonic()
    qtbot.keyClicks(editor, pattern)
    qtbot.waitUntil(lambda: not screen._preview_timer.isActive())
    assert ops.wait_idle()
    assert time.monotonic() - started < 30  # every keystroke answered: each prefix checked in microseconds
    message = screen.rule_lists["positive"].problem
    assert message.isVisible() and message.text().startswith("positive rule 1: pattern is too complex: ")
    assert editor.has_problem() and not screen.save_button.isEnabled()
    screen.save_action.trigger()
    assert ops.wait_idle()
    assert [r.pattern for r in item_detail(state.db, item_id).rules if r.polarity == "positive"] == [r"\block\b"]
    assert shown_errors() == []


def test_a_failed_export_says_which_file_and_keeps_the_previous_one(qtbot, window: MainWindow, tmp_path: Path,
                                                                    monkeypatch) -> None:  # type: ignore[no-untyped-def]
    window.tabs.setCurrentWidget(window.systems)
    qtbot.waitUntil(lambda: window.systems.table() is not None, timeout=20000)
    with mounted_tmpfs(tmp_path / "disk", "64k") as disk:
        target = disk / "report.csv"
        target.write_text("the previous report\n", encoding="utf-8")
        fill(disk)
        monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(target), "CSV (*.csv)"))
        window.systems.export.save_table_action.trigger()
        [box] = shown_errors()
        assert box.text() == (f"{target}: the disk is full (No space left on device); the previous file was left as "
                              f"it was")
        assert box.detailedText() == ""
        assert target.read_text(encoding="utf-8") == "the previous report\n"
        box.close()


def test_an_import_into_a_read_only_database_says_so_in_a_dialog(qtbot, demo_template: Path,  # type: ignore[no-untyped-def]
                                                                 tmp_path: Path) -> None:
    import shutil

    outputs = tmp_path / "more.tsv"
    outputs.write_text("item_id\tsystem\toutput\namb-01\tNew-MT\tThe bench was new.\n", encoding="utf-8")
    with mounted_tmpfs(tmp_path / "ro", "5m") as folder:
        db = Path(shutil.copy(demo_template, folder / "demo.sqlite"))
        read_only_mount(folder)
        main = MainWindow()
        qtbot.addWidget(main)
        main.show()
        main.open_target(str(db))
        qtbot.waitUntil(lambda: main.state.tree is not None, timeout=20000)
        main.import_file("outputs", str(outputs))
        assert main.ops.wait_idle()
        [box] = shown_errors()
        assert box.text() == (f"{db} is read-only (the file or its folder cannot be written): nothing was changed; "
                              f"reading it works")
        assert box.detailedText() == ""
        box.close()
        main.close()
