"""The item & rules editor on the demo suite: live preview, refused patterns, save / undo / redo with history,
a catastrophic pattern that times out while the window keeps answering, and its models under Qt's tester."""
from __future__ import annotations

import itertools
import re
import time
from pathlib import Path

import pytest
from conftest import first_call_held, model_tested, shown_errors
from hostile_helpers import bounded_address_space
from PySide6.QtCore import QModelIndex, QSettings, Qt, QTimer
from PySide6.QtGui import QTextCharFormat
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget
from pytestqt.qtbot import QtBot
from sqlalchemy import func, select

import gui.editor.screen as screen_module
from gui.editor.pattern_edit import PatternEdit
from gui.editor.screen import ItemEditorScreen
from gui.main_window import MainWindow
from gui.operations import Operations
from gui.settings import Settings
from gui.state import AppState, Selection
from store import Database, open_database
from store.domain import Polarity
from store.models import Output
from suite.demo import DEMO_SUITE
from suite.editing.api import change_rule, find_item, item_detail, item_history, remove_item
from suite.engine.labelling import relabel
from suite.importers import import_outputs, import_suite
from suite.reading.browse import OutputFilter


def _open(screen: ItemEditorScreen, state: AppState, ops: Operations, external_id: str) -> int:
    assert state.db is not None
    item_id = find_item(state.db, external_id, DEMO_SUITE)
    state.select(Selection(item_id=item_id))
    assert ops.wait_idle()
    assert screen.draft is not None and screen.draft.item_id == item_id
    return item_id


def _editor(screen: ItemEditorScreen, polarity: Polarity, row: int) -> PatternEdit:
    editor = screen.rule_lists[polarity].editor(row)
    assert editor is not None
    return editor


def _type(qtbot: QtBot, editor: PatternEdit, text: str) -> None:
    editor.setFocus()
    editor.selectAll()
    qtbot.keyClick(editor, Qt.Key.Key_Delete)
    qtbot.keyClicks(editor, text)


def _preview_settled(qtbot: QtBot, screen: ItemEditorScreen, ops: Operations) -> None:
    """Wait until the debounce has started the preview, then for the background preview."""
    qtbot.waitUntil(lambda: not screen._preview_timer.isActive())
    assert ops.wait_idle()


def test_typing_a_pattern_shows_its_matches_and_flips(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                      ops: Operations) -> None:
    _open(screen, state, ops, "amb-01")
    preview = screen.last_preview
    assert preview is not None and preview.flips == {}
    assert len(preview.outputs) == screen.preview.model.rowCount() == 4
    assert "no label changes" in screen.preview.flips.text()

    # "bench" no longer counts: the outputs that said "bench" lose their pass.
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 0), r"\bseat\b")
    _preview_settled(qtbot, screen, ops)
    preview = screen.last_preview
    assert preview is not None and preview.flips == {"pass->unknown": 2, "conflict->fail": 1}
    assert "pass" in screen.preview.flips.text() and "→" in screen.preview.flips.text()
    assert screen.save_button.isEnabled()
    assert all(span.polarity != "positive" for o in preview.outputs for span in o.spans)

    # a positive rule that matches every output turns the one negative match into a conflict
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 0), r"painted")
    _preview_settled(qtbot, screen, ops)
    preview = screen.last_preview
    assert preview is not None and "fail->conflict" in preview.flips
    positives = [s for o in preview.outputs for s in o.spans if s.polarity == "positive"]
    negatives = [s for o in preview.outputs for s in o.spans if s.polarity == "negative"]
    assert len(positives) == 4 and negatives
    assert screen.rule_lists[Polarity.POSITIVE].model.index(0, 3).data() == "4"


