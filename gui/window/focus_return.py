"""Activation goes back to the window a dialog came from when the dialog closes.

The keys of a screen (Review's P, F, U…) are shortcuts, and Qt delivers a shortcut only to the active window. A
window manager activates the main window again when a dialog over it closes; without one (an X session with no
window manager, a kiosk, a remote display, Xvfb) no window was active after the reviewer's name was asked, so the
next nine P presses of a real-window walk-through decided nothing and moved the cursor by the table's keyboard
search instead (issue 28's real-window check, 2026-12-03). ``FocusReturn`` activates the main window when a dialog
closes and leaves no window active; with a window manager it finds one active and does nothing.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QGuiApplication, QWindow
from PySide6.QtWidgets import QApplication, QDialog, QWidget


class FocusReturn(QObject):
    """Watches each dialog that gets the focus and, when it hides, activates the main window if no window is
    active. The platform does not say that the focus left a closed dialog (without a window manager the focus
    window stays the hidden dialog's), so the dialog's own hiding is watched: a filter on the dialogs that got
    the focus, not on the application, which would see every event the window gets. A dialog that hides while
    another program has the focus (a progress dialog whose work ended) changes nothing."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.focusWindowChanged.connect(self._focus_changed)

    def _focus_changed(self, focused: QWindow | None) -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QDialog) and focused is not None and widget.windowHandle() is focused:
                widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802  (Qt's name)
        if event.type() == QEvent.Type.Hide and isinstance(watched, QWidget) \
                and QGuiApplication.focusWindow() is watched.windowHandle():
            QTimer.singleShot(0, self, self._activate)  # only a dialog the user was in: never steal the focus
        return False

    def _activate(self) -> None:
        window = self._window
        active = QApplication.activeWindow()
        if (active is None or not active.isVisible()) and window.isVisible() \
                and QApplication.activeModalWidget() is None:
            window.activateWindow()
