"""What a keyboard-only walk through the window on the demo found, kept from coming back: from Review, E opens the
current output's item in Item & rules without narrowing the review queue, and Ctrl+2 returns to the same row; U
and C leave the detail and the cursor on the row as it now is; another reviewer's decision is replaced only when
the reviewer says so, without their comment; a decision on several rows is stored whole or not at all; the
Discriminative tab shows a ranking and correlations when first shown."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog, QMenu, QMessageBox
from pytestqt.qtbot import QtBot
from reviewing import review_output
from table_dump import dump

from gui.main_window import MainWindow
from gui.state import Selection
from store import Database
from store.domain import Label, Polarity
from suite.editing.api import item_detail
from suite.reading.browse import OutputFilter, OutputRow, output_rows


def _settle(qtbot: QtBot, window: MainWindow) -> None:
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: window.review.model.all_cached(0, 30), timeout=5000)


def test_e_in_review_opens_the_items_rules_and_ctrl_2_comes_back_to_the_same_row(qtbot: QtBot, window: MainWindow
                                                                                   ) -> None:
    review, editor = window.review, window.editor
    window.state.select(Selection(category="Ambiguity"))  # the tree narrows the queue to a category
    review.apply_filter(OutputFilter(category="Ambiguity", label=Label.PASS))
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
    shown = [editor.rule_lists[p].model.rowCount() for p in (Polarity.POSITIVE, Polarity.NEGATIVE)]
    assert shown == [sum(r.spec.polarity == p for r in detail.rules) for p in ("positive", "negative")]
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
    assert isinstance(menu, QMenu) and action in menu.actions()


def test_the_tree_still_drives_the_editor_after_an_item_was_opened_from_review(qtbot: QtBot,
                                                                               window: MainWindow) -> None:
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


def _on(qtbot: QtBot, window: MainWindow, filter: OutputFilter, row: int) -> OutputRow:
    """The review queue narrowed by ``filter``, its keys given, the cursor on ``row`` and its detail shown."""
    review = window.review
    review.apply_filter(filter)
    _settle(qtbot, window)
    review.table.setFocus()
    review.set_current_row(row)
    shown = review.model.cached(row)
    assert shown is not None
    qtbot.waitUntil(lambda: review.detail.current is not None and review.detail.current.row == shown)
    return shown


def _manual(window: MainWindow, output_id: int) -> tuple[str | None, str | None, str | None]:
    """The output's manual label, reviewer and comment as stored."""
    assert window.state.db is not None
    (row,) = output_rows(window.state.db, [output_id])
    return row.manual_label, row.reviewer, row.comment


def test_u_asks_before_removing_a_colleagues_decision_then_shows_the_row_as_it_now_is(
        qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    review = window.review
    row = _on(qtbot, window, OutputFilter(reviewed=True), 2)
    assert row.manual_label is not None and row.reviewer != window.state.reviewer
    assert f"manual: {row.manual_label} by {row.reviewer}" in review.detail.browser.toPlainText()
    asked: list[str] = []
    answer = QMessageBox.StandardButton.No
    monkeypatch.setattr(QMessageBox, "question", lambda *args: (asked.append(args[2]), answer)[1])  # type: ignore[func-returns-value]
    qtbot.keyClick(review.table, Qt.Key.Key_U)
    assert window.ops.wait_idle()
    assert _manual(window, row.output_id) == (row.manual_label, row.reviewer, row.comment)  # No: kept
    assert asked[0].startswith(f"{row.reviewer} decided {row.manual_label}") and "Remove it, so that" in asked[0]
    answer = QMessageBox.StandardButton.Yes
    qtbot.keyClick(review.table, Qt.Key.Key_U)
    assert window.ops.wait_idle()
    assert _manual(window, row.output_id) == (None, None, None)
    assert review.current_row() == 2 and review.model.output_id(2) == row.output_id
    assert review.detail.current is not None and review.detail.current.row.manual_label is None
    assert "manual:" not in review.detail.browser.toPlainText()


def test_a_comment_keeps_the_cursor_on_the_row_commented(qtbot: QtBot, window: MainWindow,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    review = window.review
    row = _on(qtbot, window, OutputFilter(reviewed=True), 3)
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("checked twice", True))
    monkeypatch.setattr(QMessageBox, "question", lambda *args: QMessageBox.StandardButton.Yes)  # anna.k's
    qtbot.keyClick(review.table, Qt.Key.Key_C)
    assert window.ops.wait_idle()
    assert _manual(window, row.output_id)[2] == "checked twice"
    assert review.current_row() == 3 and review.model.output_id(3) == row.output_id
    assert review.detail.current is not None and review.detail.current.row.comment == "checked twice"


@pytest.mark.parametrize("answer", [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes])
def test_another_reviewers_decision_is_replaced_only_when_the_reviewer_says_so(
        qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch, answer: QMessageBox.StandardButton) -> None:
    review = window.review
    review.apply_filter(OutputFilter(item="amb-01", reviewed=True))
    _settle(qtbot, window)
    theirs = next(r for i in range(review.model.rowCount())
                  if (r := review.model.cached(i)) is not None and r.reviewer == "jonas.w")
    _on(qtbot, window, OutputFilter(item="amb-01", reviewed=True), review.model.row_of(theirs.output_id) or 0)
    asked: list[str] = []

    def question(parent: object, title: str, text: str, *args: object) -> QMessageBox.StandardButton:
        asked.append(text)
        return answer

    monkeypatch.setattr(QMessageBox, "question", question)
    qtbot.keyClick(review.table, Qt.Key.Key_F)
    assert window.ops.wait_idle()
    assert len(asked) == 1 and asked[0].startswith(f"jonas.w decided pass — “{theirs.comment}”. Replace it with "
                                                   "your fail?")
    if answer == QMessageBox.StandardButton.No:
        assert _manual(window, theirs.output_id) == ("pass", "jonas.w", theirs.comment)
    else:
        assert _manual(window, theirs.output_id) == ("fail", "Test Reviewer", None)  # not jonas.w's comment
        # deciding it again, now one's own, asks nothing
        review.set_current_row(review.model.row_of(theirs.output_id) or 0)
        qtbot.keyClick(review.table, Qt.Key.Key_P)
        assert window.ops.wait_idle()
        assert len(asked) == 1 and _manual(window, theirs.output_id)[:2] == ("pass", "Test Reviewer")


@pytest.mark.parametrize("answer", [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes])
def test_a_comment_takes_over_other_reviewers_decisions_only_when_the_reviewer_says_so(
        qtbot: QtBot, window: MainWindow, colleague: Database, monkeypatch: pytest.MonkeyPatch,
        answer: QMessageBox.StandardButton) -> None:
    review = window.review
    _on(qtbot, window, OutputFilter(reviewed=True), 0)
    rows = [r for i in range(review.model.rowCount()) if (r := review.model.cached(i)) is not None]
    assert {r.manual_label for r in rows} == {"pass", "fail"} and {r.reviewer for r in rows} == {"anna.k", "jonas.w"}
    before = dump(colleague)
    review.table.selectAll()
    asked: list[str] = []

    def question(parent: object, title: str, text: str, *args: object) -> QMessageBox.StandardButton:
        asked.append(text)
        return answer

    monkeypatch.setattr(QMessageBox, "question", question)
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("seen again", True))
    qtbot.keyClick(review.table, Qt.Key.Key_C)
    assert window.ops.wait_idle()
    assert asked == [f"{len(rows)} of the {len(rows)} outputs were decided by another reviewer (anna.k, jonas.w). "
                     "Take them over with your comment?\n\nTheir decision stays in the item's history."]
    if answer == QMessageBox.StandardButton.No:
        assert dump(colleague) == before
    else:  # each keeps its label
        assert [_manual(window, r.output_id) for r in rows] == [
            (r.manual_label, "Test Reviewer", "seen again") for r in rows]


