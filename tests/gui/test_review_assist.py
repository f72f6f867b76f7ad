"""The review assistants in the window (issue 20): groups of alike outputs decided at once, neighbour suggestions
accepted with Enter, the queue by impact, blind assignments, adjudication and the status bar's review view."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import make_active
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gui.main_window import MainWindow
from gui.review.columns import COLUMN
from store import Database, open_database
from store.domain import Label
from suite.assist.double_review import plan_review_checks
from suite.editing.api import item_history
from suite.editing.review import OutputDecision, SeenOutput, decide
from suite.reading.browse import OutputFilter, output_ids, output_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from review_suites import add_teaching_outputs, build_review_suite, output_id  # noqa: E402


@pytest.fixture
def suite_db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(tmp_path / "review.sqlite")
    build_review_suite(database, tmp_path)
    add_teaching_outputs(database, tmp_path)
    yield database
    database.close()


@pytest.fixture
def demo_db(suite_db: Database) -> Database:
    """The window of ``conftest`` opens this module's suite instead of the demo."""
    return suite_db


def settle(qtbot: QtBot, window: MainWindow) -> None:
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: window.review.model.all_cached(0, 30), timeout=5000)
    assert window.ops.wait_idle()


def row_of(window: MainWindow, text: str) -> int:
    review = window.review
    rows = [r for r in range(review.model.rowCount()) if (row := review.model.cached(r)) and row.text == text]
    assert rows, text
    return rows[0]


def cell(window: MainWindow, row: int, key: str) -> str:
    return str(window.review.model.index(row, COLUMN[key]).data() or "")


def manual(db: Database, texts: list[str]) -> list[str | None]:
    return [row.manual_label for row in output_rows(db, [output_id(db, text) for text in texts])]


WALK = ["I shall walk.", "i shall walk", "I Shall Walk."]


def test_a_group_shows_once_and_one_key_decides_it_as_one_undo_step(qtbot: QtBot, window: MainWindow,
                                                                     suite_db: Database) -> None:
    review = window.review
    review.apply_filter(OutputFilter(label=Label.UNKNOWN))
    settle(qtbot, window)
    assert review.group_box.isChecked() and review.count_label.text() == "6 rows · 8 outputs"
    walk = row_of(window, "I shall walk.")
    assert cell(window, walk, "alike") == "+2" and cell(window, walk, "systems") == "E, F, G"
    assert cell(window, walk, "pairs") == "P +3 · F +9"  # three outputs, each one fail and three pass
    assert window.review.model.index(walk, COLUMN["pairs"]).data(Qt.ItemDataRole.ToolTipRole) == \
        "+3 if pass · +9 if fail"  # the short form's sentence
    review.set_current_row(walk)
    review.table.setFocus()
    qtbot.keyClick(review.table, Qt.Key.Key_F)
    settle(qtbot, window)
    assert manual(suite_db, WALK) == ["fail"] * 3
    assert window.state.undo_stack.count() == 1
    assert window.state.undo_stack.undoText() == "fail on 3 outputs of f1"
    make_active(qtbot, window)
    qtbot.keyClick(review.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, window)
    assert manual(suite_db, WALK) == [None] * 3
    review.group_box.setChecked(False)
    settle(qtbot, window)
    assert review.count_label.text() == "8 outputs" and cell(window, row_of(window, "i shall walk"), "alike") == ""


def test_a_suggestion_is_shown_and_enter_accepts_it(qtbot: QtBot, window: MainWindow, suite_db: Database) -> None:
    review = window.review
    review.apply_filter(OutputFilter(label=Label.UNKNOWN))
    settle(qtbot, window)
    run = row_of(window, "She shall run.")
    assert cell(window, run, "suggestion").startswith("nearest #")  # nothing taught "shall" yet
    qtbot.keyClick(review.table, Qt.Key.Key_Return)  # on the first row: nothing to accept, said so
    assert "no suggestion to accept" in window.statusBar().currentMessage()
    for text in ("You shall go.", "He shall go."):  # a reviewer passes both, one after the other
        review.set_current_row(row_of(window, text))
        review.table.setFocus()
        qtbot.keyClick(review.table, Qt.Key.Key_P)
        settle(qtbot, window)
    will = output_id(suite_db, "She will run.")
    qtbot.waitUntil(lambda: cell(window, row_of(window, "She shall run."), "suggestion")
                    == f"like #{will}, pass: differs in *will* → *shall*", timeout=10000)
    review.set_current_row(row_of(window, "She shall run."))
    qtbot.waitUntil(lambda: "Suggestion: pass" in review.detail.browser.toPlainText(), timeout=5000)
    review.table.setFocus()
    qtbot.keyClick(review.table, Qt.Key.Key_Return)
    settle(qtbot, window)
    assert manual(suite_db, ["She shall run."]) == ["pass"]
    assert window.state.undo_stack.undoText() == "pass on f4 · H"


