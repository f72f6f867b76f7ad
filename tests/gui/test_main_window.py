"""The window on the demo: tabs, title, status bar, long work with Cancel, errors in dialogs, dropped files."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_active, shown_errors
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QProgressDialog, QPushButton
from pytestqt.qtbot import QtBot
from sqlalchemy import func, select

from gui.main_window import MainWindow
from store.models import Output, SystemOutput
from suite.importers import outputs as outputs_importer
from suite.importers.kinds import import_kind
from suite.importers.outputs import ImportedOutput


def test_the_window_opens_on_the_demo_with_every_tab(qtbot: QtBot, window: MainWindow) -> None:
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == [
        "Item && rules", "Review", "Systems", "QE accuracy", "Discriminative", "Meta-evaluation"]
    assert window.windowTitle() == "tsqe — tsqe-demo-de-en · demo.sqlite[*]"  # [*]: shown while drafts are unsaved
    assert not window.isWindowModified()
    assert "pass" in window.counts_label.text() and "177" in window.counts_label.text()
    assert window.review.count_label.text() == "276 rows · 278 outputs"  # two pairs of alike outputs grouped
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus[:7] == ["&File", "&Edit", "&View", "&Suite", "&Review", "&QE", "&Help"] or "&Item" in menus
    qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentIndex() == 3


def _outputs(window: MainWindow) -> tuple[int, int]:
    assert window.state.db is not None
    with window.state.db.session() as session:
        return (session.scalar(select(func.count(Output.id))) or 0,
                session.scalar(select(func.count()).select_from(SystemOutput)) or 0)


def test_a_cancelled_import_leaves_the_database_unchanged(qtbot: QtBot, window: MainWindow, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    new = tmp_path / "more.tsv"
    new.write_text("item_id\tsystem\toutput\namb-01\tNewSys\tThe bench was painted.\n"
                   "amb-02\tNewSys\tThe lock is stuck.\n", encoding="utf-8")
    before = _outputs(window)
    reading = threading.Event()
    release = threading.Event()
    original = outputs_importer._table_rows

    def slow_rows(*args: Any, **kwargs: Any) -> Iterator[ImportedOutput]:
        reading.set()
        release.wait(5)  # inside the import's transaction: time for the user to press Cancel
        return original(*args, **kwargs)

    monkeypatch.setattr(outputs_importer, "_table_rows", slow_rows)
    window.import_dropped(QUrl.fromLocalFile(str(new)))
    qtbot.waitUntil(lambda: any(d.isVisible() for d in window.findChildren(QProgressDialog)), timeout=3000)
    assert reading.is_set()
    dialog = next(d for d in window.findChildren(QProgressDialog) if d.isVisible())
    qtbot.mouseClick(dialog.findChild(QPushButton), Qt.MouseButton.LeftButton)
    release.set()
    assert window.ops.wait_idle()
    assert _outputs(window) == before
    assert window.statusBar().currentMessage() == "importing outputs from more.tsv: cancelled: nothing was stored"
    assert shown_errors() == []


def test_an_import_error_reaches_a_dialog_and_changes_nothing(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("item_id\tsystem\toutput\nno-such-item\tX\tsome text\n", encoding="utf-8")
    before = _outputs(window)
    window.import_file("outputs", str(bad))
    assert window.ops.wait_idle()
    [box] = shown_errors()
    assert "no-such-item" in box.text() and "bad.tsv:2" in box.text()
    assert box.detailedText() == ""  # a user error: the core's message, no traceback
    assert _outputs(window) == before
    box.close()


def test_an_import_adds_outputs_labels_them_and_refreshes(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    new = tmp_path / "more.tsv"
    new.write_text("item_id\tsystem\toutput\namb-01\tNewSys\tThe bench was freshly painted.\n", encoding="utf-8")
    window.import_file("outputs", str(new))
    assert window.ops.wait_idle()
    assert window.review.count_label.text() == "277 rows · 279 outputs"
    qtbot.waitUntil(lambda: window.state.tree is not None and window.state.tree.counts.outputs == 279)
    assert window.state.tree is not None and window.state.tree.counts.unlabelled == 0


def test_label_all_runs_in_the_background(qtbot: QtBot, window: MainWindow) -> None:
    executed: list[object] = []
    window.state.operation_executed.connect(executed.append)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert window.ops.wait_idle()
    assert len(executed) == 1 and executed[0].labels  # type: ignore[attr-defined]


def test_dropped_files_are_recognised_by_suffix_and_header(tmp_path: Path) -> None:
    def file(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    assert import_kind(file("items.json", "[]")) == "suite"
    assert import_kind(file("s.tsv", "ID\tCategory\tPhenomenon\tSource\tPositive regex\n")) == "suite"
    assert import_kind(file("o.tsv", "item_id\tsystem\toutput\n")) == "outputs"
    assert import_kind(file("l.csv", "item_id,system,label,reviewer,comment\n")) == "labels"
    assert import_kind(file("x.tsv", "what\tever\n")) is None
    assert import_kind(file("x.pdf", "")) is None


def test_settings_are_remembered(qtbot: QtBot, window: MainWindow) -> None:
    header = window.review.table.horizontalHeader()
    header.hideSection(1)
    window.tabs.setCurrentIndex(2)
    window.save_settings()
    again = MainWindow()
    qtbot.addWidget(again)
    again.restore_settings()
    assert again.review.table.horizontalHeader().isSectionHidden(1)
    assert again.tabs.currentIndex() == 2


def test_a_second_suite_brings_the_suite_chooser(qtbot: QtBot, window: MainWindow, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QInputDialog

    asked: list[str] = []
    monkeypatch.setattr(QInputDialog, "getText", lambda *args: (asked.append(args[2]), ("de-en", True))[1])  # type: ignore[func-returns-value]
    suite = tmp_path / "mini.tsv"
    suite.write_text("id\tcategory\tphenomenon\tsource\tpositive_regex\n"
                     "m-1\tNegation\tNegative pronoun\tNiemand kam.\t\\bnobody\\b\n", encoding="utf-8")
    assert window.suite_toolbar.isHidden()
    window.import_dropped(QUrl.fromLocalFile(str(suite)))
    assert window.ops.wait_idle()
    assert asked == ["Languages of the suite in mini.tsv (source-target):"]
    assert window.state.suite_name == "mini"
    assert window.windowTitle() == "tsqe — mini · demo.sqlite[*]"
    assert not window.suite_toolbar.isHidden()
    assert [window.suite_box.itemText(i) for i in range(window.suite_box.count())] == ["mini", "tsqe-demo-de-en"]
    qtbot.waitUntil(lambda: window.state.tree is not None and window.state.tree.suite == "mini")
    window.state.choose_suite("tsqe-demo-de-en")
    assert window.suite_box.currentText() == "tsqe-demo-de-en"
    qtbot.waitUntil(lambda: window.review.count_label.text() == "276 rows · 278 outputs")


def test_the_suite_exports_to_a_file_the_importer_reads(qtbot: QtBot, window: MainWindow, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    out = tmp_path / "suite.tsv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(out), ""))
    [action] = [a for a in window.findChildren(QAction) if a.text() == "Export the s&uite…"]
    action.trigger()
    assert window.ops.wait_idle()
    assert shown_errors() == []
    assert import_kind(out) == "suite"
    assert len(out.read_text(encoding="utf-8").splitlines()) == 1 + 78  # header and the demo's items
    assert "wrote 78 items" in window.statusBar().currentMessage()


def test_switching_to_a_screen_gives_it_the_keys(qtbot: QtBot, window: MainWindow) -> None:
    """Found by using the window with the keyboard alone: Ctrl+2 showed Review but P went to the tree's search."""
    from PySide6.QtWidgets import QApplication

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    window.tree.search.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is window.systems.view
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is window.review.table
    filter_before = window.review.current_filter()
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.editor.draft is None and QApplication.focusWidget() is window.tree.search
    assert window.state.selection.category is None and window.review.current_filter() == filter_before


def test_ctrl_2_in_review_gives_the_keys_back_to_the_table(qtbot: QtBot, window: MainWindow) -> None:
    """Found walking through the real window: after choosing a filter, Ctrl+2 (Review already shown) left the keys
    in the filter box, so the next P chose the "pass" filter instead of deciding a row."""
    from PySide6.QtWidgets import QApplication

    make_active(qtbot, window)
    window.review.label_box.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is window.review.table
