"""What the Item & rules screen's parts (previews, saving) use of the screen, declared once for mypy.

At run time ``EditorSurface`` is ``object`` and the parts are plain mixins of ``gui.editor.screen.ItemEditorScreen``,
which builds every attribute named here; for mypy it is a ``QWidget`` with them, so each part is checked.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtCore import QTimer, SignalInstance
    from PySide6.QtWidgets import QScrollArea, QWidget

    from gui.editor.preview import PreviewPane
    from gui.editor.rules import RuleList
    from gui.editor.scope import ScopePane
    from gui.editor.suggestions import SuggestionsPane
    from gui.operations import Operations
    from gui.state import AppState
    from store.domain import Polarity
    from suite.assist.item_suggestions import SuggestionSession
    from suite.editing.item_draft import EditorDraft
    from suite.engine.preview import Draft, ItemPreview, PreviewSession, ScopePreview

    class EditorSurface(QWidget):
        state: AppState
        ops: Operations
        drafts_changed: SignalInstance
        _draft: EditorDraft | None
        _drafts: dict[int, EditorDraft]
        _saving: bool
        _loading: tuple[int, Callable[[], None]] | None
        _wanted: int | None
        _preview_timer: QTimer
        _scope_timer: QTimer
        previews: PreviewSession | None
        suggesting: SuggestionSession | None
        last_preview: ItemPreview | None
        last_scope: ScopePreview | None
        _suggested_for: Draft | None
        rule_lists: dict[Polarity, RuleList]
        editor_scroll: QScrollArea
        preview: PreviewPane
        scope: ScopePane
        suggestions: SuggestionsPane

        def _load(self, item_id: int) -> None: ...
        def _show(self, draft: EditorDraft | None) -> None: ...
        def _update_buttons(self, problems: bool | None = None) -> None: ...
else:
    EditorSurface = object