def test_an_invalid_pattern_is_underlined_explained_and_cannot_be_saved(qtbot: QtBot, screen: ItemEditorScreen,
                                                                        state: AppState, ops: Operations) -> None:
    _open(screen, state, ops, "amb-02")
    editor = _editor(screen, Polarity.POSITIVE, 0)
    _type(qtbot, editor, r"\b(lock")
    assert editor.has_problem()
    message = screen.rule_lists[Polarity.POSITIVE].problem
    assert message.isVisible()
    assert message.text() == "positive rule 1: pattern does not compile at position 7: missing )"
    underlined = [(f.start, f.length) for f in editor.document().firstBlock().layout().formats()
                  if f.format.underlineStyle() == QTextCharFormat.UnderlineStyle.WaveUnderline]
    assert underlined == [(6, 1)]  # at the end, where the ")" is missing
    assert not screen.save_button.isEnabled() and not screen.save_action.isEnabled()
    screen.save_action.trigger()
    assert ops.wait_idle()
    assert state.db is not None and screen.draft is not None
    assert [r.spec.pattern for r in item_detail(state.db, screen.draft.item_id).rules
            if r.spec.polarity == "positive"] == [r"\block\b"]
    qtbot.keyClicks(editor, ")")
    assert not editor.has_problem() and not message.isVisible()
    assert screen.save_button.isEnabled()


def test_save_undo_and_redo_a_rule_with_history(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                ops: Operations) -> None:
    assert state.db is not None
    db: Database = state.db
    item_id = _open(screen, state, ops, "amb-02")
    before = item_detail(db, item_id)
    screen.rule_lists[Polarity.NEGATIVE].add_rule()
    _type(qtbot, _editor(screen, Polarity.NEGATIVE, 1), r"\bjammed\b")
    _preview_settled(qtbot, screen, ops)
    assert screen.last_preview is not None and "pass->conflict" in screen.last_preview.flips

    qtbot.keyClick(_editor(screen, Polarity.NEGATIVE, 1), Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert ops.wait_idle()
    saved = item_detail(db, item_id)
    added = [r for r in saved.rules if r.spec.pattern == r"\bjammed\b"]
    assert len(added) == 1 and added[0].spec.polarity == "negative"
    assert sum(1 for o in saved.outputs if o.auto_label == "conflict") == 1
    assert screen.draft is not None and not screen.draft.dirty
    history = item_history(db, "amb-02", DEMO_SUITE)
    assert (history[0].entity, history[0].action, history[0].author) == ("rule", "add", "Test Reviewer")
    assert screen.history.model.rowCount() == len(history)
    assert "add rule" in screen.history.model.index(0, 2).data()
    assert state.undo_stack.canUndo()

    state.undo_stack.undo()
    assert ops.wait_idle()
    undone = item_detail(db, item_id)
    assert [(r.spec.polarity, r.spec.pattern) for r in undone.rules] == [(r.spec.polarity, r.spec.pattern)
                                                                      for r in before.rules]
    assert [o.auto_label for o in undone.outputs] == [o.auto_label for o in before.outputs]
    history = item_history(db, "amb-02", DEMO_SUITE)
    assert (history[0].entity, history[0].action) == ("rule", "remove")
    assert screen.history.model.rowCount() == len(history)
    assert [r.spec.pattern for r in screen.draft.rules["negative"]] == [r.spec.pattern for r in before.rules
                                                                    if r.spec.polarity == "negative"]

    state.undo_stack.redo()
    assert ops.wait_idle()
    redone = item_detail(db, item_id)
    assert [r.spec.pattern for r in redone.rules if r.spec.polarity == "negative"][-1] == r"\bjammed\b"
    history = item_history(db, "amb-02", DEMO_SUITE)
    assert (history[0].entity, history[0].action) == ("rule", "add")
    assert screen.history.model.rowCount() == len(history) == 3

    # and back again: the undo finds the re-created rule under its new id
    state.undo_stack.undo()
    assert ops.wait_idle()
    assert r"\bjammed\b" not in [r.spec.pattern for r in item_detail(db, item_id).rules]
    assert shown_errors() == []


def test_undo_of_a_changed_and_a_removed_rule(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                              ops: Operations) -> None:
    assert state.db is not None
    db: Database = state.db
    item_id = _open(screen, state, ops, "amb-03")
    before = item_detail(db, item_id)
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 0), r"\bflowers?\b")
    screen.save()
    assert ops.wait_idle()
    screen.rule_lists[Polarity.NEGATIVE].view.setCurrentIndex(screen.rule_lists[Polarity.NEGATIVE].model.index(0, 1))
    screen.rule_lists[Polarity.NEGATIVE].remove_rule()
    screen.save()
    assert ops.wait_idle()
    assert [r.spec.pattern for r in item_detail(db, item_id).rules] == [r"\bflowers?\b"]
    state.undo_stack.undo()
    assert ops.wait_idle()
    state.undo_stack.undo()
    assert ops.wait_idle()
    after = item_detail(db, item_id)
    assert [(r.spec.polarity, r.spec.pattern, r.position) for r in after.rules] == \
        [(r.spec.polarity, r.spec.pattern, r.position) for r in before.rules]
    assert [o.auto_label for o in after.outputs] == [o.auto_label for o in before.outputs]
    assert shown_errors() == []


