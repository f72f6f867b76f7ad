"""The suite tree: Qt's model checks, search by id, source and pattern, selection shared with every screen."""
from __future__ import annotations

from PySide6.QtTest import QAbstractItemModelTester

from gui.main_window import MainWindow
from gui.state import Selection
from gui.tree import SELECTION_ROLE, SuiteTreeModel, load_tree


def _visible_items(window: MainWindow) -> list[int]:
    proxy, found = window.tree.proxy, []
    for c in range(proxy.rowCount()):
        category = proxy.index(c, 0)
        for p in range(proxy.rowCount(category)):
            phenomenon = proxy.index(p, 0, category)
            found += [proxy.index(i, 0, phenomenon).data(SELECTION_ROLE).item_id
                      for i in range(proxy.rowCount(phenomenon))]
    return found


def test_the_tree_model_passes_qt_model_checks(qtbot, window: MainWindow) -> None:
    assert window.state.db is not None
    model = SuiteTreeModel()
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_data(load_tree(window.state.db, window.state.suite_name))
    assert model.rowCount() == 10  # the demo's categories
    model.clear()
    del tester


def test_the_tree_shows_counts_and_pass_rates(qtbot, window: MainWindow) -> None:
    tree = window.state.tree
    assert tree is not None and tree.counts.outputs == 278
    model = window.tree.model
    first = model.index(0, 0)
    assert model.index(0, 1).data() == f"{tree.categories[0].counts.pass_rate:.0%}"
    assert model.index(0, 2).data() == str(tree.categories[0].counts.outputs)
    assert "reviewed" in first.data(3)  # the tooltip gives every label's count


def test_search_filters_by_id_source_and_pattern(qtbot, window: MainWindow) -> None:
    tree = window.state.tree
    assert tree is not None
    items = {i.external_id: i for c in tree.categories for p in c.phenomena for i in p.items}
    window.tree.search.setText("amb-01")
    assert _visible_items(window) == [items["amb-01"].item_id]
    window.tree.search.setText("Flussufer")  # source text, any case
    assert _visible_items(window) == [items["amb-01"].item_id]
    window.tree.search.setText(r"\bbench\b")  # a rule's pattern
    assert items["amb-01"].item_id in _visible_items(window)
    window.tree.search.setText("no such thing anywhere")
    assert _visible_items(window) == []
    window.tree.search.clear()
    assert len(_visible_items(window)) == len(items)


def test_selecting_in_the_tree_sets_the_shared_selection_and_filters_review(qtbot, window: MainWindow) -> None:
    window.tree.search.setText("amb-01")
    proxy = window.tree.proxy
    item = proxy.index(0, 0, proxy.index(0, 0, proxy.index(0, 0)))
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


def test_a_deleted_item_comes_back_with_undo(qtbot, window: MainWindow) -> None:
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
    restored = window.state.tree.categories[0].phenomena[0].items[0]
    assert (restored.external_id, restored.source, restored.counts) == (item.external_id, item.source, item.counts)


def test_del_deletes_only_from_the_tree(qtbot, window: MainWindow, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    asked: list[str] = []
    no = QMessageBox.StandardButton.No
    monkeypatch.setattr(QMessageBox, "question", lambda *args: (asked.append(args[2]), no)[1])
    window.tree.search.setText("amb-01")
    proxy = window.tree.proxy
    window.tree.view.setCurrentIndex(proxy.index(0, 0, proxy.index(0, 0, proxy.index(0, 0))))
    window.review.table.setFocus()
    qtbot.keyClick(window.review.table, Qt.Key.Key_Delete)
    assert asked == []
    window.tree.view.setFocus()
    qtbot.keyClick(window.tree.view, Qt.Key.Key_Delete)
    assert len(asked) == 1 and "Delete this item" in asked[0]
