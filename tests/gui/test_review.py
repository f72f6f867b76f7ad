"""The reviewer's queue on the demo: keyboard decisions, several rows at once, resolve as known, the model."""
from __future__ import annotations

import re
import threading

import pytest
from conftest import first_call_held, make_active, shown_errors
from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QApplication, QMessageBox, QProgressDialog
from pytestqt.qtbot import QtBot
from reviewing import review_output
from sqlalchemy import select

import gui.review.model as model_module
from gui.main_window import MainWindow
from gui.operations import Write, changes_nothing
from gui.review.columns import COLUMN
from gui.review.model import ReviewModel
from store import Database
from store.domain import Label, Polarity
from store.models import KnownTranslation, ManualLabel
from suite.engine.labelling import relabel
from suite.reading.browse import OutputFilter, output_ids, output_rows


def _settle(qtbot: QtBot, window: MainWindow) -> None:
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: window.review.model.all_cached(0, 30), timeout=5000)


def _focus_table(qtbot: QtBot, window: MainWindow) -> None:
    """Where a reviewer's keys go: the table, in the active window."""
    make_active(qtbot, window)
    window.review.table.setFocus()


def _shown(window: MainWindow, row: int) -> int:
    """The output in this row of the review table, which must have arrived."""
    output_id = window.review.model.output_id(row)
    assert output_id is not None
    return output_id


def _manual(window: MainWindow, output_id: int) -> tuple[str, str] | None:
    assert window.state.db is not None
    with window.state.db.session() as session:
        label = session.get(ManualLabel, output_id)
        return None if label is None else (label.label, label.reviewer)


def _fail_the_first_unreviewed(qtbot: QtBot, window: MainWindow) -> int:
    """F on the first row of the not-reviewed queue, by keyboard; the output decided."""
    review = window.review
    review.apply_filter(OutputFilter(reviewed=False))
    _settle(qtbot, window)
    _focus_table(qtbot, window)
    review.set_current_row(0)
    first = _shown(window, 0)
    qtbot.keyClick(review.table, Qt.Key.Key_F)
    _settle(qtbot, window)
    assert _manual(window, first) == ("fail", "Test Reviewer")
    return first


def test_a_decision_by_keyboard_is_stored_advances_and_survives_relabelling(qtbot: QtBot, window: MainWindow) -> None:
    review = window.review
    first = _fail_the_first_unreviewed(qtbot, window)
    assert review.current_row() == 1  # the next row still without a manual label
    # the row repaints with the new label, without re-running the query (it stays in the not-reviewed queue)
    assert review.model.output_id(0) == first
    assert review.model.index(0, COLUMN["manual"]).data() == "fail (TR)"
    assert review.model.index(0, COLUMN["manual"]).data(Qt.ItemDataRole.FontRole).bold()
    second = _shown(window, 1)
    qtbot.keyClick(review.table, Qt.Key.Key_P)
    _settle(qtbot, window)
    assert _manual(window, second) == ("pass", "Test Reviewer")
    assert window.state.db is not None
    relabel(window.state.db, window.state.suite_name)
    [row] = output_rows(window.state.db, [first])
    assert (row.manual_label, row.effective_label) == ("fail", "fail")


def test_keys_still_decide_after_a_progress_dialog_came_and_went(qtbot: QtBot, window: MainWindow) -> None:
    """A write that lasts shows a progress dialog, which becomes the active window. Once it closed, the offscreen
    platform (no window manager) left no window active and P, F, U did nothing: the keyboard tests failed whenever
    opening the database took long enough for its dialog to show. Keys now go to the table of the active window,
    as a reviewer's do."""
    release = threading.Event()
    Write("a long write", lambda task: release.wait(), said=str, changes=changes_nothing).run(window.ops)
    try:
        qtbot.waitUntil(lambda: any(isinstance(w, QProgressDialog) and w.isVisible()
                                    for w in QApplication.topLevelWidgets()))
    finally:
        release.set()
    _fail_the_first_unreviewed(qtbot, window)


def test_the_cursor_skips_rows_already_reviewed(qtbot: QtBot, window: MainWindow) -> None:
    review = window.review
    review.apply_filter(OutputFilter())
    _settle(qtbot, window)
    reviewed = [r for r in range(30) if review.model.cached(r).manual_label is not None]  # type: ignore[union-attr]
    assert reviewed, "the demo has reviewed outputs"
    start = reviewed[0] - 1
    _focus_table(qtbot, window)
    review.set_current_row(start)
    qtbot.keyClick(review.table, Qt.Key.Key_P)
    _settle(qtbot, window)
    expected = next(r for r in range(start + 1, 278) if r not in reviewed)
    assert review.current_row() == expected