def _refusal() -> QMessageBox:
    """The one "edit refused" dialog: the core's words, and a choice between the two versions."""
    [box] = [box for box in shown_errors() if "edit refused" in box.windowTitle()]
    assert re.search(r"changed by jonas\.w at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: now positive", box.text())
    assert box.button(QMessageBox.StandardButton.Yes).text() == "Reload"
    assert box.button(QMessageBox.StandardButton.No).text() == "Keep my changes"
    return box


def test_an_undo_right_after_a_save_is_what_the_editor_shows(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                             ops: Operations, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+Z while the editor still reads back the item it has just saved: that read saw the item before the
    undo, and it once landed after it, showing the undone rule as stored (the next save was then refused)."""
    assert state.db is not None
    db: Database = state.db
    item_id = _open(screen, state, ops, "amb-03")
    before = [(r.spec.polarity, r.spec.pattern) for r in item_detail(db, item_id).rules]
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 0), r"\bflowers?\b")
    with first_call_held(monkeypatch, screen_module, "item_detail") as held:
        screen.save()
        qtbot.waitUntil(held.is_set)  # the item as saved has been read back
        with qtbot.waitSignal(state.operation_executed):
            state.undo_stack.undo()
    assert ops.wait_idle()
    assert [(r.spec.polarity, r.spec.pattern) for r in item_detail(db, item_id).rules] == before
    assert screen.draft is not None and not screen.draft.dirty
    assert [(r.spec.polarity, r.spec.pattern) for r in screen.draft.all_rules()] == before
    assert shown_errors() == []


def test_a_colleagues_change_is_never_overwritten(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                  ops: Operations, colleague: Database) -> None:
    assert state.db is not None
    db: Database = state.db
    item_id = _open(screen, state, ops, "amb-02")
    stored = item_detail(db, item_id).rules[0]
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 0), r"\block(ed)?\b")
    screen.known.model.add("good")
    screen.known.model.setData(screen.known.model.index(0, 1), "The lock is stuck.")
    # meanwhile a colleague, in another window, changes the same rule
    change_rule(colleague, stored.id, pattern=r"\b(lock|latch)\b", author="jonas.w", expected_version=stored.version)
    screen.save()
    assert ops.wait_idle()
    _refusal().button(QMessageBox.StandardButton.No).click()
    assert ops.wait_idle()
    detail = item_detail(db, item_id)
    assert detail.rules[0].spec.pattern == r"\b(lock|latch)\b" and detail.known == []
    # the linguist's changes are kept on top of the colleague's version; saving them now is deliberate
    assert screen.draft is not None and screen.draft.dirty
    assert screen.draft.rules["positive"][0].spec.pattern == r"\block(ed)?\b"
    assert [row.text for row in screen.draft.known] == ["The lock is stuck."]
    screen.save()
    assert ops.wait_idle()
    detail = item_detail(db, item_id)
    assert detail.rules[0].spec.pattern == r"\block(ed)?\b"
    assert [(k.kind, k.text) for k in detail.known] == [("good", "The lock is stuck.")]
    assert shown_errors() == []


def test_reload_after_a_refused_save_shows_the_colleagues_version(qtbot: QtBot, screen: ItemEditorScreen,
                                                                  state: AppState, ops: Operations,
                                                                  colleague: Database) -> None:
    assert state.db is not None
    db: Database = state.db
    item_id = _open(screen, state, ops, "amb-02")
    stored = item_detail(db, item_id).rules[0]
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 0), r"\block(ed)?\b")
    change_rule(colleague, stored.id, pattern=r"\b(lock|latch)\b", author="jonas.w", expected_version=stored.version)
    screen.save()
    assert ops.wait_idle()
    _refusal().button(QMessageBox.StandardButton.Yes).click()
    assert ops.wait_idle()
    assert screen.draft is not None and not screen.draft.dirty
    assert screen.draft.rules["positive"][0].spec.pattern == r"\b(lock|latch)\b"
    assert _editor(screen, Polarity.POSITIVE, 0).text() == r"\b(lock|latch)\b"
    assert item_detail(db, item_id).rules[0].spec.pattern == r"\b(lock|latch)\b"
    assert shown_errors() == []


def test_reorder_with_alt_down_and_known_translations(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                      ops: Operations) -> None:
    assert state.db is not None
    db: Database = state.db
    item_id = _open(screen, state, ops, "amb-04")
    rules = screen.rule_lists[Polarity.NEGATIVE]
    assert screen.draft is not None
    patterns = [row.spec.pattern for row in screen.draft.rules["negative"]]
    rules.add_rule()
    _type(qtbot, _editor(screen, Polarity.NEGATIVE, len(patterns)), r"\bleader\b")
    qtbot.keyClick(_editor(screen, Polarity.NEGATIVE, len(patterns)), Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert [row.spec.pattern for row in screen.draft.rules[Polarity.NEGATIVE]] == [*patterns[:-1], r"\bleader\b",
                                                                                  patterns[-1]]
    screen.known.model.add("bad")
    screen.known.model.setData(screen.known.model.index(0, 1), "The leader of the department stood on the ladder.")
    screen.save()
    assert ops.wait_idle()
    saved = item_detail(db, item_id)
    assert [r.spec.pattern for r in saved.rules if r.spec.polarity == "negative"] == [*patterns[:-1], r"\bleader\b",
                                                                           patterns[-1]]
    assert [(k.kind, k.text) for k in saved.known] == [("bad", "The leader of the department stood on the ladder.")]
    state.undo_stack.undo()
    assert ops.wait_idle()
    undone = item_detail(db, item_id)
    assert [r.spec.pattern for r in undone.rules if r.spec.polarity == "negative"] == patterns
    assert undone.known == []


def test_a_catastrophic_pattern_times_out_while_the_window_answers(qtbot: QtBot, screen: ItemEditorScreen,
                                                                   state: AppState, ops: Operations,
                                                                   tmp_path: Path) -> None:
    assert state.db is not None
    db: Database = state.db
    outputs = tmp_path / "outputs.tsv"
    outputs.write_text("item_id\tsystem\toutput\namb-02\tStress-Test\t" + "a" * 60 + "b\n", encoding="utf-8")
    import_outputs(db, outputs, suite_name=DEMO_SUITE)
    _open(screen, state, ops, "amb-02")

    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(10)
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 0), r"^(a|aa)+$")
    _preview_settled(qtbot, screen, ops)
    timer.stop()
    preview = screen.last_preview
    assert preview is not None
    stressed = [o for o in preview.outputs if o.stored.text.startswith("aaaa")]
    assert len(stressed) == 1 and stressed[0].timed_out and stressed[0].label_after == "error"
    row = [screen.preview.model.output(r).stored.output_id for r in range(screen.preview.model.rowCount())] \
        .index(stressed[0].stored.output_id)
    assert screen.preview.model.index(row, 3).data() == "error (timed out)"
    assert "timed out" in screen.preview.flips.text()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert gaps and max(gaps) < 0.25, f"the event loop stalled for {max(gaps):.2f} s"


def test_scope_preview_lists_other_items_and_jumps_to_them(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                           ops: Operations) -> None:
    item_id = _open(screen, state, ops, "amb-01")
    screen.scope.scope.setCurrentText("category")
    screen.rule_lists[Polarity.NEGATIVE].add_rule()
    _type(qtbot, _editor(screen, Polarity.NEGATIVE, 1), r"\bthe\b")
    screen.start_scope()
    assert ops.wait_idle()
    scope = screen.last_scope
    assert scope is not None and scope.scope == "category" and scope.items
    assert screen.scope.model.rowCount() == len(scope.items)
    assert screen.scope.review_button.isEnabled()
    requested: list[OutputFilter] = []
    state.review_requested.connect(requested.append)
    screen.scope.review_button.click()
    assert requested and requested[0].item_ids == tuple(i.item_id for i in scope.items)

    other = next(i for i in scope.items if i.item_id != item_id)
    row = [i.item_id for i in scope.items].index(other.item_id)
    screen.scope.view.doubleClicked.emit(screen.scope.model.index(row, 0))
    assert ops.wait_idle()
    assert screen.draft is not None
    assert state.selection.item_id == other.item_id and screen.draft.item_id == other.item_id
    # the unsaved draft of amb-01 is still there when the linguist comes back
    state.select(Selection(item_id=item_id))
    assert ops.wait_idle()
    assert screen.draft.dirty and screen.draft.rules["negative"][1].spec.pattern == r"\bthe\b"


def test_every_model_passes_qt_model_tester(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                            ops: Operations) -> None:
    testers = [model_tested(model) for model in (
        screen.rule_lists[Polarity.POSITIVE].model, screen.rule_lists[Polarity.NEGATIVE].model, screen.known.model,
        screen.references.model, screen.preview.model, screen.scope.model, screen.history.model)]
    _open(screen, state, ops, "amb-04")
    rules = screen.rule_lists[Polarity.POSITIVE]
    rules.add_rule()
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 1), r"\bchief\b")
    rules.view.setCurrentIndex(rules.model.index(1, 1))
    rules.move_rule(-1)
    rules.model.move(0, 1)
    screen.references.model.add("paraphrase")
    screen.known.model.add("good")
    screen.known.model.removeRows(0, 1)
    screen.scope.scope.setCurrentText("suite")
    screen.start_scope()
    _preview_settled(qtbot, screen, ops)
    screen.save()  # refused: the known translation was removed but the reference is empty
    assert ops.wait_idle()
    screen.references.model.removeRows(0, 1)
    screen.save()
    assert ops.wait_idle()
    _open(screen, state, ops, "neg-05")
    assert len(testers) == 7
    assert QApplication.instance() is not None


def test_the_keys_in_the_main_window(qtbot: QtBot, window: MainWindow) -> None:
    """Ctrl+1 shows the editor, Ctrl+F its first pattern field, Ctrl+S saves, Ctrl+Z / Ctrl+Shift+Z (the Edit
    menu's, on the shared undo stack) undo and redo the save; in a pattern field Ctrl+Z undoes typing."""
    assert window.state.db is not None
    db: Database = window.state.db
    screen = window.editor
    qtbot.keyClick(window, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is screen
    item_id = find_item(db, "vt-02", DEMO_SUITE)
    window.state.select(Selection(item_id=item_id))
    assert window.ops.wait_idle()
    before = [r.spec.pattern for r in item_detail(db, item_id).rules]
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    field = _editor(screen, Polarity.POSITIVE, 0)
    assert QApplication.focusWidget() is field
    qtbot.keyClick(field, Qt.Key.Key_End)
    qtbot.keyClicks(field, "|xyz")
    qtbot.keyClick(field, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the field's own undo
    assert field.text() == before[0]
    qtbot.keyClicks(field, "|xyz")
    qtbot.keyClick(field, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert window.ops.wait_idle()
    assert item_detail(db, item_id).rules[0].spec.pattern == before[0] + "|xyz"
    screen.preview.view.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.ops.wait_idle()
    assert [r.spec.pattern for r in item_detail(db, item_id).rules] == before
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.ops.wait_idle()
    assert item_detail(db, item_id).rules[0].spec.pattern == before[0] + "|xyz"
    assert [a.text() for a in window.menuBar().actions()].count("&Item") == 1
    assert shown_errors() == []


def test_dragging_a_rule_moves_it_and_the_history_shows_before_and_after(qtbot: QtBot, screen: ItemEditorScreen,
                                                                         state: AppState, ops: Operations) -> None:
    assert state.db is not None
    db: Database = state.db
    item_id = _open(screen, state, ops, "amb-03")
    model = screen.rule_lists[Polarity.POSITIVE].model
    model.add()
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 1), r"\bblooms\b")
    dragged = model.mimeData([model.index(1, 0)])
    assert not model.dropMimeData(dragged, Qt.DropAction.MoveAction, 0, 0, QModelIndex())  # the view removes nothing
    assert screen.draft is not None
    assert [row.spec.pattern for row in screen.draft.rules["positive"]] == [
        r"\bblooms\b", r"\b(bouquet|bunch of flowers|flowers)\b"]
    assert _editor(screen, Polarity.POSITIVE, 0).text() == r"\bblooms\b"  # the field moved with its rule
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 1), r"\b(bouquet|flowers)\b")
    screen.save()
    assert ops.wait_idle()
    assert [r.spec.pattern for r in item_detail(db, item_id).rules if r.spec.polarity == "positive"] == [
        r"\bblooms\b", r"\b(bouquet|flowers)\b"]
    texts = [screen.history.model.index(row, 3).data() for row in range(screen.history.model.rowCount())]
    assert r"pattern: \b(bouquet|bunch of flowers|flowers)\b → \b(bouquet|flowers)\b" in texts, texts


def test_references_are_added_changed_and_removed(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                  ops: Operations) -> None:
    assert state.db is not None
    db: Database = state.db
    item_id = _open(screen, state, ops, "amb-01")
    references = screen.references.model
    assert references.rowCount() == 1
    references.setData(references.index(0, 1), "The bench by the river bank had been freshly painted.")
    references.add("paraphrase")
    references.setData(references.index(1, 1), "Someone had just painted the bench on the riverbank.")
    screen.save()
    assert ops.wait_idle()
    assert [(r.kind, r.text) for r in item_detail(db, item_id).references] == [
        ("standard", "The bench by the river bank had been freshly painted."),
        ("paraphrase", "Someone had just painted the bench on the riverbank.")]
    screen.references.view.setCurrentIndex(references.index(0, 1))
    screen.references.remove_row()
    screen.save()
    assert ops.wait_idle()
    assert [r.kind for r in item_detail(db, item_id).references] == ["paraphrase"]
    state.undo_stack.undo()
    assert ops.wait_idle()
    state.undo_stack.undo()
    assert ops.wait_idle()
    assert [(r.kind, r.text) for r in item_detail(db, item_id).references] == [
        ("standard", "The bench on the riverbank had been freshly painted.")]


@pytest.mark.shared
def test_on_the_real_dfki_suite_the_preview_is_what_saving_stores(qtbot: QtBot, tmp_path: Path, shared_data: Path
                                                                   ) -> None:
    """The DFKI de-en suite with the WMT21 outputs: on its item with the most distinct outputs, a negative rule
    typed in the editor previews exactly the automatic labels that saving it then stores."""
    db = open_database(tmp_path / "dfki.sqlite")
    import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    relabel(db)
    with db.session() as session:
        item_id = session.scalar(select(Output.item_id).group_by(Output.item_id)
                                 .order_by(func.count().desc(), Output.item_id).limit(1))
    assert item_id is not None
    app_state = AppState()
    app_state.open(db, None)
    parent = QWidget()
    qtbot.addWidget(parent)
    operations = Operations(app_state, parent)
    editor = ItemEditorScreen(app_state, operations)
    qtbot.addWidget(editor)
    app_state.select(Selection(item_id=item_id))
    assert operations.wait_idle()
    stored = {o.output_id: o.auto_label for o in item_detail(db, item_id).outputs}
    assert editor.last_preview is not None
    assert {o.stored.output_id: o.stored.label for o in editor.last_preview.outputs} == stored
    editor.rule_lists[Polarity.NEGATIVE].add_rule()
    field = editor.rule_lists[Polarity.NEGATIVE].editor(editor.rule_lists[Polarity.NEGATIVE].model.rowCount() - 1)
    assert field is not None
    qtbot.keyClicks(field, r"\bday\b")  # its outputs speak of a washing / laundry day
    editor.start_preview()
    assert operations.wait_idle()
    preview = {o.stored.output_id: o.label_after for o in editor.last_preview.outputs}
    assert preview != stored
    editor.save()
    assert operations.wait_idle()
    assert {o.output_id: o.auto_label for o in item_detail(db, item_id).outputs} == preview
    db.close()


def test_a_removed_item_is_said_under_the_preview_not_in_dialogs(qtbot: QtBot, screen: ItemEditorScreen,
                                                                 state: AppState, ops: Operations) -> None:
    assert state.db is not None
    db: Database = state.db
    item_id = _open(screen, state, ops, "amb-02")
    remove_item(db, item_id, author="jonas.w")  # by a colleague, in another window
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 0), r"\blatch\b")
    _preview_settled(qtbot, screen, ops)
    assert screen.last_preview is None
    assert "no preview" in screen.preview.status.text() and "no item" in screen.preview.status.text()
    assert shown_errors() == []


