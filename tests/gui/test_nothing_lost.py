"""Issue 16, "Nothing is lost", in the window on the demo: unsaved drafts are asked about before quitting, opening
another database or switching suite, the title shows [*] meanwhile, and they are kept on disk and offered back
after a crash; one undo stack of the core's edit values takes a reviewer's decisions back where they are (the
list keeps its rows), names each step in the Edit menu, and asks before reaching outside the screen in front; a
cancelled job says so, and a finished one says what it did."""
from __future__ import annotations

import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import make_active, shown_errors
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from gui import drafts
from gui.main_window import MainWindow
from gui.operations import Write, changes_nothing
from gui.state import Selection
from store import Database
from store.domain import Polarity
from suite.demo import DEMO_SUITE
from suite.editing.api import find_item, item_detail
from suite.editing.draft_autosave import autosave_path, write_drafts
from suite.editing.item_draft import EditorDraft, new_rule
from suite.reading.browse import OutputFilter, output_rows
from suite.tasks import TaskState

BANK = "amb-01"


def _settle(qtbot: QtBot, window: MainWindow) -> None:
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: window.review.model.all_cached(0, 30), timeout=5000)


def _edit_a_rule(qtbot: QtBot, window: MainWindow, external_id: str = BANK) -> int:
    """Open the item in Item & rules and add a negative rule without saving it."""
    db = window.state.db
    assert db is not None
    item_id = find_item(db, external_id, DEMO_SUITE)
    window.state.edit_item(Selection(item_id=item_id))
    qtbot.waitUntil(lambda: window.editor.draft is not None and window.editor.draft.item_id == item_id)
    rules = window.editor.rule_lists[Polarity.NEGATIVE]
    rules.add_rule()
    editor = rules.editor(rules.model.rowCount() - 1)
    assert editor is not None
    qtbot.keyClicks(editor, r"\bshore\b")
    qtbot.waitUntil(lambda: window.editor.state_label.text() == "unsaved changes")
    return item_id


@dataclass
class Asked:
    """What the window asked about unsaved drafts (their items, what it was doing), and the answer it gets."""

    questions: list[tuple[list[str], str]] = field(default_factory=list)
    answer: drafts.Answer = drafts.Answer.CANCEL


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> Asked:
    found = Asked()

    def ask(parent: object, unsaved: list[EditorDraft], doing: str) -> drafts.Answer:
        found.questions.append(([d.detail.external_id for d in unsaved], doing))
        return found.answer

    monkeypatch.setattr(drafts, "ask", ask)
    return found


def test_closing_with_an_unsaved_rule_asks_and_cancel_keeps_the_window_and_the_draft(
        qtbot: QtBot, window: MainWindow, asked: Asked) -> None:
    assert not window.isWindowModified()
    _edit_a_rule(qtbot, window)
    assert window.isWindowModified()  # the title's [*]
    assert not window.close()
    assert asked.questions == [([BANK], "quitting")]
    assert window.isVisible() and window.editor.unsaved()

    asked.answer = drafts.Answer.SAVE
    assert window.close()
    db = window.state.db
    assert db is not None
    assert r"\bshore\b" in [rule.spec.pattern for rule in item_detail(db, find_item(db, BANK, DEMO_SUITE)).rules]


def test_discard_forgets_the_draft_and_the_window_closes(qtbot: QtBot, window: MainWindow, asked: Asked) -> None:
    item_id = _edit_a_rule(qtbot, window)
    asked.answer = drafts.Answer.DISCARD
    assert window.close()
    db = window.state.db
    assert db is not None and r"\bshore\b" not in [rule.spec.pattern for rule in item_detail(db, item_id).rules]


def test_opening_another_database_and_switching_suite_ask_first(qtbot: QtBot, window: MainWindow, asked: Asked,
                                                                tmp_path: Path) -> None:
    _edit_a_rule(qtbot, window)
    db = window.state.db
    window.open_target(str(tmp_path / "other.sqlite"), create=True)
    assert window.ops.wait_idle()
    assert window.state.db is db and asked.questions[-1] == ([BANK], "opening another database")
    window.switch_suite("another")
    assert window.state.suite_name == DEMO_SUITE and asked.questions[-1] == ([BANK], "switching to the suite another")
    window.open_demo()
    assert asked.questions[-1][1] == "opening the demo"
    assert window.editor.unsaved()


