"""Issue 28, "Defects seen": what a linguist and a reviewer tripped over on the second day with the window, each
tested in the window (offscreen) as it was met."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import close_quietly, make_active
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QMenu, QStyledItemDelegate, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from gui.main_window import MainWindow
from gui.state import Selection
from gui.tree import SuiteTreePane
from gui.tree_model import ITEM_ID_ROLE
from gui.tree_names import TEXT_MARGIN_PX
from store import Database
from store.domain import Polarity
from suite.demo import DEMO_SUITE
from suite.editing.api import find_item
from suite.editing.items import add_item

DFKI_ID = "00470001"
LONG_PHENOMENON = "Modal verbs with negated complements and contracted forms"


def _opened(qtbot: QtBot, demo_db: Database, size: tuple[int, int] = (1280, 720)) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window, before_close_func=close_quietly)
    window.state.reviewer = "Test Reviewer"
    window.resize(*size)
    window.fit_tree_dock()
    window.show()
    window.open_target(str(demo_db.engine.url.database))
    qtbot.waitUntil(lambda: window.state.tree is not None and window.review.model.rowCount() > 0, timeout=10000)
    assert window.ops.wait_idle()
    make_active(qtbot, window)
    return window


def _shown_texts(tree: SuiteTreePane) -> dict[str, str]:
    """What the names column paints for every node (the delegate's text, as it is drawn), by the node's name."""
    tree.view.expandAll()
    shown: dict[str, str] = {}
    model = tree.model

    def walk(parent: QModelIndex) -> None:
        for row in range(model.rowCount(parent)):
            index = model.index(row, 0, parent)
            option = QStyleOptionViewItem()
            option.initFrom(tree.view)
            option.rect = tree.view.visualRect(index)
            delegate = tree.view.itemDelegateForIndex(index)
            assert isinstance(delegate, QStyledItemDelegate)
            delegate.initStyleOption(option, index)
            clipped = option.fontMetrics.elidedText(option.text, option.textElideMode,
                                                    option.rect.width() - TEXT_MARGIN_PX)
            shown[index.data()] = clipped
            walk(index)

    walk(tree.view.rootIndex())
    return shown


def test_item_ids_are_never_elided_and_phenomena_lose_their_middle(qtbot: QtBot, demo_db: Database) -> None:
    add_item(demo_db, external_id=DFKI_ID, source="Er darf nicht kommen, und er kann's auch nicht.",
             category="Negation", phenomenon=LONG_PHENOMENON, author="lead")
    window = _opened(qtbot, demo_db)
    tree = window.tree
    shown = _shown_texts(tree)
    items = {name: text for name, text in shown.items() if "  " in name}
    assert items
    for name, text in items.items():
        external_id = name.split("  ")[0]
        assert text.startswith(external_id), (name, text)  # before: "003…"
    id_width = tree.view.fontMetrics().horizontalAdvance(DFKI_ID)
    index = tree.model.index_of(Selection("Negation", LONG_PHENOMENON, find_item(demo_db, DFKI_ID, DEMO_SUITE)))
    assert index.data(ITEM_ID_ROLE) == DFKI_ID
    assert tree.view.visualRect(index).width() >= id_width + TEXT_MARGIN_PX  # the default width fits the id
    phenomenon = shown[LONG_PHENOMENON]
    assert phenomenon != LONG_PHENOMENON and "…" in phenomenon
    start, end = phenomenon.split("…")
    assert start and end and LONG_PHENOMENON.startswith(start) and LONG_PHENOMENON.endswith(end)  # the middle goes
    assert window.tree_dock.width() <= 340  # the tree still leaves the screens their room at 1280 px


def test_a_database_switch_clears_every_panel_at_once(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    """The Discriminative detail kept the previous database's item and systems; Rule health showed the previous
    suite's rules for 2-6 s until the new ones were read."""
    tab = window.discriminative
    window.tabs.setCurrentWidget(tab)
    assert window.ops.wait_idle()
    tab.metric_choice.setCurrentIndex(tab.metric_choice.findData("chrf"))
    tab.rank()
    assert window.ops.wait_idle(120_000)
    assert tab.variance is not None
    tab.select_item(tab.variance.ranking[0].item)
    assert window.ops.wait_idle()
    shown_item = tab.variance.ranking[0].item
    assert shown_item in tab.detail.toPlainText()
    window.tabs.setCurrentWidget(window.editor)  # no item chosen: the suite's rule health
    qtbot.waitUntil(lambda: window.editor.health.model.rowCount() > 0, timeout=10000)
    old = window.state.db
    window.open_target(str(tmp_path / "other.sqlite"), create=True)
    qtbot.waitUntil(lambda: window.state.db is not old, timeout=10000)
    assert shown_item not in tab.detail.toPlainText()
    assert "Rank the items by a metric" in tab.detail.toPlainText()
    assert window.editor.health.model.rowCount() == 0


def test_ctrl_shift_a_takes_the_suggestion_while_the_tree_has_the_focus(qtbot: QtBot, window: MainWindow) -> None:
    """Window-wide keys work whatever widget has the focus: the tree is a dock beside Item & rules, not in it."""
    assert window.state.db is not None
    item_id = find_item(window.state.db, "vt-11", DEMO_SUITE)
    window.state.select(Selection("Verb tense/aspect/mood", "Obligation", item_id))
    window.tabs.setCurrentWidget(window.editor)
    assert window.ops.wait_idle()
    editor = window.editor
    qtbot.waitUntil(lambda: editor.suggestions.model.rowCount() > 0, timeout=10000)
    make_active(qtbot, window)
    window.tree.view.setFocus()
    qtbot.waitUntil(lambda: window.tree.view.hasFocus())
    qtbot.keyClick(window.tree.view, Qt.Key.Key_A,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert editor.draft is not None and [row.spec.pattern for row in editor.draft.rules["positive"]] == [r"\bmust\b"]


def test_file_reviewer_changes_the_name_every_decision_stores(qtbot: QtBot, window: MainWindow) -> None:
    """A second reviewer on the same computer needed a second configuration folder."""
    from gui.review.reviewer import SETTINGS_REVIEWER, ReviewerDialog
    from gui.settings import Settings

    menu = window.menuBar().actions()[0].menu()
    assert isinstance(menu, QMenu)
    [entry] = [action for action in menu.actions() if action.text() == "Revie&wer…"]
    entry.trigger()
    dialog = window.findChild(ReviewerDialog)
    assert dialog is not None and dialog.isVisible() and dialog.name.text() == "Test Reviewer"
    dialog.name.setText("   ")
    dialog.accept()
    assert dialog.isVisible() and "a manual label needs the reviewer's name" in dialog.error.text()  # said under it
    assert window.state.reviewer == "Test Reviewer"
    dialog.name.setText("  Ben Second  ")
    dialog.accept()
    assert not dialog.isVisible()
    assert window.state.reviewer == "Ben Second" and Settings().text(SETTINGS_REVIEWER) == "Ben Second"
    assert "Ben Second" in window.statusBar().currentMessage()


def test_an_item_chosen_through_the_tree_search_is_a_visible_chip_cleared_by_x_or_esc(
        qtbot: QtBot, window: MainWindow) -> None:
    assert window.state.db is not None
    review, tree = window.review, window.tree
    everything = review.model.outputs
    make_active(qtbot, window)
    tree.search.setFocus()
    qtbot.keyClicks(tree.search, "amb-01")
    assert window.ops.wait_idle()
    qtbot.keyClick(tree.search, Qt.Key.Key_Return)  # the first result becomes the tree's selection
    assert window.ops.wait_idle()
    assert window.state.selection.item_id == find_item(window.state.db, "amb-01", DEMO_SUITE)
    tree.search.clear()
    review.category_box.setCurrentIndex(0)  # "any category": before, the item stayed as a hidden filter
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: review.model.outputs == everything, timeout=5000)
    assert not review.scope_chip.isVisible()

    window.state.select(Selection(item_id=find_item(window.state.db, "amb-01", DEMO_SUITE)))
    assert window.ops.wait_idle()
    window.tabs.setCurrentWidget(review)
    assert review.scope_chip.isVisible() and review.scope_chip.text().startswith("item amb-01")
    qtbot.waitUntil(lambda: review.model.outputs < everything, timeout=5000)
    review.scope_chip.click()  # the ×
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: review.model.outputs == everything, timeout=5000)
    assert not review.scope_chip.isVisible() and window.state.selection.item_id is None

    window.state.select(Selection(item_id=find_item(window.state.db, "amb-01", DEMO_SUITE)))
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: review.model.outputs < everything, timeout=5000)
    make_active(qtbot, window)
    review.table.setFocus()
    qtbot.keyClick(review.table, Qt.Key.Key_Escape)
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: review.model.outputs == everything, timeout=5000)
    assert not review.scope_chip.isVisible()


