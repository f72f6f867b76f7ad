"""What a keyboard-only walk through the window on the demo found, kept from coming back: from Review, E opens the
current output's item in Item & rules without narrowing the review queue, and Ctrl+2 returns to the same row."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gui.main_window import MainWindow
from gui.state import Selection
from suite.browse import OutputFilter
from suite.editing import item_detail


def _settle(qtbot, window: MainWindow) -> None:  # type: ignore[no-untyped-def]
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: window.review.model.all_cached(0, 30), timeout=5000)


def test_e_in_review_opens_the_items_rules_and_ctrl_2_comes_back_to_the_same_row(qtbot, window: MainWindow
                                                                                   ) -> None:
    review, editor = window.review, window.editor
    window.state.select(Selection(category="Ambiguity"))  # the tree narrows the queue to a category
    review.apply_filter(OutputFilter(category="Ambiguity", label="pass"))
    _settle(qtbot, window)
    queue, count = review.current_filter(), review.model.rowCount()
    assert count > 5
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    review.table.setFocus()
    review.set_current_row(4)
    row = review.model.cached(4)
    assert row is not None

    qtbot.keyClick(review.table, Qt.Key.Key_E)
    assert window.tabs.currentWidget() is editor
    assert QApplication.focusWidget() is editor.editor_scroll
    qtbot.waitUntil(lambda: editor.draft is not None and editor.draft.item_id == row.item_id, timeout=5000)
    assert window.ops.wait_idle()
    detail = item_detail(window.state.db, row.item_id)  # type: ignore[arg-type]
    assert row.external_id in editor.title.text()
    shown = [editor.rule_lists[p].model.rowCount() for p in ("positive", "negative")]
    assert shown == [sum(r.polarity == p for r in detail.rules) for p in ("positive", "negative")]
    assert editor.history.model.rowCount() > 0 or row.manual_label is None

    # the shared selection, and so the queue, are as they were
    assert window.state.selection == Selection(category="Ambiguity")
    assert review.current_filter() == queue and review.model.rowCount() == count

    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is review
    assert review.current_row() == 4 and review.model.output_id(4) == row.output_id
    assert QApplication.focusWidget() is review.table
    assert review.detail.current is not None and review.detail.current.row.output_id == row.output_id


def test_the_review_menu_names_the_key(window: MainWindow) -> None:
    action = next(a for a in window.review.actions() if a.text() == "&Edit the item's rules")
    assert action.shortcut().toString() == "E"
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Review")
    assert action in menu.actions()  # type: ignore[union-attr]


def test_the_tree_still_drives_the_editor_after_an_item_was_opened_from_review(qtbot, window: MainWindow) -> None:
    review, editor = window.review, window.editor
    review.set_current_row(0)
    first = review.model.cached(0)
    assert first is not None
    review.edit_rules()
    qtbot.waitUntil(lambda: editor.draft is not None and editor.draft.item_id == first.item_id, timeout=5000)
    # nothing selected in the tree: given the keys, it would have made its first row current and so selected it
    assert window.state.selection == Selection()
    other = next(row for r in range(review.model.rowCount())
                 if (row := review.model.cached(r)) is not None and row.item_id != first.item_id)
    window.state.select(Selection(other.category, other.phenomenon, other.item_id))
    qtbot.waitUntil(lambda: editor.draft is not None and editor.draft.item_id == other.item_id, timeout=5000)
    window.state.select(Selection(category=other.category))
    assert editor.draft is None  # a category selected: no item to edit
