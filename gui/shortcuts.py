"""Actions of one screen: their keys work only while that screen has the keyboard, so that a single letter (P, F
in Review) never acts on a screen the user is not looking at, while the menus still offer them everywhere."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget


def screen_action(screen: QWidget, text: str, keys: QKeySequence | QKeySequence.StandardKey | str,
                  slot: Callable[[], object]) -> QAction:
    """An action of ``screen``, triggered by ``keys`` while the screen or a widget in it has the focus."""
    action = QAction(text, screen)
    action.setShortcut(QKeySequence(keys))
    action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    action.triggered.connect(slot)
    screen.addAction(action)
    return action
