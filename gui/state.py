"""The one headless state object every screen observes (after glue's hub and Anki's main window state).

Screens never talk to each other: they set the selection here or ask for the Review tab or an item's rules
here, and react to its signals. Keeping it free of widgets lets tests drive the whole window through it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from suite.editing.item_edit import default_author
from suite.editing.undoable_edits import Ledger

if TYPE_CHECKING:
    from store import Database
    from suite.reading.browse import OutputFilter
    from suite.reading.tree import SuiteTree


@dataclass(frozen=True)
class Selection:
    category: str | None = None
    phenomenon: str | None = None
    item_id: int | None = None  # database id of the selected item


class AppState(QObject):
    database_changed = Signal()  # a database was opened: self.db
    suite_changed = Signal()  # self.suite_name changed (or was first set)
    selection_changed = Signal()  # self.selection changed
    operation_executed = Signal(object)  # a suite.changes.Changes after any write finished (or an undo failed)
    review_requested = Signal(object)  # a suite.reading.browse.OutputFilter: show the Review tab with it
    edit_requested = Signal(object)  # a Selection of an item: show it in Item & rules, self.selection unchanged
    tree_loaded = Signal()  # self.tree was (re)read: categories, phenomena, items and their counts
    reviewer_changed = Signal()  # self.reviewer was set (File → Reviewer…, or named at the first decision)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.db: Database | None = None
        self.suite_name: str | None = None
        self.selection = Selection()
        self.reviewer: str | None = None
        # The suite tree as last read (by the tree dock): choosers and the status bar use it instead of
        # each asking the database for the same aggregate.
        self.tree: SuiteTree | None = None
        # One undo history for the whole window, of the core's edit values (gui.operations.undo): Edit → Undo
        # undoes the last edit whichever screen made it, asking first when it is not on the screen in front.
        self.undo_stack = QUndoStack(self)
        # Where rows that an undo re-created live now, and the versions our own edits left: shared by every
        # screen's edits, since an undo in one may have to find a row another screen's edit wrote.
        self.ledger = Ledger()

    def set_reviewer(self, name: str) -> None:
        if name != self.reviewer:
            self.reviewer = name
            self.reviewer_changed.emit()

    def author(self) -> str:
        """Who the history names for the window's edits and decisions."""
        return self.reviewer or default_author()

    def open(self, db: Database, suite_name: str | None) -> None:
        """Switch to another database; what was selected or undoable there means nothing here."""
        self.db = db
        self.suite_name = suite_name
        self.tree = None
        self.selection = Selection()
        self.undo_stack.clear()
        self.ledger = Ledger()
        self.database_changed.emit()
        self.suite_changed.emit()
        self.selection_changed.emit()

    def choose_suite(self, suite_name: str) -> None:
        if suite_name == self.suite_name:
            return
        self.suite_name = suite_name
        self.tree = None
        self.selection = Selection()
        self.undo_stack.clear()
        self.suite_changed.emit()
        self.selection_changed.emit()

    def set_tree(self, tree: SuiteTree | None) -> None:
        self.tree = tree
        self.tree_loaded.emit()

    def select(self, selection: Selection) -> None:
        if selection == self.selection:
            return
        self.selection = selection
        self.selection_changed.emit()

    def show_review(self, filter: OutputFilter) -> None:
        self.review_requested.emit(filter)

    def edit_item(self, selection: Selection) -> None:
        """Open an item's rules without selecting it: selecting would narrow the Review queue to that item, and a
        reviewer who goes to fix a rule wants the queue (filter and row) as it was when coming back."""
        self.edit_requested.emit(selection)