def test_a_systems_double_click_lands_on_the_queue_whichever_page_was_shown(qtbot: QtBot, window: MainWindow) -> None:
    window.review.show_page("disagreements")
    systems = window.systems
    window.tabs.setCurrentWidget(systems)
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: systems.model.rowCount() > 0, timeout=20000)
    systems.view.doubleClicked.emit(systems.model.index(0, 3))
    assert window.ops.wait_idle()
    assert window.tabs.currentWidget() is window.review
    assert window.review.page() == "queue"  # before: the Disagreements page
    assert window.review.current_filter().system == systems.model.system(3)


def test_rule_health_after_a_restored_draft_with_nothing_selected_in_the_tree(qtbot: QtBot, window: MainWindow,
                                                                               demo_db: Database) -> None:

    from suite.editing.api import item_detail
    from suite.editing.item_draft import EditorDraft, new_rule

    item_id = find_item(demo_db, "amb-01", DEMO_SUITE)
    draft = EditorDraft.of(item_detail(demo_db, item_id))
    draft.rules[Polarity.NEGATIVE].append(new_rule(Polarity.NEGATIVE, r"\bshore\b"))
    window.editor.recover([draft])  # as the offer of a killed session's drafts does
    assert window.ops.wait_idle()
    editor = window.editor
    assert editor.draft is not None and editor.draft.item_id == item_id
    assert window.state.selection.item_id is None
    window.rule_health_action.trigger()
    assert window.ops.wait_idle()
    assert window.tabs.currentWidget() is editor
    assert editor.pages.currentWidget() is editor.health  # before: the draft stayed, nothing happened
    qtbot.waitUntil(lambda: editor.health.model.rowCount() > 0, timeout=10000)
    [kept] = editor.unsaved()
    assert r"\bshore\b" in [row.spec.pattern for row in kept.rules["negative"]]  # the draft is kept, not dropped


