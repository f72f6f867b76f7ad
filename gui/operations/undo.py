"""The window's one undo stack, of the core's edit values (``suite.editing.undoable_edits``), not of closures.

Every undoable write of every screen (an item's save in Item & rules, the tree's new, moved, renamed and deleted
items, a reviewer's P, F, U, C, Shift+P/F) goes through ``undoable``: its edits are saved in the background, then
a ``Step`` holding the edits that take them back goes on ``AppState.undo_stack``. Undo and redo save the
pending edits as new edits (through the core's checks, into the history) and keep what takes those back, so the
step can go back and forth. A step says beforehand what it changes (``Step.changes``), which is how the window
tells whether an undo reaches outside the screen in front of the user.

A refused undo (a colleague changed the row since) changes nothing and leaves the step where it was, still to
undo; one refused part-way (a step of several edits, each its own transaction) leaves the stack untrue, so it is
cleared, and said.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from PySide6.QtGui import QUndoCommand

from gui.operations.runner import Operations, Write
from gui.state import AppState
from suite.changes import Changes
from suite.editing.undoable_edits import Edit, apply_all, changes_of
from suite.tasks import TaskState


@dataclass(frozen=True)
class Applied:
    """What a write of edits saved: the edits that take it back, newest first."""

    inverse: list[Edit]


class Step(QUndoCommand):
    """One entry of the undo stack: the edits to save for its next direction (undo, then redo, …)."""

    def __init__(self, text: str, inverse: list[Edit], ops: Operations, state: AppState) -> None:
        super().__init__(text)
        self._pending = inverse
        self._ops = ops
        self._state = state
        self._skip = True  # pushed after the save succeeded: QUndoStack.push's redo has nothing to do
        self.changes: Changes = changes_of(inverse)
        """What it changes, either way (an undo and its redo touch the same rows): known while a direction is
        still running, for the window to ask about the next one."""

    def redo(self) -> None:
        if self._skip:
            self._skip = False
            return
        self._run("redo")

    def undo(self) -> None:
        if self._skip:
            self._skip = False
            return
        self._run("undo")

    def _run(self, direction: str) -> None:
        write = apply_edits(self._state, self._take, self.text(), title=direction)
        write.success(lambda applied: self._put(applied.inverse))
        write.failure(lambda error: self._refused(direction, write))
        write.run(self._ops)

    def _take(self) -> list[Edit]:
        """The edits to save now, taken when the write's turn has come (on the worker thread): an undo and a redo
        pressed quickly run one after the other, and the redo must find what the undo left."""
        edits, self._pending = self._pending, []
        return edits

    def _put(self, inverse: list[Edit]) -> None:
        self._pending = inverse

    def _refused(self, direction: str, write: EditsWrite) -> bool:
        """Nothing of the step saved: it stays where it was (an undo refused is still to undo). Part of it saved:
        the stack no longer tells the truth, so it starts afresh. Either way the screens read what is stored."""
        stack = self._state.undo_stack
        at = stack.index() if direction == "undo" else stack.index() - 1
        if not write.saved and 0 <= at < stack.count() and stack.command(at) is self:
            self._pending = write.edits
            self._skip = True
            stack.redo() if direction == "undo" else stack.undo()
        else:
            stack.clear()
            self._ops.message.emit(f"{direction}: refused part-way, so the undo history starts afresh")
        self._state.operation_executed.emit(changes_of(write.edits))
        return False  # the refusal itself still goes to a dialog, in the core's words


@dataclass(eq=False)
class EditsWrite(Write[Applied]):
    """A write of edit values; ``saved`` fills with the inverse of each edit as soon as it is saved (newest first),
    so that after a refusal part-way it holds what takes back the edits saved before it."""

    edits: list[Edit] = field(default_factory=list)
    saved: list[Edit] = field(default_factory=list)


def apply_edits(state: AppState, edits: Sequence[Edit] | Callable[[], Sequence[Edit]], name: str, *,
                title: str | None = None) -> EditsWrite:
    """A write that saves ``edits`` in order (each its own transaction in the core; a callable gives them when the
    write's turn comes), changing what the edits say they change; the status bar says "saving: ``name``" (or
    "undo: …") once it is done."""
    db, ledger, author = state.db, state.ledger, state.author()
    assert db is not None, "edits are saved to an open database"
    saved: list[Edit] = []
    todo: list[Edit] = [] if callable(edits) else list(edits)

    def work(task: TaskState) -> Applied:
        if callable(edits):
            todo[:] = edits()
        apply_all(db, todo, author, ledger, saved)
        return Applied(list(saved))

    return EditsWrite(title or "saving", work, said=lambda _: name, changes=lambda _: changes_of(todo), progress=False,
                      edits=todo, saved=saved)


def undoable(state: AppState, ops: Operations, edits: Sequence[Edit], name: str) -> EditsWrite:
    """``apply_edits`` whose saved edits become one step of the undo stack called ``name`` (after a refusal
    part-way, what was saved before it)."""
    write = apply_edits(state, edits, name)

    def push(inverse: list[Edit]) -> None:
        if inverse:
            state.undo_stack.push(Step(name, inverse, ops, state))

    def partly(error: Exception) -> bool:
        push(list(write.saved))
        return False

    write.success(lambda applied: push(applied.inverse))
    write.failure(partly)
    return write
