"""Actions of one screen. A key with Ctrl works window-wide, as a menu entry's key does, whatever widget has the
focus: Ctrl+Shift+A was ignored while the focus was in the suite tree beside Item & rules (issue 28), since the
tree is not a child of the screen. A key that is the same in two places of one screen (Alt+Up in either rule list)
or a bare letter (P, F in Review) works only while its widget has the keyboard, so that it never acts on what the
user is not looking at; the menus still offer every action everywhere."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget


def screen_action(screen: QWidget, text: str, keys: QKeySequence | QKeySequence.StandardKey | str,
                  slot: Callable[[], object], *, only_here: bool = False) -> QAction:
    """An action of ``screen`` triggered by ``keys``: anywhere in the window when they hold Ctrl, else (and when
    ``only_here``) while the screen or a widget in it has the focus."""
    action = QAction(text, screen)
    sequence = QKeySequence(keys)
    action.setShortcut(sequence)
    with_ctrl = not sequence.isEmpty() and bool(sequence.toString().startswith("Ctrl+"))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut if with_ctrl and not only_here
                              else Qt.ShortcutContext.WidgetWithChildrenShortcut)
    action.triggered.connect(slot)
    screen.addAction(action)
    return action
