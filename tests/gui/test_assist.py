"""The assistants' places in the window, on the demo suite: the Suggestions list under the rules of Item & rules
(Enter adds one to the draft, previewed at once) and the Rule health view that a category or phenomenon selected
in the tree shows in that tab (sortable, a double-click opens the item)."""
from __future__ import annotations

from conftest import model_tested
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from gui.editor.rule_health import MATCHES, OVERRIDDEN, PRECISION, PROBLEMS
from gui.editor.screen import ItemEditorScreen
from gui.editor.suggestions import PATTERN
from gui.main_window import MainWindow
from gui.operations import Operations
from gui.state import AppState, Selection
from suite.demo import DEMO_SUITE
from suite.editing.api import find_item, item_detail

OBLIGATION = Selection("Verb tense/aspect/mood", "Obligation")


def _open_new_item(screen: ItemEditorScreen, state: AppState, ops: Operations) -> int:
    """vt-11, an item the linguist has given a known translation and no rule yet."""
    assert state.db is not None
    item_id = find_item(state.db, "vt-11", DEMO_SUITE)
    state.select(Selection(OBLIGATION.category, OBLIGATION.phenomenon, item_id))
    assert ops.wait_idle()
    assert screen.draft is not None and screen.draft.item_id == item_id
    return item_id


def test_the_suggestions_of_an_item_come_with_what_they_decide(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                               ops: Operations) -> None:
    model_tested(screen.suggestions.model)
    _open_new_item(screen, state, ops)
    model = screen.suggestions.model
    assert [model.row(row).suggestion.pattern for row in range(model.rowCount())] == [
        r"\bmust\b", r"\bShe(?: has to| must) send the letter today\.|\bmust\b", r"\bmay\b",
        r"\bShe(?: has to| must) send the letter today\."]
    assert model.index(0, 0).data() == "+" and model.index(2, 0).data() == "−"
    assert model.index(0, 2).data() == "2" and model.index(0, 3).data() == "2 pass"
    assert "why: “must” is in 8 passing and 0 failing outputs" in model.index(0, PATTERN).data(
        Qt.ItemDataRole.ToolTipRole)
    assert "the first decides 2 here" in screen.suggestions.summary.text()


def test_enter_adds_a_suggestion_to_the_draft_with_its_preview(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                               ops: Operations) -> None:
    assert state.db is not None
    item_id = _open_new_item(screen, state, ops)
    view = screen.suggestions.view
    view.setCurrentIndex(screen.suggestions.model.index(2, PATTERN))  # the negative one
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert screen.draft is not None
    assert [(row.spec.pattern, row.is_new) for row in screen.draft.rules["negative"]] == [(r"\bmay\b", True)]
    assert "✓" in screen.suggestions.model.index(2, 0).data() and not screen.suggestions.add_button.isEnabled()
    qtbot.keyClick(view, Qt.Key.Key_Return)  # taken already: not added twice
    assert len(screen.draft.rules["negative"]) == 1
    assert ops.wait_idle()
    assert screen.last_preview is not None and screen.last_preview.flips == {"unknown->fail": 1}
    model = screen.suggestions.model  # measured against the draft now: what it decides is not offered again
    patterns = [model.row(row).suggestion.pattern for row in range(model.rowCount())]
    assert r"\bmay\b" not in patterns and patterns[0] == r"\bmust\b"

    view.setCurrentIndex(screen.suggestions.model.index(0, PATTERN))
    screen.suggestions.add_button.click()
    assert [row.spec.pattern for row in screen.draft.rules["positive"]] == [r"\bmust\b"]
    assert ops.wait_idle()
    assert screen.last_preview is not None and screen.last_preview.flips == {"unknown->pass": 2, "unknown->fail": 1}

    screen.save()
    assert ops.wait_idle()
    saved = item_detail(state.db, item_id)
    assert sorted((rule.spec.polarity, rule.spec.pattern) for rule in saved.rules) == [("negative", r"\bmay\b"),
                                                                            ("positive", r"\bmust\b")]
    assert {output.auto_label for output in saved.outputs} == {"pass", "fail"}
    qtbot.waitUntil(lambda: screen.suggestions.model.rowCount() == 0
                    and "every output is decided" in screen.suggestions.summary.text())


