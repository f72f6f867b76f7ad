"""The suite's shape edited from the tree (after Anki's ``operations/deck.py``): a new item, a category or
phenomenon renamed, an item moved or deleted. Each is an edit value of ``suite.editing.undoable_edits`` saved as one
step of the window's undo stack (a deleted item comes back whole from the snapshot its removal returned). An item's
own edits are saved by Item & rules (``gui.editor.screen``) through the same ``gui.operations.undo``.
"""
from __future__ import annotations

from gui.operations.runner import Operations
from gui.operations.undo import EditsWrite, undoable
from gui.state import AppState, Selection
from suite.editing.undoable_edits import AddItem, Edit, MoveItem, RemoveItem, RenameCategory


def _one(state: AppState, ops: Operations, edit: Edit) -> EditsWrite:
    return undoable(state, ops, [edit], edit.summary())


def add_item(state: AppState, ops: Operations, suite: str, external_id: str, source: str, category: str,
             phenomenon: str) -> EditsWrite:
    return _one(state, ops, AddItem(suite, external_id, source, category, phenomenon))


def rename(state: AppState, ops: Operations, suite: str, node: Selection, new: str) -> EditsWrite:
    """Rename the category, or the phenomenon, that ``node`` is."""
    assert node.category is not None
    return _one(state, ops, RenameCategory(suite, node.category, node.phenomenon, new))


def move_item(state: AppState, ops: Operations, node: Selection, category: str, phenomenon: str) -> EditsWrite:
    assert node.item_id is not None
    return _one(state, ops, MoveItem(node.item_id, category, phenomenon, node.category or "", node.phenomenon or ""))


def delete_item(state: AppState, ops: Operations, item_id: int, external_id: str) -> EditsWrite:
    return _one(state, ops, RemoveItem(item_id, external_id))
