"""Saved edits on the window's undo stack.

Pushing happens after the save succeeded, so the first ``redo`` (which QUndoStack calls on push) does nothing;
every later undo or redo saves the pending inverse edits as a new edit, in the background, through ``run``.
The inverse of what an undo saved becomes the redo, and so on, so both directions go through the core's
checks and appear in the history.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from suite.undoable_edits import Edit


class SavedEdit(QUndoCommand):
    def __init__(self, text: str, item_id: int, inverse: list[Edit], run: Callable[[SavedEdit, str], None]) -> None:
        super().__init__(text)
        self.item_id = item_id
        self._pending = inverse
        self._run = run
        self._just_saved = True

    def redo(self) -> None:
        if self._just_saved:
            self._just_saved = False
            return
        self._run(self, f"redo {self.text()}")

    def undo(self) -> None:
        self._run(self, f"undo {self.text()}")

    def take(self) -> list[Edit]:
        """The edits to save now (called on the worker thread, when the write's turn has come)."""
        edits, self._pending = self._pending, []
        return edits

    def put(self, inverse: list[Edit]) -> None:
        """What takes back the edits just saved: the next direction's work."""
        self._pending = inverse