def test_one_decision_for_several_rows(qtbot: QtBot, window: MainWindow) -> None:
    review = window.review
    review.apply_filter(OutputFilter(reviewed=False))
    _settle(qtbot, window)
    _focus_table(qtbot, window)
    review.set_current_row(2)
    review.table.selectRow(2)
    for row in (3, 4):
        review.table.selectionModel().select(review.model.index(row, 0),
                                             review.table.selectionModel().SelectionFlag.Select
                                             | review.table.selectionModel().SelectionFlag.Rows)
    ids = [_shown(window, r) for r in (2, 3, 4)]
    qtbot.keyClick(review.table, Qt.Key.Key_F)
    _settle(qtbot, window)
    assert [_manual(window, i) for i in ids] == [("fail", "Test Reviewer")] * 3
    assert review.current_row() == 5
    # U clears them again
    review.table.clearSelection()
    for row in (2, 3, 4):
        review.table.selectionModel().select(review.model.index(row, 0),
                                             review.table.selectionModel().SelectionFlag.Select
                                             | review.table.selectionModel().SelectionFlag.Rows)
    qtbot.keyClick(review.table, Qt.Key.Key_U)
    _settle(qtbot, window)
    assert [_manual(window, i) for i in ids] == [None] * 3


def test_pass_as_known_relabels_the_item_and_one_undo_takes_both_back(qtbot: QtBot, window: MainWindow) -> None:
    """Shift+P is one step (issue 16): the decision and the known translation it adds (one transaction, issue 21)
    are undone together; the undo used to take back the known translation and leave the decision."""
    review = window.review
    review.apply_filter(OutputFilter(label=Label.UNKNOWN))
    _settle(qtbot, window)
    row = review.model.cached(0)
    assert row is not None and row.auto_label == "unknown"
    _focus_table(qtbot, window)
    review.set_current_row(0)
    qtbot.keyClick(review.table, Qt.Key.Key_P, Qt.KeyboardModifier.ShiftModifier)
    _settle(qtbot, window)
    db = window.state.db
    assert db is not None

    def known() -> list[str]:
        with db.session() as session:
            return list(session.scalars(select(KnownTranslation.text).where(
                KnownTranslation.item_id == row.item_id, KnownTranslation.kind == "good")))

    assert row.text in known()
    [after] = output_rows(db, [row.output_id])
    assert (after.auto_label, after.manual_label) == ("pass", "pass")
    review.set_current_row(0)
    qtbot.waitUntil(lambda: review.detail.current is not None and review.detail.current.row == review.model.cached(0))
    assert review.detail.current is not None and row.text in [k.text for k in review.detail.current.item.known]
    assert window.state.undo_stack.undoText() == f"pass on {row.external_id} · {row.systems[0]}" + (
        f" +{len(row.systems) - 1}" if len(row.systems) > 1 else "") + ", added as known good translation"
    window.state.undo_stack.undo()
    _settle(qtbot, window)
    assert row.text not in known()
    assert review.detail.current is not None and review.detail.current.row.output_id == row.output_id
    assert row.text not in [k.text for k in review.detail.current.item.known]  # the detail follows the undo
    [undone] = output_rows(db, [row.output_id])
    assert (undone.auto_label, undone.manual_label) == ("unknown", None)


def test_a_refused_decision_adds_no_known_translation(qtbot: QtBot, window: MainWindow, colleague: Database) -> None:
    """Shift+P whose decision is refused (another reviewer decided meanwhile) leaves the item's known translations
    as they were: the output was not settled."""
    review = window.review
    review.apply_filter(OutputFilter(label=Label.UNKNOWN))
    _settle(qtbot, window)
    row = review.model.cached(0)
    assert row is not None and row.manual_label is None

    def known() -> list[tuple[str, str]]:
        with colleague.session() as session:
            return [(k.kind, k.text) for k in session.scalars(
                select(KnownTranslation).where(KnownTranslation.item_id == row.item_id).order_by(KnownTranslation.id))]

    before = known()
    review_output(colleague, row.output_id, Label.FAIL, "Someone Else")  # after the table was read
    _focus_table(qtbot, window)
    review.set_current_row(0)
    qtbot.keyClick(review.table, Qt.Key.Key_P, Qt.KeyboardModifier.ShiftModifier)
    assert window.ops.wait_idle()
    assert _manual(window, row.output_id) == ("fail", "Someone Else")
    assert known() == before  # vt-11, the first unknown output's item, has a known translation of its own
    assert not window.state.undo_stack.canUndo()
    [box] = shown_errors()
    assert "Nothing was overwritten" in box.text()