def test_drafts_of_a_killed_session_are_offered_back_never_saved_by_themselves(
        qtbot: QtBot, window: MainWindow, demo_db: Database) -> None:
    item_id = find_item(demo_db, BANK, DEMO_SUITE)
    draft = EditorDraft.of(item_detail(demo_db, item_id))
    draft.rules[Polarity.NEGATIVE].append(new_rule(Polarity.NEGATIVE, r"\bshore\b"))
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True).stdout)
    left = autosave_path(window.drafts.directory, demo_db.url, dead)
    write_drafts(left, demo_db.url, [draft])

    window.open_target(str(demo_db.engine.url.database))
    assert window.ops.wait_idle()
    [box] = [w for w in window.findChildren(QMessageBox) if w.isVisible()]
    assert f"tsqe ended without saving changes of 1 item: {BANK}" in box.text()
    assert box.button(QMessageBox.StandardButton.Discard) is not None  # offered, but the default restores
    box.defaultButton().click()
    assert window.ops.wait_idle()
    [back] = window.editor.unsaved()
    assert r"\bshore\b" in [row.spec.pattern for row in back.rules["negative"]]
    assert r"\bshore\b" not in [rule.spec.pattern for rule in item_detail(demo_db, item_id).rules]  # not saved
    assert not left.exists() and window.isWindowModified()
    window.drafts.write()  # this session keeps it now
    assert autosave_path(window.drafts.directory, demo_db.url).exists()


def test_the_autosave_keeps_the_drafts_and_a_clean_close_removes_it(qtbot: QtBot, window: MainWindow,
                                                                    asked: Asked) -> None:
    _edit_a_rule(qtbot, window)
    db = window.state.db
    assert db is not None
    path = autosave_path(window.drafts.directory, db.url)
    assert window.drafts.timer.isActive() and window.drafts.timer.interval() <= 60_000
    window.drafts.write()
    assert path.exists() and r"\\bshore\\b" in path.read_text(encoding="utf-8")
    asked.answer = drafts.Answer.DISCARD
    assert window.close()
    assert not path.exists()


def _review_rows(qtbot: QtBot, window: MainWindow, filter: OutputFilter) -> list[int]:
    window.review.apply_filter(filter)
    _settle(qtbot, window)
    make_active(qtbot, window)
    window.review.table.setFocus()
    return [window.review.model.output_id(r) or 0 for r in range(window.review.model.rowCount())]


