"""Saving the Item & rules screen's drafts: one save is one background write and one undo step; a refusal (a
colleague changed the item) keeps the linguist's changes on top of the item as it is now. Also the unsaved drafts
the window asks about before quitting or switching, keeps on disk and offers back after a crash.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QMessageBox,
)

from gui.editor.surface import EditorSurface
from gui.operations.undo import undoable
from gui.state import Selection
from store import Database
from suite.editing.api import (
    EditConflict,
    ItemDetail,
    item_detail,
)
from suite.editing.item_draft import EditorDraft
from suite.editing.undoable_edits import Edit, summary
from suite.errors import TsqeError


class EditorSaving(EditorSurface):
    """Save, revert, and the drafts kept while other items are looked at."""

    def save(self) -> None:
        draft, db = self._draft, self.state.db
        if draft is None or db is None or self._saving or draft.problems():
            return
        edits = draft.edits()
        if not edits:
            return
        self._saving = True
        self._update_buttons()
        self.editor_scroll.setEnabled(False)
        self._write(draft, edits)

    def _write(self, draft: EditorDraft, edits: list[Edit]) -> None:
        """Save a draft's edits as one step of the undo stack (what was saved before a refusal too); after a
        refusal the linguist's changes are kept on top of the item as it is now."""
        draft.seed(self.state.ledger)
        item_id = draft.item_id
        write = undoable(self.state, self.ops, edits, f"{summary(edits)} in {draft.detail.external_id}")
        def refused(error: Exception) -> bool:
            self._saved(item_id, refused=True)
            return self._refused(error, item_id)

        write.success(lambda _: self._saved(item_id))
        write.failure(refused)
        write.run(self.ops)

    def _saved(self, item_id: int, *, refused: bool = False) -> None:
        """After a save, the item is shown as stored; after a refusal, as it is now with the changes on top."""
        if self._draft is not None and self._draft.item_id == item_id:
            self._saving = False
            self.editor_scroll.setEnabled(True)
            if refused:
                self._rebase(self._draft)
            else:
                self._drafts.pop(item_id, None)
                self._load(item_id)
        elif refused and item_id in self._drafts:
            self._rebase_kept(self._drafts[item_id])
        else:
            self._drafts.pop(item_id, None)
        self._update_buttons()

    def unsaved(self) -> list[EditorDraft]:
        """Every draft with changes not saved yet: the item shown and those kept while others were looked at."""
        drafts = [draft for draft in self._drafts.values() if draft.dirty]
        if self._draft is not None and self._draft.dirty and self._draft.item_id not in self._drafts:
            drafts.insert(0, self._draft)
        return drafts

    def save_all(self) -> list[EditorDraft]:
        """Save every unsaved draft (each one step of the undo stack); the drafts that cannot be saved as they are
        (a pattern that does not compile, an empty source), which stay unsaved."""
        blocked = []
        for draft in self.unsaved():
            if draft.problems():
                blocked.append(draft)
            elif draft is self._draft:
                self.save()
            else:
                self._write(draft, draft.edits())
        return blocked

    def discard_all(self) -> None:
        self._drafts.clear()
        if self._draft is not None and self._draft.dirty:
            self.revert()
        self.drafts_changed.emit()

    def recover(self, drafts: list[EditorDraft]) -> None:
        """Drafts a session left unsaved, put back as unsaved changes on top of their items as they are now
        (items removed since are dropped, and said)."""
        db = self.state.db
        if db is None:
            return
        for draft in drafts:
            self._recover(db, draft)

    def _recover(self, db: Database, draft: EditorDraft) -> None:
        self.ops.read(lambda task: item_detail(db, draft.item_id),
                      lambda detail: self._recovered(draft.rebased(detail)),
                      on_failure=lambda error: self._not_recovered(draft, error))

    def _recovered(self, draft: EditorDraft) -> None:
        """A restored draft is shown at once when the screen shows no item, else kept for when its item is."""
        if self._draft is not None and self._draft.item_id == draft.item_id:
            self._show(draft)
        else:
            self._drafts[draft.item_id] = draft
            if self._wanted is None:
                self.state.edit_item(Selection(item_id=draft.item_id))
        self.drafts_changed.emit()

    def _not_recovered(self, draft: EditorDraft, error: Exception) -> bool:
        if not isinstance(error, TsqeError):
            return False
        self.ops.message.emit(f"the unsaved changes of {draft.detail.external_id} were not restored: {error}")
        return True

    def _rebase_kept(self, draft: EditorDraft) -> None:
        db = self.state.db
        assert db is not None
        self.ops.read(lambda task: item_detail(db, draft.item_id),
                      lambda detail: self._drafts.__setitem__(draft.item_id, draft.rebased(detail)))

    def _rebase(self, draft: EditorDraft) -> None:
        db = self.state.db
        assert db is not None

        def fresh(detail: ItemDetail) -> None:
            self._loading = None
            if self._draft is draft:
                self._show(draft.rebased(detail))

        self._loading = draft.item_id, lambda: self._rebase(draft)
        self.ops.read(lambda task: item_detail(db, draft.item_id), fresh, key="editor-item")

    def _refused(self, error: Exception, item_id: int) -> bool:
        if not isinstance(error, EditConflict):
            return False
        box = QMessageBox(QMessageBox.Icon.Warning, "tsqe — edit refused",
                          f"Someone else changed this item since you opened it, so nothing of theirs was "
                          f"overwritten:\n\n{error}\n\nThe item now shows their version with your unsaved "
                          f"changes on top: check it and save again, or Reload to keep theirs only.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.button(QMessageBox.StandardButton.Yes).setText("Reload")
        box.button(QMessageBox.StandardButton.No).setText("Keep my changes")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.accepted.connect(lambda: self._reload_stored(item_id))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return True

    def _reload_stored(self, item_id: int) -> None:
        """Forget the linguist's changes to this item: it shows what is stored."""
        if self._draft is not None and self._draft.item_id == item_id:
            self.revert()
        else:
            self._drafts.pop(item_id, None)

    def revert(self) -> None:
        draft = self._draft
        if draft is not None:
            self._drafts.pop(draft.item_id, None)
            self._show(EditorDraft.of(draft.detail))
            self._load(draft.item_id)