def test_a_report_cell_opens_review_with_its_filter(qtbot: QtBot, window: MainWindow) -> None:
    window.tabs.setCurrentIndex(2)
    window.state.show_review(OutputFilter(label=Label.FAIL, system="Online-X", category="Negation"))
    _settle(qtbot, window)
    assert window.tabs.currentWidget() is window.review
    assert window.review.current_filter() == OutputFilter(label=Label.FAIL, system="Online-X", category="Negation",
                                                          grouped=True)
    rows = [window.review.model.cached(r) for r in range(window.review.model.rowCount())]
    assert rows and all(r is not None and r.effective_label == "fail" and "Online-X" in r.systems
                        and r.category == "Negation" for r in rows)


def test_sorting_reruns_the_query(qtbot: QtBot, window: MainWindow) -> None:
    review = window.review
    review.table.sortByColumn(COLUMN["output"], Qt.SortOrder.DescendingOrder)
    _settle(qtbot, window)
    texts = [review.model.cached(r).text for r in range(20)]  # type: ignore[union-attr]
    assert texts == sorted(texts, reverse=True)
    assert review.model.sort_key == "text" and review.model.descending


def test_the_review_model_passes_qt_model_checks(qtbot: QtBot, window: MainWindow) -> None:
    model = ReviewModel(window.state, window.ops)
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.query(OutputFilter(label=Label.PASS))
    assert window.ops.wait_idle()
    for row in range(0, model.rowCount(), 50):
        model.fetch(row)
    assert window.ops.wait_idle()
    assert model.rowCount() > 100 and model.all_cached(0, model.rowCount() - 1)
    model.sort(COLUMN["systems"], Qt.SortOrder.DescendingOrder)
    assert window.ops.wait_idle()
    del tester


