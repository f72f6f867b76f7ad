"""The Item & rules tab: edit the selected item, watch the preview change with every keystroke, save.

Everything that touches the database goes through ``Operations``: the item, its history, the previews (keyed,
so a newer keystroke supersedes an older computation) and the saves (one background write per save, through
``suite.editing.api``). Unsaved drafts are kept per item while the linguist looks at other items, so selecting
elsewhere never throws work away.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from gui.editor.entries import REFERENCE_KINDS, EntryList
from gui.editor.history import HistoryPane
from gui.editor.preview import PreviewPane
from gui.editor.previews import EditorPreviews
from gui.editor.rule_health import RuleHealthPane
from gui.editor.rules import RuleList
from gui.editor.saving import EditorSaving
from gui.editor.scope import ScopePane
from gui.editor.suggestions import SuggestionsPane
from gui.operations import Operations
from gui.settings import Settings
from gui.shortcuts import screen_action
from gui.splitters import restore_splitters, save_splitters
from gui.state import AppState, Selection
from store.domain import Polarity
from suite.assist.item_suggestions import SuggestionSession
from suite.changes import Changes
from suite.editing.api import (
    ItemDetail,
    item_detail,
    item_history,
)
from suite.editing.item_draft import KNOWN_KINDS, POLARITIES, EditorDraft
from suite.engine.preview import (
    Draft,
    ItemPreview,
    PreviewSession,
    ScopePreview,
)

PREVIEW_DELAY_MS = 150
"""Typing pauses shorter than this do not start a preview: a computation per keystroke would only be dropped."""
SCOPE_DELAY_MS = 600
"""The scope preview reads every item of a category or the suite; it waits for a longer pause."""


class ItemEditorScreen(EditorPreviews, EditorSaving, QWidget):
    drafts_changed = Signal()  # a draft became unsaved or saved, or was discarded: ``unsaved()`` may differ

    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.ops = ops
        self._draft: EditorDraft | None = None
        self._drafts: dict[int, EditorDraft] = {}
        self.previews: PreviewSession | None = None
        self.suggesting: SuggestionSession | None = None
        self._saving = False
        self._loading: tuple[int, Callable[[], None]] | None = None  # the item being read, and how to read it again
        self._wanted: int | None = None  # the item to show: the selection's, or one asked for by edit_requested
        self.last_preview: ItemPreview | None = None
        self.last_scope: ScopePreview | None = None
        self._suggested_for: Draft | None = None  # the rules the suggestions shown were measured against

        self._preview_timer = QTimer(self, singleShot=True, interval=PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self.start_preview)
        self._scope_timer = QTimer(self, singleShot=True, interval=SCOPE_DELAY_MS)
        self._scope_timer.timeout.connect(self.start_scope)

        self._build()
        self._build_actions()
        state.database_changed.connect(self._database_changed)
        state.selection_changed.connect(self._selection_changed)
        state.edit_requested.connect(self._edit_requested)
        state.operation_executed.connect(self._operation_executed)
        self._database_changed()

    # --- layout -----------------------------------------------------------------------------------
    def _build(self) -> None:
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)  # a long category or phenomenon takes a second line, not a wider window
        self.state_label = QLabel(self)
        self.state_label.setStyleSheet("color: #666")
        self.save_button = QPushButton("Save", self)
        self.save_button.setToolTip("save the edit (Ctrl+S); the item is relabelled and the edit recorded")
        self.save_button.clicked.connect(self.save)
        self.revert_button = QPushButton("Revert", self)
        self.revert_button.setToolTip("forget the unsaved changes of this item")
        self.revert_button.clicked.connect(self.revert)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.state_label)
        top.addWidget(self.revert_button)
        top.addWidget(self.save_button)

        self.source = QPlainTextEdit(self)
        self.source.setTabChangesFocus(True)
        self.source.setFixedHeight(self.source.fontMetrics().lineSpacing() * 2 + 14)
        self.category = QLineEdit(self)
        self.phenomenon = QLineEdit(self)
        self.comment = QLineEdit(self)
        self.comment.setPlaceholderText("a note for other linguists")
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Source", self.source)
        place = QHBoxLayout()
        place.addWidget(self.category)
        place.addWidget(QLabel("/"))
        place.addWidget(self.phenomenon)
        form.addRow("Category", place)
        form.addRow("Comment", self.comment)
        self.source.textChanged.connect(self._fields_edited)
        for field in (self.category, self.phenomenon, self.comment):
            field.textEdited.connect(self._fields_edited)

        self.rule_lists = {polarity: RuleList(polarity, self) for polarity in POLARITIES}
        for rule_list in self.rule_lists.values():
            rule_list.model.edited.connect(self._draft_edited)
        self.known = EntryList("Known translations", KNOWN_KINDS, lambda draft: draft.known, free_kinds=False,
                               parent=self)
        self.references = EntryList("References", REFERENCE_KINDS, lambda draft: draft.references, free_kinds=True,
                                    parent=self)
        self.known.model.edited.connect(self._draft_edited)
        self.references.model.edited.connect(self._draft_edited)
        self.problems = QLabel(self)
        self.problems.setStyleSheet("color: #B00000")
        self.problems.setWordWrap(True)
        self.suggestions = SuggestionsPane(self)
        self.suggestions.add.connect(self._add_suggestion)

        editor = QWidget(self)
        column = QVBoxLayout(editor)
        column.addLayout(form)
        for widget in (*self.rule_lists.values(), self.suggestions, self.known, self.references, self.problems):
            column.addWidget(widget)
        column.addStretch(1)
        self.editor_scroll = QScrollArea(self)
        self.editor_scroll.setWidgetResizable(True)
        self.editor_scroll.setWidget(editor)
        self.editor_scroll.setMinimumWidth(380)

        self.preview = PreviewPane(self)
        self.scope = ScopePane(self)
        self.scope.scope_changed.connect(lambda _scope: self.start_scope())
        self.scope.open_item.connect(self._open_item)
        self.scope.review.connect(self._review)
        self.history = HistoryPane(self)
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.preview)
        right.addWidget(self.scope)
        right.addWidget(self.history)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 1)
        right.setStretchFactor(2, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.editor_scroll)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.right_splitter = right

        body = QWidget(self)
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        body_layout.addLayout(top)
        body_layout.addWidget(self.splitter, 1)
        self.placeholder = QLabel("Select an item in the suite tree to edit its rules.", self)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet("color: #666")
        self.health = RuleHealthPane(self.state, self.ops, self)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.placeholder)
        self.pages.addWidget(body)
        self.pages.addWidget(self.health)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.pages)

    def _build_actions(self) -> None:
        self.save_action = screen_action(self, "&Save item", QKeySequence.StandardKey.Save, self.save)
        self.revert_action = screen_action(self, "Re&vert item", "", self.revert)
        self.add_positive_action = screen_action(self, "Add p&ositive rule", "Ctrl+Shift+P",
                                                 self.rule_lists[Polarity.POSITIVE].add_rule)
        self.add_negative_action = screen_action(self, "Add &negative rule", "Ctrl+Shift+N",
                                                 self.rule_lists[Polarity.NEGATIVE].add_rule)
        self.take_suggestion_action = screen_action(self, "Add the selected su&ggestion", "Ctrl+Shift+A",
                                                    self.suggestions.add_current)
        self._update_buttons()

    def actions(self) -> list[QAction]:
        """For the main window's Item menu. Undo / redo (Ctrl+Z, Ctrl+Shift+Z) are the window's Edit menu's,
        on the shared undo stack, and Ctrl+F calls ``focus_search``: one action per key in the window, or Qt
        would find the key ambiguous and run neither."""
        return [self.save_action, self.revert_action, self.add_positive_action, self.add_negative_action,
                self.take_suggestion_action]

    def save_settings(self, settings: Settings) -> None:
        save_splitters(settings, {"editor/splitter": self.splitter, "editor/right_splitter": self.right_splitter})
        settings.set("editor/scope", self.scope.current_scope())

    def restore_settings(self, settings: Settings) -> None:
        restore_splitters(settings, {"editor/splitter": self.splitter, "editor/right_splitter": self.right_splitter})
        scope = settings.text("editor/scope")
        if scope and self.scope.scope.findText(scope) >= 0:
            self.scope.scope.setCurrentText(scope)

    # --- what is shown ----------------------------------------------------------------------------
    @property
    def draft(self) -> EditorDraft | None:
        return self._draft

    @property
    def item_id(self) -> int | None:
        """The item shown, or being read to be shown; None while the screen asks for one."""
        return self._wanted

    def _database_changed(self) -> None:
        """Another database: the window asked about unsaved drafts before opening it (``MainWindow``)."""
        self._drafts.clear()
        self.previews = None if self.state.db is None else PreviewSession(self.state.db)
        self.suggesting = None if self.state.db is None else SuggestionSession(self.state.db)
        self._show(None)
        self._selection_changed()

    def _selection_changed(self) -> None:
        self._open(self.state.selection.item_id)

    def _edit_requested(self, selection: Selection) -> None:
        """An item asked for from elsewhere (Review's E), shown while the shared selection stays as it was."""
        if selection.item_id is not None:
            self._open(selection.item_id)

    def _open(self, item_id: int | None) -> None:
        self._wanted = item_id
        if self._draft is not None and self._draft.item_id == item_id:
            return
        if self._draft is not None and self._draft.dirty:
            self._drafts[self._draft.item_id] = self._draft
        if item_id is None or self.state.db is None:
            self._show(None)
            return
        self._load(item_id)

    def _load(self, item_id: int) -> None:
        db = self.state.db
        assert db is not None
        self._loading = item_id, lambda: self._load(item_id)
        self.ops.read(lambda task: item_detail(db, item_id), self._loaded, key="editor-item")

    def _loaded(self, detail: ItemDetail) -> None:
        self._loading = None
        if detail.id != self._wanted:
            return
        self._show(self._drafts.pop(detail.id, None) or EditorDraft.of(detail))

    def _show(self, draft: EditorDraft | None) -> None:
        self._draft = draft
        self._preview_timer.stop()
        self._scope_timer.stop()
        for rule_list in self.rule_lists.values():
            rule_list.model.set_draft(draft)
        self.known.model.set_draft(draft)
        self.references.model.set_draft(draft)
        self.last_preview = self.last_scope = None
        self.preview.show_preview(None)
        self.scope.show_scope(None)
        self.suggestions.show_suggestions(None)
        self._suggested_for = None
        if draft is None:
            self._show_health()
            self.history.show_records([])
            self._update_buttons()
            return
        self.pages.setCurrentIndex(1)
        detail = draft.detail
        self.title.setText(f"<span style='font-size:14pt'><b>{detail.external_id}</b></span>"
                           f"<span style='color:#666'> · {detail.suite}</span>")
        for field, text in ((self.category, draft.category), (self.phenomenon, draft.phenomenon),
                            (self.comment, draft.comment)):
            field.setText(text)
        self.source.blockSignals(True)
        self.source.setPlainText(draft.source)
        self.source.blockSignals(False)
        self._draft_edited()
        self.start_preview()
        self.start_suggestions()
        self._load_history()

    def show_health(self) -> None:
        """Rule health in place of the item shown (its unsaved draft kept for when it is shown again): for an item
        the tree has not selected (a restored draft, Review's E), Rule health did nothing (issue 28)."""
        self._open(None)

    def _show_health(self) -> None:
        """Without an item to edit: the rule health of what the tree has selected (a category, a phenomenon, or
        nothing: the suite), or the placeholder while there is no suite or an item is still being read."""
        selection = self.state.selection
        if self.state.db is None or self.state.suite_name is None or selection.item_id is not None:
            self.pages.setCurrentIndex(0)
            return
        self.pages.setCurrentIndex(2)
        self.health.show_for(selection)

    def _load_history(self) -> None:
        db, draft = self.state.db, self._draft
        if db is None or draft is None:
            return
        external_id, suite = draft.detail.external_id, draft.detail.suite
        self.ops.read(lambda task: item_history(db, external_id, suite), self.history.show_records,
                       key="editor-history")

    def _fields_edited(self) -> None:
        if self._draft is None:
            return
        self._draft.source = self.source.toPlainText()
        self._draft.category = self.category.text().strip()
        self._draft.phenomenon = self.phenomenon.text().strip()
        self._draft.comment = self.comment.text()
        self._show_problems()

    def _show_problems(self) -> None:
        assert self._draft is not None
        problems = self._draft.problems()
        for polarity, rule_list in self.rule_lists.items():
            rule_list.show_problem(next((p.message for p in problems if p.polarity == polarity), None))
        self.problems.setText("\n".join(p.message for p in problems if p.polarity is None))
        self.problems.setVisible(any(p.polarity is None for p in problems))
        self._update_buttons(problems=bool(problems))

    def _draft_edited(self) -> None:
        """A rule, known translation or reference changed: show its problems, preview it after a pause."""
        if self._draft is None:
            return
        self._show_problems()
        self._preview_timer.start()
        self._scope_timer.start()

    def _update_buttons(self, problems: bool | None = None) -> None:
        draft = self._draft
        dirty = draft is not None and draft.dirty
        if problems is None:
            problems = draft is not None and bool(draft.problems())
        can_save = dirty and not problems and not self._saving
        self.save_button.setEnabled(can_save)
        self.save_action.setEnabled(can_save)
        self.revert_button.setEnabled(dirty and not self._saving)
        self.revert_action.setEnabled(dirty and not self._saving)
        self.state_label.setText("saving…" if self._saving else
                                 "cannot save: see the message in red" if dirty and problems else
                                 "unsaved changes" if dirty else "")
        self.drafts_changed.emit()

    def focus_search(self) -> None:
        """Ctrl+F here: the first pattern field (a new positive rule when the item has none)."""
        for rule_list in self.rule_lists.values():
            editor = rule_list.editor(0)
            if editor is not None:
                editor.setFocus()
                editor.selectAll()
                return
        self.rule_lists[Polarity.POSITIVE].add_rule()

    def _operation_executed(self, changes: Changes) -> None:
        """Another write (a review, an import, an undo) may have changed what this item shows, and what a read of
        an item still under way has read: that read starts again (the newer read supersedes it)."""
        reach = changes.item_content
        if not (reach or changes.reviews or changes.taxonomy):
            return
        if self.suggesting is not None:
            self.suggesting.invalidate()  # other items' labels teach the suggestions too
        draft, loading = self._draft, self._loading
        if loading is not None and (reach.reaches([loading[0]]) or changes.reviews or changes.taxonomy):
            loading[1]()
        if draft is None or not (reach.reaches([draft.item_id]) or changes.taxonomy or changes.reviews.reaches(
                output.output_id for output in draft.detail.outputs)):
            return
        if self.previews is not None:
            self.previews.invalidate(draft.item_id)
        if draft.dirty or loading is not None and loading[0] == draft.item_id:
            self.start_preview()
            self.start_suggestions()
            self._load_history()
        else:
            self._load(draft.item_id)

    def shows(self, changes: Changes) -> bool:
        """Whether a change is one of this screen's: an edit of the item it shows, not a reviewer's decision."""
        items = (changes.items | changes.references).ids
        return self.item_id is not None and not changes.reviews and bool(items) and items <= {self.item_id}
