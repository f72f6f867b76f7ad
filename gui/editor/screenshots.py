"""A picture of the item editor in use, for the README and for looking at what the screen really shows."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QTabWidget, QWidget

from gui.editor.screen import ItemEditorScreen
from gui.state import Selection
from suite.editing import find_item

SHOT_ITEM = "amb-01"
SHOT_PATTERN = r"\bbench\b|\briver\b"
"""Widens amb-01's positive rule: the output that says "bank ... river" turns from fail to conflict, so the
picture shows positive and negative matches side by side and a flip."""


def shot_item_editor(window: QWidget, path: Path) -> Path:
    """Select the demo's ``amb-01`` in ``window`` (the main window, or the screen itself), type a wider
    positive pattern, wait for the preview and the scope, and save the window as a PNG."""
    screen = window if isinstance(window, ItemEditorScreen) else window.findChild(ItemEditorScreen)
    assert screen is not None, "no item editor in this window"
    tabs = window.findChild(QTabWidget)
    if tabs is not None:
        tabs.setCurrentIndex(tabs.indexOf(screen))
    db = screen.state.db
    assert db is not None
    screen.state.select(Selection(item_id=find_item(db, SHOT_ITEM, screen.state.suite_name)))
    screen.ops.wait_idle()
    editor = screen.rule_lists["positive"].editor(0)
    assert editor is not None
    editor.setFocus()
    editor.setPlainText(SHOT_PATTERN)
    screen.scope.scope.setCurrentText("category")
    screen.start_preview()
    screen.start_scope()
    screen.ops.wait_idle()
    QCoreApplication.processEvents()
    path.parent.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(path))
    return path