def test_splitters_and_scope_are_remembered(qtbot: QtBot, state: AppState, ops: Operations, tmp_path: Path) -> None:
    first = ItemEditorScreen(state, ops)
    qtbot.addWidget(first)
    first.resize(1400, 900)
    first.show()
    first.splitter.setSizes([300, 1100])
    first.scope.scope.setCurrentText("suite")
    settings = Settings(QSettings(str(tmp_path / "editor.ini"), QSettings.Format.IniFormat))
    first.save_settings(settings)
    second = ItemEditorScreen(state, ops)
    qtbot.addWidget(second)
    second.resize(1400, 900)
    second.show()
    second.restore_settings(settings)
    assert second.splitter.sizes() == first.splitter.sizes()
    assert second.scope.current_scope() == "suite"


def test_a_new_empty_rule_does_not_turn_the_outputs_into_errors(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                                ops: Operations) -> None:
    """Adding a rule (Ctrl+Shift+P) showed every output as error ("empty pattern") before a key was typed."""
    _open(screen, state, ops, "amb-01")
    assert screen.last_preview is not None
    before = {o.stored.output_id: o.label_after for o in screen.last_preview.outputs}
    screen.add_positive_action.trigger()
    _preview_settled(qtbot, screen, ops)
    screen.start_preview()
    assert ops.wait_idle()
    preview = screen.last_preview
    assert preview is not None and preview.problems == [] and preview.flips == {}
    assert {o.stored.output_id: o.label_after for o in preview.outputs} == before
    assert not screen.rule_lists[Polarity.POSITIVE].problem.isVisible()
    assert "error" not in screen.preview.flips.text()
    _type(qtbot, _editor(screen, Polarity.POSITIVE, 1), "painted")  # once typed, it is a rule like any other
    _preview_settled(qtbot, screen, ops)
    assert {o.label_after for o in screen.last_preview.outputs} >= {"pass"}