def test_undoing_decisions_keeps_the_rows_and_takes_only_the_decisions_back(qtbot: QtBot, window: MainWindow) -> None:
    """Review 5 outputs of the not-reviewed queue, undo 3: the same rows in the same order (the list is not read
    again, which dropped the decided rows: 145 became 114), the 3 decisions gone, the 2 others kept."""
    review, db = window.review, window.state.db
    assert db is not None
    rows = _review_rows(qtbot, window, OutputFilter(reviewed=False))
    queries: list[object] = []
    review.model.loaded.connect(lambda: queries.append(1))
    review.set_current_row(0)
    for key in (Qt.Key.Key_P, Qt.Key.Key_F, Qt.Key.Key_P, Qt.Key.Key_P, Qt.Key.Key_F):
        qtbot.keyClick(review.table, key)
    _settle(qtbot, window)
    decided = rows[:5]
    third = review.model.cached(4)
    assert third is not None
    assert window.undo_action.text() == f"&Undo: fail on {third.external_id} · {third.systems[0]}" + (
        f" +{len(third.systems) - 1}" if len(third.systems) > 1 else "")
    for _ in range(3):
        qtbot.keyClick(review.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        _settle(qtbot, window)
    assert [review.model.output_id(r) for r in range(review.model.rowCount())] == rows
    assert queries == []
    labels = {row.output_id: row.manual_label for row in output_rows(db, decided)}
    assert [labels[i] for i in decided] == ["pass", "fail", None, None, None]
    assert [review.model.cached(r).manual_label for r in range(5)] == ["pass", "fail", None, None, None]  # type: ignore[union-attr]
    assert review.current_row() == 2  # on the last decision taken back
    assert window.redo_action.text().startswith("&Redo: pass on ")
    assert not shown_errors()


def test_an_undo_outside_the_screen_asks_first_then_shows_it(qtbot: QtBot, window: MainWindow) -> None:
    db = window.state.db
    assert db is not None
    item_id = _edit_a_rule(qtbot, window, "neg-01")
    window.editor.save()
    assert window.ops.wait_idle()
    rows = _review_rows(qtbot, window, OutputFilter(reviewed=False))
    window.tabs.setCurrentWidget(window.review)

    def asked() -> QMessageBox:
        [box] = [w for w in window.findChildren(QMessageBox) if w.isVisible()]
        return box

    window.step("undo")
    assert asked().text() == r"Undo: add negative rule \bshore\b in neg-01?"
    assert "It is not on this screen: it changes an item's rules" in asked().informativeText()
    asked().button(QMessageBox.StandardButton.Cancel).click()
    assert window.ops.wait_idle() and window.state.undo_stack.canUndo()
    assert r"\bshore\b" in [rule.spec.pattern for rule in item_detail(db, item_id).rules]  # not undone
    window.step("undo")
    asked().defaultButton().click()
    assert window.ops.wait_idle()
    assert r"\bshore\b" not in [rule.spec.pattern for rule in item_detail(db, item_id).rules]
    assert window.tabs.currentWidget() is window.editor and window.editor.item_id == item_id  # shown
    window.tabs.setCurrentWidget(window.review)
    _settle(qtbot, window)
    assert [window.review.model.output_id(r) for r in range(window.review.model.rowCount())] == rows


def test_a_cancelled_job_says_cancelling_until_it_stops_then_what_happened(qtbot: QtBot, window: MainWindow) -> None:
    started, release = threading.Event(), threading.Event()

    def training(task: TaskState) -> None:
        task.progress(1, 3, "fitting")
        started.set()
        release.wait(5)  # a library call that does not look at the cancel for a while
        task.progress(2, 3, "fitting")

    Write("training pgb", training, said=str, changes=changes_nothing).run(window.ops)
    started.wait(5)
    qtbot.waitUntil(lambda: "training pgb" in window.job_label.text())
    window.ops.cancel()
    qtbot.waitUntil(lambda: "cancelling" in window.job_label.text())
    qtbot.wait(100)
    assert "cancelling" in window.job_label.text()  # not "training … 33%" while it has not stopped
    release.set()
    assert window.ops.wait_idle()
    assert window.statusBar().currentMessage() == "training pgb: cancelled: nothing was stored"
    assert window.job_label.text() == ""


def test_a_finished_job_says_what_it_did(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    window.label_all()
    assert window.ops.wait_idle()
    assert window.statusBar().currentMessage() == "labelling: every label was up to date: nothing changed"
    new = tmp_path / "more.tsv"
    new.write_text("item_id\tsystem\toutput\namb-01\tNewSys\tThe bench was freshly painted.\n", encoding="utf-8")
    window.import_file("outputs", str(new))
    assert window.ops.wait_idle()
    said = window.statusBar().currentMessage()
    assert said.startswith("importing outputs from more.tsv: 1 system outputs of 1 systems (1 new)")
    assert said.endswith("labelling: 1 new output labelled · pass +1 · in 1 item")



def test_an_undo_and_a_redo_pressed_at_once_run_one_after_the_other(qtbot: QtBot, window: MainWindow) -> None:
    review, db = window.review, window.state.db
    assert db is not None
    _review_rows(qtbot, window, OutputFilter(reviewed=False))
    review.set_current_row(0)
    first = review.model.output_id(0)
    qtbot.keyClick(review.table, Qt.Key.Key_P)
    _settle(qtbot, window)
    for _ in range(3):
        window.step("undo")
        window.step("redo")  # before the undo's write has run
    _settle(qtbot, window)
    [row] = output_rows(db, [first or 0])
    assert row.manual_label == "pass" and window.state.undo_stack.canUndo() and not shown_errors()
    window.step("undo")
    _settle(qtbot, window)
    assert output_rows(db, [first or 0])[0].manual_label is None