def test_rule_health_shows_where_no_item_is_selected(qtbot: QtBot, screen: ItemEditorScreen, state: AppState,
                                                     ops: Operations) -> None:
    assert state.db is not None
    model_tested(screen.health.model)
    model_tested(screen.health.proxy)
    state.select(OBLIGATION)
    assert ops.wait_idle()
    assert screen.pages.currentWidget() is screen.health
    health = screen.health
    assert health.proxy.rowCount() == 12  # vt-12 … vt-17, a positive and a negative rule each
    assert "12 rules: 0 match nothing" in health.summary.text()
    assert health.view.isColumnHidden(1)  # the phenomenon column, when one phenomenon is shown

    health.view.sortByColumn(MATCHES, Qt.SortOrder.DescendingOrder)
    matches = [health.proxy.index(row, MATCHES).data() for row in range(health.proxy.rowCount())]
    assert matches[0] == "3 / 4" and matches[-1] == "1 / 4"

    vt14 = next(row for row in range(health.proxy.rowCount()) if health.proxy.index(row, 0).data() == "vt-14")
    health.view.doubleClicked.emit(health.proxy.index(vt14, 0))
    assert state.selection.item_id == find_item(state.db, "vt-14", DEMO_SUITE)
    assert ops.wait_idle()
    assert screen.pages.currentIndex() == 1 and screen.draft is not None


def test_rule_health_counts_reviewers_overrides_and_filters_problems(qtbot: QtBot, screen: ItemEditorScreen,
                                                                     state: AppState, ops: Operations) -> None:
    state.select(Selection("Named entity & terminology"))
    assert ops.wait_idle()
    health = screen.health
    assert not health.view.isColumnHidden(1)
    health.view.sortByColumn(OVERRIDDEN, Qt.SortOrder.DescendingOrder)
    top = [health.proxy.index(0, column).data() for column in (0, OVERRIDDEN, PRECISION)]
    assert top == ["ne-03", "1", "0%"]  # the reviewer found "wide" wrong where the rule passed the unit
    assert "reviewers overrode 1 of its 1 reviewed decisions" in health.proxy.index(0, PROBLEMS).data()
    every = health.proxy.rowCount()
    health.only_problems.setChecked(True)
    assert 0 < health.proxy.rowCount() < every
    assert all(health.proxy.index(row, PROBLEMS).data() for row in range(health.proxy.rowCount()))
    table = health.table()
    assert table is not None and len(table.body) == health.proxy.rowCount() and table.body[0][0].value == "ne-03"


def test_the_rule_health_action_opens_the_items_phenomenon(qtbot: QtBot, window: MainWindow) -> None:
    assert window.state.db is not None
    item_id = find_item(window.state.db, "vt-12", DEMO_SUITE)
    window.state.select(Selection(OBLIGATION.category, OBLIGATION.phenomenon, item_id))
    window.rule_health_action.trigger()
    assert window.state.selection == OBLIGATION
    assert window.tabs.currentWidget() is window.editor
    assert window.ops.wait_idle()
    assert window.editor.pages.currentWidget() is window.editor.health
    assert window.rule_health_action in window.tree.context_actions


def test_ctrl_shift_a_takes_the_first_suggestion_from_anywhere_in_the_tab(qtbot: QtBot, screen: ItemEditorScreen,
                                                                          state: AppState, ops: Operations) -> None:
    _open_new_item(screen, state, ops)
    screen.source.setFocus()
    qtbot.keyClick(screen.source, Qt.Key.Key_A,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert screen.draft is not None and [row.spec.pattern for row in screen.draft.rules["positive"]] == [r"\bmust\b"]
    assert screen.take_suggestion_action in screen.actions()