@pytest.mark.parametrize("pattern", ["(?:a{65535}){65535}", "(" * 300 + "a" + ")" * 300])
def test_typing_a_pattern_that_would_exhaust_the_compiler_is_refused_at_once(qtbot: QtBot, screen: ItemEditorScreen,
                                                                             state: AppState, ops: Operations,
                                                                             pattern: str) -> None:
    """Typed key by key, every prefix was compiled on the main thread: from ``(?:a{65535}){65}`` on, each wanted
    gigabytes. Run under a bound on this process's address space, so that code without the bound on patterns
    fails with ``MemoryError`` instead of taking the machine's memory."""
    assert state.db is not None
    item_id = _open(screen, state, ops, "amb-02")
    editor = _editor(screen, Polarity.POSITIVE, 0)
    started = time.monotonic()
    with bounded_address_space():
        _type(qtbot, editor, pattern)
        _preview_settled(qtbot, screen, ops)
    assert time.monotonic() - started < 30  # every keystroke answered: each prefix is checked in microseconds
    message = screen.rule_lists[Polarity.POSITIVE].problem
    assert message.isVisible() and message.text().startswith("positive rule 1: pattern is too complex: ")
    assert "1 pattern of the draft is too complex, so every output" in screen.preview.flips.text()
    assert "not compile" not in screen.preview.flips.text()
    assert editor.has_problem() and not screen.save_button.isEnabled()
    screen.save_action.trigger()
    assert ops.wait_idle()
    assert [r.spec.pattern for r in item_detail(state.db, item_id).rules
            if r.spec.polarity == "positive"] == [r"\block\b"]
    assert shown_errors() == []
