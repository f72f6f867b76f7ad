"""The suite tree: Qt's model checks, search by id, source and pattern, selection shared with every screen."""
from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.qtbot import QtBot

from gui.main_window import MainWindow
from gui.state import Selection
from gui.tree import load_tree
from gui.tree_model import COUNTS_ROLE, SELECTION_ROLE, SuiteTreeModel
from suite.reading.tree import SuiteTree


def _visible_items(window: MainWindow) -> list[int]:
    model, found = window.tree.model, []
    for c in range(model.rowCount()):
        category = model.index(c, 0)
        for p in range(model.rowCount(category)):
            phenomenon = model.index(p, 0, category)
            found += [model.index(i, 0, phenomenon).data(SELECTION_ROLE).item_id
                      for i in range(model.rowCount(phenomenon))]
    return found


def _search(window: MainWindow, text: str) -> None:
    """Type into the tree's search and wait for the tree that shows its result."""
    window.tree.search.setText(text)
    window.tree.show_view()
    assert window.ops.wait_idle()


def test_the_tree_model_passes_qt_model_checks(qtbot: QtBot, window: MainWindow) -> None:
    assert window.state.db is not None
    model = SuiteTreeModel()
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_tree(load_tree(window.state.db, window.state.suite_name).tree)
    assert model.rowCount() == 10  # the demo's categories
    model.clear()
    del tester


def test_the_tree_shows_counts_and_undecided(qtbot: QtBot, window: MainWindow) -> None:
    tree = window.state.tree
    assert tree is not None and tree.counts.outputs == 278
    model = window.tree.model
    first = model.index(0, 0)
    assert model.index(0, 2).data() == str(tree.categories[0].counts.undecided)
    assert "reviewed" in first.data(3)  # the tooltip gives every label's count


def test_search_filters_by_id_source_and_pattern(qtbot: QtBot, window: MainWindow) -> None:
    tree = window.state.tree
    assert tree is not None
    items = {i.external_id: i for c in tree.categories for p in c.phenomena for i in p.items}
    _search(window, "amb-01")
    assert _visible_items(window) == [items["amb-01"].item_id]
    _search(window, "Flussufer")  # source text, any case
    assert _visible_items(window) == [items["amb-01"].item_id]
    _search(window, r"\bbench\b")  # a rule's pattern
    assert items["amb-01"].item_id in _visible_items(window)
    _search(window, "no such thing anywhere")
    assert _visible_items(window) == []
    _search(window, "")
    assert len(_visible_items(window)) == len(items)


def test_selecting_in_the_tree_sets_the_shared_selection_and_filters_review(qtbot: QtBot, window: MainWindow) -> None:
    _search(window, "amb-01")
    model = window.tree.model
    item = model.index(0, 0, model.index(0, 0, model.index(0, 0)))
    window.tree.view.setCurrentIndex(item)
    selection = window.state.selection
    assert selection.category == "Ambiguity" and selection.item_id is not None
    assert window.ops.wait_idle()
    rows = [window.review.model.output_id(r) for r in range(window.review.model.rowCount())]
    assert len(rows) == 4  # amb-01's four distinct outputs
    window.state.select(Selection("Negation"))
    assert window.ops.wait_idle()
    assert window.tree.view.currentIndex().data(SELECTION_ROLE) == Selection("Negation") or \
        window.tree.search.text()  # hidden by the search: the tree cannot show it


def test_a_deleted_item_comes_back_with_undo(qtbot: QtBot, window: MainWindow) -> None:
    tree = window.state.tree
    assert tree is not None and window.state.db is not None
    item = tree.categories[0].phenomena[0].items[0]
    outputs = item.counts.outputs
    window.edits.delete_item(item.item_id)
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: window.state.tree is not None and window.state.tree.counts.outputs == 278 - outputs)
    assert window.state.undo_stack.undoText() == f"delete item {item.external_id}"
    window.state.undo_stack.undo()
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: window.state.tree is not None and window.state.tree.counts.outputs == 278)
    assert window.state.tree is not None
    restored = window.state.tree.categories[0].phenomena[0].items[0]
    assert (restored.external_id, restored.source, restored.counts) == (item.external_id, item.source, item.counts)