def test_the_model_reads_blocks_by_offset_in_the_core_order(qtbot: QtBot, window: MainWindow,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 20 on the demo's 278 outputs: the first block comes with the total, the rest only when asked for,
    and together they are exactly the core's order (no row skipped or repeated at block edges)."""
    monkeypatch.setattr(model_module, "BLOCK", 20)
    model = ReviewModel(window.state, window.ops)
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.sort(COLUMN["output"], Qt.SortOrder.DescendingOrder)
    assert window.ops.wait_idle()
    assert window.state.db is not None and window.state.suite_name is not None
    expected = output_ids(window.state.db, OutputFilter(), suite_name=window.state.suite_name, sort="text",
                          descending=True)
    assert model.rowCount() == len(expected) == 278
    assert model.all_cached(0, 19) and not model.all_cached(0, 20) and model.cached(100) is None
    last = len(expected) - 1
    model.prefetch(last - 5, last)  # the block on screen at the end, not those above it
    assert window.ops.wait_idle()
    assert model.all_cached(260, last) and not model.all_cached(240, 259)
    assert model.row_of(expected[last]) == last and model.row_of(expected[100]) is None
    for row in range(0, len(expected), 20):
        model.fetch(row)
    assert window.ops.wait_idle()
    assert [model.output_id(r) for r in range(len(expected))] == expected
    assert model.index(100, COLUMN["output"]).data() == model.cached(100).text  # type: ignore[union-attr]
    del tester


def test_deciding_rows_under_a_filter_skips_none_of_the_later_blocks(qtbot: QtBot, window: MainWindow,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Under "not reviewed", decided rows leave the query's results; later blocks are read by the ids the query
    had when it ran, so none of the rows below them is skipped (reading by offset would skip as many as were
    decided)."""
    monkeypatch.setattr(model_module, "BLOCK", 20)
    db, suite_name = window.state.db, window.state.suite_name
    assert db is not None and suite_name is not None
    model = ReviewModel(window.state, window.ops)
    model.query(OutputFilter(reviewed=False))
    assert window.ops.wait_idle()
    expected = output_ids(db, OutputFilter(reviewed=False), suite_name=suite_name)
    assert model.rowCount() == len(expected) > 40
    for output_id in expected[:20]:
        review_output(db, output_id, Label.PASS, "ada")
    model.fetch(20)
    assert window.ops.wait_idle()
    assert [model.output_id(row) for row in range(20, 40)] == expected[20:40]


def test_a_label_changed_meanwhile_is_not_overwritten(qtbot: QtBot, window: MainWindow, colleague: Database) -> None:
    review = window.review
    review.apply_filter(OutputFilter(reviewed=False))
    _settle(qtbot, window)
    first = _shown(window, 0)
    review_output(colleague, first, Label.PASS, "Someone Else")  # another reviewer's window, after the table was read
    _focus_table(qtbot, window)
    review.set_current_row(0)
    qtbot.keyClick(review.table, Qt.Key.Key_F)
    assert window.ops.wait_idle()
    assert _manual(window, first) == ("pass", "Someone Else")
    [box] = shown_errors()
    assert re.search(r"changed by Someone Else at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: now pass", box.text())
    assert "Nothing was overwritten" in box.text()
    assert review.model.index(0, COLUMN["manual"]).data() == ""  # as read before: nothing re-read it yet
    reload = box.button(QMessageBox.StandardButton.Yes)
    assert reload.text() == "Reload"
    reload.click()
    _settle(qtbot, window)
    assert review.model.index(0, COLUMN["manual"]).data() == "pass (SE)"
    review.set_current_row(0)
    qtbot.waitUntil(lambda: review.detail.current is not None and review.detail.current.row == review.model.cached(0))
    assert "Someone Else" in review.detail.browser.toPlainText()


def test_a_row_read_before_a_decision_never_overwrites_the_row_read_after_it(
        qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reads run side by side: the re-read of the rows on screen after one decision can still be running when the
    next decision is saved and its row re-read. Arriving last, it once put that row back as it was before the
    decision: shown undecided, where the cursor would stop again. Here the older re-read is held until the newer
    one is in."""
    review = window.review
    review.apply_filter(OutputFilter(reviewed=False))
    _settle(qtbot, window)
    model, db = review.model, window.state.db
    assert db is not None
    first = _shown(window, 0)
    with first_call_held(monkeypatch, model_module, "output_rows") as held:
        model.refresh([first])  # reads the row undecided, then waits
        qtbot.waitUntil(held.is_set)
        review_output(db, first, Label.FAIL, "Test Reviewer")
        model.refresh([first])
        qtbot.waitUntil(lambda: model.index(0, COLUMN["manual"]).data() == "fail (TR)")
    assert window.ops.wait_idle()
    assert model.index(0, COLUMN["manual"]).data() == "fail (TR)"


def test_the_detail_reads_the_output_against_its_nearest_reference(qtbot: QtBot, window: MainWindow) -> None:
    review = window.review
    review.apply_filter(OutputFilter(item="amb-01"))
    _settle(qtbot, window)
    shown = {}
    for row in range(review.model.rowCount()):
        review.set_current_row(row)
        cached = review.model.cached(row)
        assert cached is not None
        qtbot.waitUntil(lambda wanted=cached: review.detail.current is not None  # type: ignore[misc]
                        and review.detail.current.row == wanted)
        shown[cached.text] = review.detail.browser.toPlainText()
    assert "identical to a reference (standard)" in shown["The bench on the riverbank had been freshly painted."]
    differs = shown["The bench by the river had been freshly painted."]
    assert "Difference from the closest reference (standard)\nThe bench on by the riverbank river had" in differs


def test_copy_puts_the_selected_rows_on_the_clipboard_as_tsqe_outputs_prints_them(qtbot: QtBot,
                                                                                  window: MainWindow) -> None:
    from io import StringIO

    from suite.reading.browse import write_rows_tsv

    review = window.review
    _settle(qtbot, window)
    _focus_table(qtbot, window)
    review.set_current_row(0)
    for row in (1, 2):
        review.table.selectionModel().select(review.model.index(row, 0),
                                             review.table.selectionModel().SelectionFlag.Select
                                             | review.table.selectionModel().SelectionFlag.Rows)
    qtbot.keyClick(review.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert window.state.db is not None
    expected = StringIO()
    write_rows_tsv(output_rows(window.state.db, [_shown(window, r) for r in range(3)]), expected)
    assert QApplication.clipboard().text() == expected.getvalue()
    assert window.statusBar().currentMessage() == "copied 3 rows"


def test_rules_are_numbered_as_the_editor_shows_them_in_the_table_and_the_detail(qtbot: QtBot,
                                                                                 window: MainWindow) -> None:
    """The decided-by column said "positive rule 313" (the stored id) and the detail panel listed rules as "+" and
    "−" without a number: the linguist could not tell which line of the editor had decided."""
    from suite.editing.api import add_rule, find_item

    db = window.state.db
    assert db is not None
    item_id = find_item(db, "amb-04", window.state.suite_name)
    rule_id = add_rule(db, item_id, Polarity.POSITIVE, r"\bdepartment head\b", author="Test Reviewer").entity_id
    assert rule_id is not None and rule_id > 2
    relabel(db, window.state.suite_name)
    review = window.review
    review.apply_filter(OutputFilter(item="amb-04"))
    _settle(qtbot, window)
    rows = [review.model.cached(row) for row in range(review.model.rowCount())]
    [row] = [r for r in rows if r is not None and r.text == "The department head was standing on the ladder."]
    at = rows.index(row)
    assert review.model.index(at, COLUMN["decided_by"]).data() == r"positive rule 2: \bdepartment head\b"
    review.set_current_row(at)
    qtbot.waitUntil(lambda: review.detail.current is not None and review.detail.current.row == row)
    shown = review.detail.browser.toPlainText()
    assert r"+1 \b(head|manager|director|chief) of the department\b" in shown
    assert r"+2 \bdepartment head\b" in shown
    assert r"−1 \bladder of the department\b" in shown
    assert f"rule {rule_id}" not in shown
