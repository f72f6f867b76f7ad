"""The review keys after a dialog: the reviewer's name asked at the first P, then P again and again.

In a real window without a window manager (Xvfb, 2026-12-03), no window was active once the name dialog closed:
the next nine P presses decided nothing, since shortcuts reach only the active window, and the table's keyboard
search moved the cursor to pun-03 instead. ``gui.window.focus_return`` gives the activation back; the review table
has no keyboard search, so a letter that reaches it never moves the cursor.
"""
from __future__ import annotations

from conftest import make_active
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot
from sqlalchemy import func, select

from gui.main_window import MainWindow
from gui.review.reviewer import ReviewerDialog
from store.models import ManualLabel


def _decisions_by(window: MainWindow, reviewer: str) -> int:
    assert window.state.db is not None
    with window.state.db.session() as session:
        return int(session.scalar(select(func.count()).select_from(ManualLabel)
                                  .where(ManualLabel.reviewer == reviewer)) or 0)


def _name_when_asked(window: MainWindow, name: str) -> None:
    dialog = window.findChild(ReviewerDialog)
    if dialog is None or not dialog.isVisible():
        QTimer.singleShot(50, lambda: _name_when_asked(window, name))
        return
    dialog.name.setText(name)
    dialog.accept()


def _focused(window: MainWindow) -> QWidget:
    return QApplication.focusWidget() or window.review.table


def test_after_the_name_is_asked_every_p_decides(qtbot: QtBot, window: MainWindow) -> None:
    window.state.reviewer = None
    review = window.review
    review.table.selectRow(0)
    review.table.setFocus()
    make_active(qtbot, window)
    QTimer.singleShot(100, lambda: _name_when_asked(window, "lead"))
    qtbot.keyClick(review.table, Qt.Key.Key_P)  # asks the name, then decides
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    for _ in range(4):
        qtbot.keyClick(_focused(window), Qt.Key.Key_P)
        assert window.ops.wait_idle()
    assert _decisions_by(window, "lead") == 5  # 1 before the activation came back


def test_a_letter_that_reaches_the_review_table_never_moves_its_cursor(qtbot: QtBot, window: MainWindow) -> None:
    review = window.review
    review.table.selectRow(3)
    review.table.keyboardSearch("p")  # what a P whose shortcut did not fire did: the cursor went to pun-01
    assert review.table.currentIndex().row() == 3
    assert _decisions_by(window, "Test Reviewer") == 0