def test_a_comment_on_several_rows_where_one_is_stale_stores_nothing(
        qtbot: QtBot, window: MainWindow, colleague: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    review = window.review
    _on(qtbot, window, OutputFilter(reviewed=True), 2)
    rows = [review.model.cached(i) for i in range(2, 5)]
    stale = rows[2]
    assert stale is not None and all(r is not None and r.manual_label == "fail" for r in rows)
    review_output(colleague, stale.output_id, Label.FAIL, "Someone Else",  # after the table was read
                     expected_version=stale.manual_version)
    before = dump(colleague)
    review.table.selectRow(2)
    qtbot.keyClick(review.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(review.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert [r.output_id for r in review.selected_rows()] == [r.output_id for r in rows if r is not None]
    monkeypatch.setattr(QMessageBox, "question", lambda *args: QMessageBox.StandardButton.Yes)
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("seen again", True))
    qtbot.keyClick(review.table, Qt.Key.Key_C)
    assert window.ops.wait_idle()
    assert dump(colleague) == before  # not the rows before the stale one either
    [box] = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    assert "Someone Else" in box.text() and "Nothing was overwritten" in box.text()


def test_a_decision_on_several_rows_where_one_is_stale_stores_nothing(
        qtbot: QtBot, window: MainWindow, colleague: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    review = window.review
    _on(qtbot, window, OutputFilter(reviewed=False), 0)
    rows = [review.model.cached(i) for i in range(4)]
    assert all(r is not None and r.manual_label is None for r in rows)
    stale = rows[2]
    assert stale is not None
    review_output(colleague, stale.output_id, Label.PASS, "Someone Else")  # after the table was read
    before = dump(colleague)
    review.table.selectRow(0)
    qtbot.keyClick(review.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(review.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(review.table, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert [r.output_id for r in review.selected_rows()] == [r.output_id for r in rows if r is not None]
    monkeypatch.setattr(QMessageBox, "question", lambda *args: pytest.fail("nobody else's decision was shown"))
    qtbot.keyClick(review.table, Qt.Key.Key_F)
    assert window.ops.wait_idle()
    assert dump(colleague) == before  # not the rows before the stale one either
    [box] = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
    assert "Someone Else" in box.text() and "Nothing was overwritten" in box.text()


def test_the_discriminative_tab_ranks_and_correlates_when_first_shown(qtbot: QtBot, window: MainWindow) -> None:
    tab = window.discriminative
    assert tab.model.rowCount() == 0 and tab.correlation_model.rowCount() == 0  # hidden: nothing computed
    window.tabs.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: tab.model.rowCount() > 0 and tab.correlation_model.rowCount() > 0, timeout=60000)
    assert window.ops.wait_idle()
    assert tab.scores is not None and tab.scores.metric == tab.metric_choice.currentData()
    assert tab.variance is not None and tab.variance.ranking
    assert tab.correlation is not None and tab.correlation_status.text() == f"{len(tab.correlation.rows)} metrics"
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