def test_del_deletes_only_from_the_tree(qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    asked: list[str] = []
    no = QMessageBox.StandardButton.No
    monkeypatch.setattr(QMessageBox, "question", lambda *args: (asked.append(args[2]), no)[1])  # type: ignore[func-returns-value]
    _search(window, "amb-01")
    model = window.tree.model
    window.tree.view.setCurrentIndex(model.index(0, 0, model.index(0, 0, model.index(0, 0))))
    window.review.table.setFocus()
    qtbot.keyClick(window.review.table, Qt.Key.Key_Delete)
    assert asked == []
    window.tree.view.setFocus()
    qtbot.keyClick(window.tree.view, Qt.Key.Key_Delete)
    assert len(asked) == 1 and "Delete this item" in asked[0]


def test_a_node_shows_its_outputs_stacked_by_label_with_the_counts(qtbot: QtBot, window: MainWindow) -> None:
    """An item with 7 of its 11 outputs unknown showed a full green bar at 100 %: now 4 green, 7 grey."""
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QColor, QImage, QPainter
    from PySide6.QtWidgets import QStyleOptionViewItem

    from gui.colours import LABEL_COLOURS
    from gui.label_bars import LabelBarDelegate, bar_segments
    from gui.tree_model import LABELS
    from suite.engine.label_counts import LabelCounts

    counts = LabelCounts(passed=4, unknown=7, outputs=11)
    assert bar_segments(counts, 110) == [("pass", 4, 40), ("unknown", 7, 70)]
    tiny = bar_segments(LabelCounts(passed=500, conflict=1, outputs=501), 100)
    assert [(word, n) for word, n, _ in tiny] == [("pass", 500), ("conflict", 1)] and tiny[1][2] >= 2
    assert sum(width for *_, width in tiny) == 100

    model = window.tree.model
    category = next(model.index(r, LABELS) for r in range(model.rowCount())
                    if model.index(r, 0).data(SELECTION_ROLE) == Selection("Function word"))
    shown = category.data(COUNTS_ROLE)
    assert shown.unknown == 2 and shown.conflict == 1  # the demo's category with all four states
    image = QImage(400, 24, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    option = QStyleOptionViewItem()
    option.rect = QRect(0, 0, 400, 24)
    painter = QPainter(image)
    LabelBarDelegate().paint(painter, option, category)
    painter.end()
    colours = {image.pixelColor(x, 12).name().upper() for x in range(3, 397)}
    for label in ("pass", "fail", "conflict", "unknown"):
        assert LABEL_COLOURS[label] in colours, label


def test_most_undecided_first_and_undecided_only(qtbot: QtBot, window: MainWindow) -> None:
    tree = window.state.tree
    assert tree is not None
    window.tree.order.setCurrentIndex(window.tree.order.findData("undecided"))
    assert window.ops.wait_idle()
    model = window.tree.model
    shown = [model.index(r, 0).data(COUNTS_ROLE).undecided for r in range(model.rowCount())]
    assert shown == sorted((c.counts.undecided for c in tree.categories), reverse=True)
    window.tree.undecided_only.setChecked(True)
    assert window.ops.wait_idle()
    assert model.rowCount() == sum(1 for c in tree.categories if c.counts.undecided)
    first_item = model.first_item()
    assert first_item.data(SELECTION_ROLE).item_id is not None and first_item.data(COUNTS_ROLE).undecided > 0


def test_the_search_runs_off_the_window_thread_and_the_newest_query_wins(qtbot: QtBot, window: MainWindow,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    import gui.tree

    threads: list[str] = []
    searched = gui.tree.search_tree

    def watched(*args: Any) -> SuiteTree:
        threads.append(threading.current_thread().name)
        return searched(*args)

    monkeypatch.setattr(gui.tree, "search_tree", watched)
    qtbot.keyClicks(window.tree.search, "amb-01")  # faster than anyone types: searched together, or superseded
    qtbot.waitUntil(lambda: not window.tree._search_soon.isActive())
    assert window.ops.wait_idle()
    assert threads and threading.main_thread().name not in threads
    tree = window.state.tree
    assert tree is not None
    assert _visible_items(window) == [i.item_id for c in tree.categories for p in c.phenomena for i in p.items
                                      if i.external_id == "amb-01"]


def test_down_and_enter_move_from_the_search_into_the_results(qtbot: QtBot, window: MainWindow) -> None:
    from PySide6.QtCore import Qt

    window.tree.search.setFocus()
    qtbot.keyClicks(window.tree.search, "vt-0")
    qtbot.keyClick(window.tree.search, Qt.Key.Key_Down)  # before the search has even run: its result is used
    assert window.tree.view.hasFocus()
    current = window.tree.view.currentIndex().data(SELECTION_ROLE)
    tree = window.state.tree
    assert tree is not None
    vt01 = next(i for c in tree.categories for p in c.phenomena for i in p.items if i.external_id == "vt-01")
    assert current.item_id == vt01.item_id and window.state.selection == current
    window.tree.search.setFocus()
    window.tree.search.setText("neg-02")
    qtbot.keyClick(window.tree.search, Qt.Key.Key_Return)
    assert window.tree.view.hasFocus() and window.tree.view.currentIndex().data().startswith("neg-02")
    window.tree.search.setFocus()
    qtbot.keyClick(window.tree.search, Qt.Key.Key_Escape)
    assert window.tree.search.text() == ""


def test_the_search_says_how_many_items_match_or_that_none_does(qtbot: QtBot, window: MainWindow) -> None:
    """A search that found nothing left an empty tree under the box, saying nothing of what was searched."""
    pane = window.tree
    assert not pane.found.isVisible()
    pane.search.setText("garden")  # English: the sources are German, and no pattern has it
    pane.show_view()
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: pane.found.isVisible() and pane.model.rowCount() == 0)
    assert pane.found.text() == "nothing matches “garden”"
    pane.search.setText("amb-0")
    pane.show_view()
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: pane.found.text() == "7 items match")
    pane.search.setText("amb-01")
    pane.show_view()
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: pane.found.text() == "1 item matches")
    pane.search.clear()
    pane.show_view()
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: not pane.found.isVisible())