def test_the_pairs_column_orders_the_queue_by_impact(qtbot: QtBot, window: MainWindow, suite_db: Database) -> None:
    review = window.review
    review.apply_filter(OutputFilter(label=Label.UNKNOWN))
    settle(qtbot, window)
    make_active(qtbot, window)
    review.table.setFocus()
    qtbot.keyClick(review.table, Qt.Key.Key_I)  # Review → Order the queue by impact
    settle(qtbot, window)
    shown = [review.model.output_id(r) for r in range(review.model.rowCount())]
    assert shown == output_ids(suite_db, OutputFilter(label=Label.UNKNOWN, grouped=True), sort="impact")
    first = review.model.cached(0)
    assert first is not None and cell(window, 0, "pairs") == "F +3"  # f4 has passing outputs only
    assert review.table.horizontalHeader().sortIndicatorSection() == COLUMN["pairs"]


def test_a_placeholder_output_shows_no_pairs(qtbot: QtBot, window: MainWindow, suite_db: Database,
                                              tmp_path: Path) -> None:
    """Issue 28: "+8 if pass" stood beside UF's ``####``, which the impact order already ranks as adding none: a
    pair made of a placeholder tells nothing about a QE metric. Neither the column, its tooltip nor the detail
    offers pairs for it once the suite's policy lists it (an ordinary output of its item keeps its hint)."""
    from suite.editing.suite_edit import set_output_policy
    from suite.engine.output_policy import OutputPolicy
    from suite.importers import import_outputs

    placeholders = tmp_path / "placeholders.tsv"
    placeholders.write_text("item_id\tsystem\toutput\nf4\tUF\t####\n", encoding="utf-8")
    import_outputs(suite_db, placeholders, label=True)
    set_output_policy(suite_db, OutputPolicy(placeholders=("####",)), author="lead")
    review = window.review
    review.apply_filter(OutputFilter(label=Label.UNKNOWN, item="f4"))
    settle(qtbot, window)
    hashes, run = row_of(window, "####"), row_of(window, "She shall run.")
    assert cell(window, run, "pairs") == "F +3"  # f4 has passing outputs only
    assert cell(window, hashes, "pairs") == ""
    assert review.model.index(hashes, COLUMN["pairs"]).data(Qt.ItemDataRole.ToolTipRole) is None
    review.set_current_row(hashes)
    qtbot.waitUntil(lambda: "####" in review.detail.browser.toPlainText(), timeout=5000)
    assert "pass/fail pairs" not in review.detail.browser.toPlainText()


def reviewed_by_anna(db: Database) -> None:
    ids = output_ids(db, OutputFilter(label=Label.PASS)) + output_ids(db, OutputFilter(label=Label.FAIL))
    decide(db, [OutputDecision(SeenOutput(i), Label.PASS) for i in ids], "anna")
    plan_review_checks(db, double_share=1.0, control_share=0.2, seed=2, author="lead")


