"""Small dialogs shared by every screen: errors, questions, a reviewer's name.

Dialogs are opened window-modally with ``open()`` rather than ``exec()``, so no nested event loop runs while
they wait: background operations keep finishing underneath, and tests can find and close them.
"""
from __future__ import annotations

import traceback

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from suite.errors import as_user_error


def show_error(parent: QWidget | None, title: str, error: BaseException) -> QMessageBox:
    """Tell the user what went wrong in the core's words (``suite.errors.as_user_error``: the same one sentence the
    command line prints for a full disk, a read-only or damaged database, a file the system refused); a bug also
    gets its traceback under "details"."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(f"tsqe — {title}")
    user_error = as_user_error(error)
    if user_error is not None:
        box.setText(str(user_error))
    else:
        box.setText(f"{title} failed: {error or type(error).__name__}")
        box.setDetailedText("".join(traceback.format_exception(error)))
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