def test_suggestions_are_recomputed_against_the_draft(qtbot: QtBot, window: MainWindow) -> None:
    """The list said "decides 2 here" after the draft's new rule already decided those outputs."""
    assert window.state.db is not None
    item_id = find_item(window.state.db, "vt-11", DEMO_SUITE)
    window.state.select(Selection("Verb tense/aspect/mood", "Obligation", item_id))
    window.tabs.setCurrentWidget(window.editor)
    assert window.ops.wait_idle()
    editor = window.editor
    model = editor.suggestions.model
    qtbot.waitUntil(lambda: model.rowCount() > 0, timeout=10000)
    first = model.row(0).suggestion
    assert first.pattern == r"\bmust\b" and len(first.decides) == 2
    editor.rule_lists[Polarity.POSITIVE].add_pattern(r"\bmust\b", False)  # typed by hand, not taken
    editor.start_preview()
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: r"\bmust\b" not in [model.row(r).suggestion.pattern for r in range(model.rowCount())],
                    timeout=10000)
    for row in range(model.rowCount()):
        assert set(model.row(row).suggestion.decides).isdisjoint(first.decides)
    assert "decides 2 here" not in editor.suggestions.summary.text()


@pytest.mark.parametrize(("typed", "said"), [
    ("evil\x1b]0;owned\x07", "holds the control character U+001B (a control character) at position 5"),
    ("x" * 201, "has 201 characters; a reviewer name holds at most 200"),
])
def test_the_reviewer_dialog_refuses_a_name_the_core_refuses(qtbot: QtBot, window: MainWindow, typed: str,
                                                             said: str) -> None:
    """The window's reviewer field goes through the same check as ``--reviewer`` (``store.names.check_name``): a
    name with a control character, or longer than the column, was stored by the window until issue 27."""
    from gui.review.reviewer import ReviewerDialog

    dialog = ReviewerDialog(window.state, window)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.name.setText(typed)
    dialog.accept()
    assert dialog.isVisible() and not dialog.error.isHidden() and said in dialog.error.text()  # told under the field
    assert window.state.reviewer == "Test Reviewer"
    dialog.name.setText("Ada")
    dialog.accept()
    assert not dialog.isVisible() and window.state.reviewer == "Ada"


def test_the_reviewers_view_says_why_kappa_is_0_and_shows_ac1_beside_it(demo_db: Database) -> None:
    """κ 0.00 beside 78.6 % agreement read as a bug: the view names the reviewer who gave one label only and shows
    Gwet's AC1, which stays meaningful there, beside κ."""
    from gui.review.reviewers_view import report_html, team_report
    from store.domain import Label
    from suite.assist.double_review import Answer, answer_assignments, plan_review_checks, take_assignments
    from suite.editing.review import OutputDecision, SeenOutput, decide
    from suite.reading.browse import OutputFilter, output_ids, output_rows

    rows = [row for row in output_rows(demo_db, output_ids(demo_db, OutputFilter(reviewed=False)))
            if row.effective_label in ("pass", "fail")][:40]
    for label in (Label.PASS, Label.FAIL):
        decide(demo_db, [OutputDecision(SeenOutput(row.output_id), label) for row in rows
                         if row.effective_label == label], "anna")
    plan_review_checks(demo_db, double_share=1.0, control_share=0.0, seed=1, author="lead")
    given = take_assignments(demo_db, "ben", limit=100)
    answer_assignments(demo_db, [Answer(a.id, Label.PASS) for a in given], "ben")  # ben passes everything
    report = team_report(demo_db, DEMO_SUITE)
    overall = report.agreement.rows[0]
    assert overall.ac1 is not None and overall.kappa == pytest.approx(0.0)
    text = report_html(report)
    assert "<th align='left'>AC1</th>" in text and f"{overall.ac1:.2f}" in text
    assert "0.00*" in text and "ben gave one label only" in text
