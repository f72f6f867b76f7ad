"""Editing the suite's shape from the tree: new item, rename, move, delete — each undoable from Edit → Undo.

The dialogs that ask where an item goes and what it is called; the writes are ``gui.operations.editing``'s.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QInputDialog,
    QLineEdit,
    QMessageBox,
    QWidget,
)

from gui.operations import Operations
from gui.operations import editing as editing_ops
from gui.state import AppState, Selection
from suite.editing.undoable_edits import RemoveItem


class ItemPlaceDialog(QDialog):
    """Where an item goes (category, phenomenon) and, for a new item, its id and source sentence."""

    def __init__(self, state: AppState, title: str, selection: Selection, *, new: bool, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"tsqe — {title}")
        self.setMinimumWidth(460)
        form = QFormLayout(self)
        self.external_id = QLineEdit(self)
        self.source = QLineEdit(self)
        self.category = QComboBox(self)
        self.phenomenon = QComboBox(self)
        tree = state.tree
        for box in (self.category, self.phenomenon):
            box.setEditable(True)
        self._phenomena = {c.name: [p.name for p in c.phenomena] for c in (tree.categories if tree else [])}
        self.category.addItems(list(self._phenomena))
        self.category.currentTextChanged.connect(self._category_changed)
        self.category.setCurrentText(selection.category or "")
        self._category_changed(self.category.currentText())
        self.phenomenon.setCurrentText(selection.phenomenon or "")
        if new:
            form.addRow("item id", self.external_id)
            form.addRow("source sentence", self.source)
        form.addRow("category", self.category)
        form.addRow("phenomenon", self.phenomenon)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _category_changed(self, category: str) -> None:
        current = self.phenomenon.currentText()
        self.phenomenon.clear()
        self.phenomenon.addItems(self._phenomena.get(category, []))
        self.phenomenon.setCurrentText(current)


class SuiteEdits:
    """The tree's context menu and the Suite menu's structure actions."""

    def __init__(self, state: AppState, ops: Operations, current: Callable[[], Selection], tree: QWidget,
                 parent: QWidget) -> None:
        self._state = state
        self._tree = tree
        self._ops = ops
        self._current = current
        self._parent = parent
        self.new_item = self._action("&New item…", "Ctrl+N", self._new_item)
        self.rename = self._action("&Rename…", "F2", self._rename, in_tree=True)
        self.move = self._action("&Move item…", "Ctrl+M", self._move, in_tree=True)
        self.delete = self._action("&Delete item…", "Del", self._delete, in_tree=True)
        self.actions = [self.new_item, self.rename, self.move, self.delete]

    def _action(self, text: str, key: str, slot: Callable[[], None], *, in_tree: bool = False) -> QAction:
        """``in_tree``: the key works only while the tree has the focus (Del in the review table or a search
        box must not offer to delete the item selected in the tree); the menus offer it everywhere."""
        action = QAction(text, self._parent)
        action.setShortcut(QKeySequence(key))
        if in_tree:
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self._tree.addAction(action)
        action.triggered.connect(slot)
        return action

    def _new_item(self) -> None:
        db, suite_name = self._state.db, self._state.suite_name
        if db is None or suite_name is None:
            return
        dialog = ItemPlaceDialog(self._state, "new item", self._current(), new=True, parent=self._parent)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        external_id, source = dialog.external_id.text().strip(), dialog.source.text().strip()
        category, phenomenon = dialog.category.currentText().strip(), dialog.phenomenon.currentText().strip()
        write = editing_ops.add_item(self._state, self._ops, suite_name, external_id, source, category, phenomenon)
        write.success(lambda applied: self._state.select(Selection(category, phenomenon, applied.inverse[0].item_id))
                      if isinstance(applied.inverse[0], RemoveItem) else None)
        write.run(self._ops)

    def _rename(self) -> None:
        db, suite_name, node = self._state.db, self._state.suite_name, self._current()
        if db is None or suite_name is None or node.category is None or node.item_id is not None:
            self._ops.message.emit("choose a category or a phenomenon in the tree to rename it")
            return
        old = node.phenomenon if node.phenomenon is not None else node.category
        what = "phenomenon" if node.phenomenon is not None else "category"
        new, ok = QInputDialog.getText(self._parent, f"tsqe — rename {what}", f"New name of the {what} {old!r}:",
                                       QLineEdit.EchoMode.Normal, old)
        new = new.strip()
        if not ok or not new or new == old:
            return
        editing_ops.rename(self._state, self._ops, suite_name, node, new).run(self._ops)

    def _move(self) -> None:
        db, node = self._state.db, self._current()
        if db is None or node.item_id is None:
            self._ops.message.emit("choose an item in the tree to move it")
            return
        dialog = ItemPlaceDialog(self._state, "move item", node, new=False, parent=self._parent)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        category, phenomenon = dialog.category.currentText().strip(), dialog.phenomenon.currentText().strip()
        editing_ops.move_item(self._state, self._ops, node, category, phenomenon).run(self._ops)

    def _delete(self) -> None:
        db, node = self._state.db, self._current()
        if db is None or node.item_id is None:
            self._ops.message.emit("choose an item in the tree to delete it")
            return
        answer = QMessageBox.question(self._parent, "tsqe — delete item",
                                      "Delete this item with its rules, known translations, references, outputs "
                                      "and reviews? Edit → Undo brings it back.")
        if answer != QMessageBox.StandardButton.Yes:
            return
        self.delete_item(node.item_id)

    def delete_item(self, item_id: int) -> None:
        tree = self._state.tree
        external_id = next((item.external_id for category in (tree.categories if tree else [])
                            for phenomenon in category.phenomena for item in phenomenon.items
                            if item.item_id == item_id), str(item_id))
        editing_ops.delete_item(self._state, self._ops, item_id, external_id).run(self._ops)
