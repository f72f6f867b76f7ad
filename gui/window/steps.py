"""Undo and redo from the Edit menu: each step named, and one outside the screen in front asked about and then
shown where it changed something.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QMessageBox,
)

from gui.operations.undo import Step
from gui.state import Selection
from gui.window.surface import WindowSurface
from suite.changes import Changes


class WindowSteps(WindowSurface):
    """The Edit menu's undo and redo."""

    def _name_steps(self) -> None:
        """The Edit menu names the step: "Undo: pass on 00544005 · UEdin"."""
        stack = self.state.undo_stack
        for action, word, text, can in ((self.undo_action, "&Undo", stack.undoText(), stack.canUndo()),
                                        (self.redo_action, "&Redo", stack.redoText(), stack.canRedo())):
            action.setText(f"{word}: {text.replace('&', '&&')}" if can else word)
            action.setEnabled(can)

    def step(self, direction: str) -> None:
        """Undo or redo the next step. One that would change something the screen in front does not show (a rule
        of another item from Review, a decision from Item & rules) is asked about first, and then shown."""
        stack = self.state.undo_stack
        at = stack.index() - 1 if direction == "undo" else stack.index()
        if not 0 <= at < stack.count():
            return
        command = stack.command(at)
        assert isinstance(command, Step)
        if self.shows(command.changes):
            self._run_step(direction, command)
        else:
            self._ask_step(direction, command)

    def _run_step(self, direction: str, command: Step) -> None:
        stack = self.state.undo_stack
        at = stack.index() - 1 if direction == "undo" else stack.index()
        if not 0 <= at < stack.count() or stack.command(at) is not command:
            self.ops.message.emit(f"{direction}: the undo history changed meanwhile, so nothing was done")
            return
        stack.undo() if direction == "undo" else stack.redo()
        self._show_change(command.changes)

    def shows(self, changes: Changes) -> bool:
        """Whether the screen in front (or the suite tree beside it, for the suite's shape) shows what changes."""
        screen = self.tabs.currentWidget()
        shows = getattr(screen, "shows", None)
        if shows is not None and shows(changes):
            return True
        return changes.taxonomy and not changes.reviews and self.tree_dock.isVisible()

    def _ask_step(self, direction: str, command: Step) -> None:
        """The question before an undo outside the screen in front (opened, not run in a loop of its own: the
        background writes go on; the history is checked again when it is answered)."""
        changes = command.changes
        where = "a reviewer's answer or adjudication, in Review" if changes.assignments else \
            "a reviewer's decision, in Review" if changes.reviews else \
            "an item's rules or fields, in Item & rules" if changes.items or changes.references else \
            "the suite's categories and items, in the suite tree"
        box = QMessageBox(QMessageBox.Icon.Question, f"tsqe — {direction}",
                          f"{direction.capitalize()}: {command.text()}?", QMessageBox.StandardButton.NoButton, self)
        box.setInformativeText(f"It is not on this screen: it changes {where}. {direction.capitalize()} it, and "
                               f"show it there?")
        go = box.addButton(f"{direction.capitalize()} and show", QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(go)
        box.setEscapeButton(cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(lambda _: self._run_step(direction, command) if box.clickedButton() is go else None)
        box.open()

    def _show_change(self, changes: Changes) -> None:
        if changes.reviews or changes.assignments:
            self.tabs.setCurrentWidget(self.review)
            self.review.show_outputs(changes)
        elif changes.items or changes.references:
            items = (changes.items | changes.references).ids
            if self.editor.item_id not in items:
                self.state.edit_item(Selection(item_id=min(items)))
            self.tabs.setCurrentWidget(self.editor)
        elif changes.taxonomy:
            self.tree_dock.show()