def test_assignments_are_answered_blind_with_the_review_keys(qtbot: QtBot, window: MainWindow,
                                                             suite_db: Database) -> None:
    reviewed_by_anna(suite_db)
    review = window.review
    window.show_reviewers()
    view = window.reviewers_view
    qtbot.waitUntil(lambda: view.report is not None, timeout=5000)
    assert "0 of 20 planned double reviews answered" in view.browser.toPlainText()
    view.assignments_button.click()
    assert window.ops.wait_idle()
    page = review.assignments
    qtbot.waitUntil(lambda: page.model.rowCount() == 20, timeout=5000)
    assert review.page() == "assignments" and "20 open · 0 answered" in page.summary.text()
    qtbot.waitUntil(lambda: "Decide it as if nobody had" in page.detail.toPlainText(), timeout=5000)
    shown = page.detail.toPlainText()
    assert "anna" not in shown and "Rules" not in shown and "Known" not in shown
    first = page.current()
    assert first is not None
    make_active(qtbot, window)
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_F)
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: "19 open · 1 answered" in page.summary.text(), timeout=5000)
    current = page.current()
    assert current is not None and current.id != first.id  # on to the next open one
    assert window.state.undo_stack.undoText() == f"fail on {first.external_id}"
    make_active(qtbot, window)
    qtbot.keyClick(page.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: "20 open · 0 answered" in page.summary.text(), timeout=5000)


def test_a_disagreement_is_adjudicated_with_both_decisions_in_the_history(qtbot: QtBot, window: MainWindow,
                                                                          suite_db: Database) -> None:
    reviewed_by_anna(suite_db)
    window.review.show_page("assignments")
    page = window.review.assignments
    qtbot.waitUntil(lambda: page.model.rowCount() == 20, timeout=5000)
    page.table.selectAll()
    make_active(qtbot, window)
    page.table.setFocus()
    qtbot.keyClick(page.table, Qt.Key.Key_F)  # anna passed every one: the doubles all disagree
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: "0 open · 20 answered" in page.summary.text(), timeout=5000)
    window.review.show_page("disagreements")
    adjudication = window.review.adjudication
    qtbot.waitUntil(lambda: adjudication.model.rowCount() > 0, timeout=5000)
    count = adjudication.model.rowCount()
    first = adjudication.current()
    assert first is not None and (first.first_label, first.second_label) == ("pass", "fail")
    qtbot.waitUntil(lambda: first.text in adjudication.detail.browser.toPlainText(), timeout=5000)
    # Test Reviewer answered the double reviews: settling their own dispute is warned about (issue 28)
    assert "You are one of the two reviewers of this dispute" in adjudication.summary.text()
    adjudication.table.setFocus()
    qtbot.keyClick(adjudication.table, Qt.Key.Key_F)
    box = adjudication.asking
    assert box is not None and box.isVisible()
    assert "You (Test Reviewer) are one of the two reviewers of this dispute: you decided fail" in box.text()
    assert adjudication.model.rowCount() == count  # nothing done before the answer
    [go] = [button for button in box.buttons() if button.text() == "Adjudicate fail"]
    go.click()
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: adjudication.model.rowCount() == count - 1, timeout=5000)
    (row,) = output_rows(suite_db, [first.output_id or 0])
    assert (row.manual_label, row.reviewer) == ("fail", "Test Reviewer")
    entry = next(h for h in item_history(suite_db, first.external_id or "")
                 if h.entity == "manual_label" and h.entity_id == first.output_id)
    assert entry.after and entry.after["first_review"] == "pass by anna" and entry.after["second_review"] == \
        "fail by Test Reviewer"
    window.show_reviewers()
    view = window.reviewers_view
    qtbot.waitUntil(lambda: view.report is not None and view.report.agreement.adjudicated == 1, timeout=5000)
    text = view.browser.toPlainText()
    assert "Test Reviewer · anna" in text and "Accuracy on control outputs" in text
    view.hide()
    assert QApplication.activePopupWidget() is None


def test_the_disagreements_detail_is_its_own_beside_the_queue_s(qtbot: QtBot, window: MainWindow,
                                                                 suite_db: Database) -> None:
    """Both detail panels read in the background; the queue's reading a row just after the Disagreements page's
    panel asked for one made that one's result moot when they shared a key, and the page's panel stayed empty."""
    walk, went = output_rows(suite_db, [output_id(suite_db, "I shall walk."), output_id(suite_db, "I went.")])
    page = window.review.adjudication.detail
    page.show_row(walk)
    window.review.detail.show_row(went)  # in the same turn of the event loop
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: "I went." in window.review.detail.browser.toPlainText(), timeout=5000)
    qtbot.waitUntil(lambda: "I shall walk." in page.browser.toPlainText(), timeout=5000)
