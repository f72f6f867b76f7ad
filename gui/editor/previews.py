"""What the Item & rules screen computes in the background while the linguist types: the item's preview (its
outputs relabelled by the draft), rule suggestions from its decided outputs, and the scope preview (the changed
rules tried on the other items of its phenomenon, category or suite). Each read is keyed, so a newer keystroke
supersedes an older computation, and a failure is said in its pane, not in a dialog per keystroke.
"""
from __future__ import annotations

from PySide6.QtCore import QPoint

from gui.editor.surface import EditorSurface
from gui.state import Selection
from store.domain import Polarity
from suite.assist.item_suggestions import ItemSuggestions
from suite.assist.rule_suggestions import RuleSuggestion
from suite.engine.preview import (
    Draft,
    ItemFlips,
    ItemPreview,
    ScopePreview,
    preview_scope,
)
from suite.errors import TsqeError
from suite.reading.browse import OutputFilter


class EditorPreviews(EditorSurface):
    """The previews, suggestions and scope of the draft shown."""

    def start_preview(self) -> None:
        """Preview the draft now (the debounce timer calls this; tests and the bench call it directly)."""
        self._preview_timer.stop()
        draft, previews = self._draft, self.previews
        if draft is None or previews is None:
            return
        item_id, snapshot = draft.item_id, draft.preview_draft()
        self.ops.read(lambda task: previews.preview(item_id, snapshot), self._preview_ready,
                      on_failure=self._preview_failed, key="editor-preview")

    def _preview_failed(self, error: Exception) -> bool:
        """A preview that fails (the item was removed meanwhile, a core error) is said under the table, not in a
        dialog per keystroke."""
        if not isinstance(error, TsqeError):
            return False
        self.last_preview = None
        self.preview.show_preview(None)
        self.preview.status.setText(f"no preview: {error}")
        return True

    def _preview_ready(self, preview: ItemPreview) -> None:
        draft = self._draft
        if draft is None or preview.item_id != draft.item_id:
            return
        self.last_preview = preview
        self.preview.show_preview(preview)
        matches = draft.matches(preview)
        for polarity, rule_list in self.rule_lists.items():
            rule_list.model.set_matches(matches[polarity])
        if self._suggested_for is not None and draft.preview_draft() != self._suggested_for:
            self.start_suggestions(again=True)  # the rules changed: what is left to decide did too

    def start_suggestions(self, *, again: bool = False) -> None:
        """Suggest rules for the item from its stored decided outputs, measured against the draft's rules: the
        list said "decides 6 here" after the draft already decided those six (issue 28). What a linguist types
        decides nothing yet, so the evidence stays the stored decisions. ``again``: the list stays until the new
        one replaces it (a recomputation after an edit)."""
        draft, session = self._draft, self.suggesting
        if draft is None or session is None:
            return
        item_id, rules = draft.item_id, draft.preview_draft()
        against = rules if draft.dirty else None
        self._suggested_for = rules
        if not again:
            self.suggestions.show_suggestions(None, "finding rules the decided outputs suggest…")
        self.ops.read(lambda task: session.suggestions(item_id, draft=against, task=task),
                      lambda found: self._suggestions_ready(found, rules),
                      on_failure=self._suggestions_failed, key="editor-suggestions")

    def _suggestions_ready(self, found: ItemSuggestions, rules: Draft) -> None:
        if self._draft is not None and found.item_id == self._draft.item_id and rules == self._suggested_for:
            self.suggestions.show_suggestions(found)

    def _suggestions_failed(self, error: Exception) -> bool:
        if not isinstance(error, TsqeError):
            return False
        self.suggestions.show_suggestions(None, f"no suggestions: {error}")
        return True

    def _add_suggestion(self, suggestion: RuleSuggestion) -> None:
        """A suggestion taken: a new rule of the draft, previewed at once like a typed one."""
        rule_list = self.rule_lists[Polarity(suggestion.polarity)]
        rule_list.add_pattern(suggestion.pattern, suggestion.ignore_case)
        column = self.editor_scroll.widget()
        if column is not None:  # down to the new rule, never sideways
            self.editor_scroll.ensureVisible(0, rule_list.mapTo(column, QPoint(0, rule_list.height())).y(), 0, 20)
        self.start_preview()

    def start_scope(self) -> None:
        self._scope_timer.stop()
        db, draft = self.state.db, self._draft
        if db is None or draft is None:
            return
        added, scope, item_id = draft.changed_rules(), self.scope.current_scope(), draft.item_id
        if not added:
            self.last_scope = None
            self.scope.show_scope(None, "No new or changed rule to try on other items yet.")
            return
        self.scope.show_scope(None, f"trying {len(added)} rule{'s' if len(added) > 1 else ''} on this {scope}…")
        self.ops.read(lambda task: preview_scope(db, item_id, added, scope, task=task), self._scope_ready,
                      on_failure=self._scope_failed, key="editor-scope")

    def _scope_failed(self, error: Exception) -> bool:
        if not isinstance(error, TsqeError):
            return False
        self.last_scope = None
        self.scope.show_scope(None, f"no scope preview: {error}")
        return True

    def _scope_ready(self, preview: ScopePreview) -> None:
        self.last_scope = preview
        self.scope.show_scope(preview)

    def _open_item(self, item: ItemFlips) -> None:
        self.state.select(Selection(item.category, item.phenomenon, item.item_id))

    def _review(self, items: list[ItemFlips]) -> None:
        self.state.show_review(OutputFilter(item_ids=tuple(item.item_id for item in items)))
