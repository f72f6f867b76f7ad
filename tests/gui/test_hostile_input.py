"""The window under hostile faults: a failed import or export shows the core's one sentence in a dialog, not a
traceback (the editor under a hostile pattern: ``test_editor.py``)."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import close_quietly, shown_errors
from hostile_helpers import fill, mounted_tmpfs, read_only_mount
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from gui.main_window import MainWindow


def test_a_failed_export_says_which_file_and_keeps_the_previous_one(qtbot: QtBot, window: MainWindow, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
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


def test_an_import_into_a_read_only_database_says_so_in_a_dialog(qtbot: QtBot, demo_template: Path,
                                                                 tmp_path: Path) -> None:
    import shutil

    outputs = tmp_path / "more.tsv"
    outputs.write_text("item_id\tsystem\toutput\namb-01\tNew-MT\tThe bench was new.\n", encoding="utf-8")
    with mounted_tmpfs(tmp_path / "ro", "5m") as folder:
        db = Path(shutil.copy(demo_template, folder / "demo.sqlite"))
        read_only_mount(folder)
        main = MainWindow()
        qtbot.addWidget(main, before_close_func=close_quietly)
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


def test_a_database_that_is_not_there_is_refused_not_made_anew(qtbot: QtBot, window: MainWindow, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Open recent, a remembered or a mistyped path whose file is gone: refused in a dialog, no empty database
    left there, the open one kept; File → New database still creates one (the old code made an empty database of
    every missing path and showed "no suite yet")."""
    opened = window.state.db
    moved = tmp_path / "moved.sqlite"
    window.open_target(str(moved))
    assert window.ops.wait_idle()
    [box] = shown_errors()
    assert box.text() == f"there is no database at {moved}; nothing was created"
    box.close()
    assert not moved.exists() and window.state.db is opened
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(moved), "SQLite (*.sqlite *.db)"))
    window._new_database()
    qtbot.waitUntil(lambda: window.state.db is not opened, timeout=20000)
    assert moved.is_file() and not shown_errors()


def test_a_remembered_database_that_is_gone_starts_as_a_first_start(tmp_path: Path) -> None:
    from gui.app import remembered

    there = tmp_path / "there.sqlite"
    there.write_bytes(b"")
    assert remembered(str(there)) == str(there)
    assert remembered(str(tmp_path / "gone.sqlite")) is None
    assert remembered("") is None
    assert remembered("postgresql://team@db/tsqe") == "postgresql://team@db/tsqe"
