"""Suite → Degenerate outputs… and Review's filter of degenerate outputs (issue 16), in the window on the demo."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog
from pytestqt.qtbot import QtBot

from gui.main_window import MainWindow
from gui.output_policy import OutputPolicyDialog
from suite.engine.labelling import relabel
from suite.engine.output_policy import OutputPolicy, output_policy
from suite.importers import import_outputs
from suite.reading.browse import OutputFilter, output_ids, output_rows


def _with_placeholders(window: MainWindow, tmp_path: Path) -> None:
    db = window.state.db
    assert db is not None
    extra = tmp_path / "late.tsv"
    extra.write_text("item_id\tsystem\toutput\namb-01\tLate-MT\t####\namb-02\tLate-MT\t####\n", encoding="utf-8")
    import_outputs(db, extra, suite_name=window.state.suite_name)
    from suite.editing.suite_edit import set_output_policy

    # the import listed ``####`` (no letter) as a placeholder: a suite whose linguist has emptied that list
    set_output_policy(db, OutputPolicy(), suite_name=window.state.suite_name, author="t")
    relabel(db, window.state.suite_name)


def _labels_of(window: MainWindow, text: str) -> set[str | None]:
    db = window.state.db
    assert db is not None
    return {row.auto_label for row in output_rows(db, output_ids(db, OutputFilter(contains=text)))}


def test_the_policy_is_set_from_the_suite_menu_undone_and_counted(qtbot: QtBot, window: MainWindow, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    assert window.state.db is not None
    _with_placeholders(window, tmp_path)
    assert _labels_of(window, "####") == {"unknown"}
    shown: list[OutputPolicyDialog] = []

    def choose(dialog: OutputPolicyDialog) -> int:
        shown.append(dialog)
        assert window.ops.wait_idle()  # its count of the stored list (none): no placeholder yet
        assert "0 placeholders" in dialog.counts.text()
        dialog.placeholders.setPlainText("####")
        dialog.empty.setCurrentIndex(dialog.empty.findData("fail"))
        dialog.count()
        assert window.ops.wait_idle()
        assert "2 placeholders" in dialog.counts.text()
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(OutputPolicyDialog, "exec", choose)
    messages: list[str] = []
    window.ops.message.connect(messages.append)
    action = next(a for a in window.menuBar().findChildren(type(window.tree_dock.toggleViewAction()))
                  if a.text() == "Degenerate &outputs…")
    action.trigger()
    assert window.ops.wait_idle()
    assert shown and _labels_of(window, "####") == {"fail"}
    assert any(m.startswith("2 empty or placeholder outputs fail") for m in messages)
    assert window.state.undo_stack.undoText() == "set the policy for degenerate outputs"
    window.state.undo_stack.undo()
    assert window.ops.wait_idle()
    assert _labels_of(window, "####") == {"unknown"} and output_policy(window.state.db) == OutputPolicy()


def test_review_shows_the_degenerate_outputs(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    assert window.state.db is not None
    _with_placeholders(window, tmp_path)
    review = window.review
    review.label_box.setCurrentText("empty, placeholder or untranslated")
    assert window.ops.wait_idle()
    assert review.model.rowCount() == 0  # no placeholder is listed yet, and no demo output is empty or German
    from suite.editing.suite_edit import set_output_policy

    set_output_policy(window.state.db, OutputPolicy(placeholders=("####",)), author="t")
    review.requery(again=True)
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: review.model.all_cached(0, review.model.rowCount() - 1))
    assert review.model.rowCount() == 2
    assert {review.model.cached(r).text for r in range(2)} == {"####"}  # type: ignore[union-attr]
    assert review.current_filter().degenerate


def test_the_dialogs_fields_never_overlap(qtbot: QtBot, window: MainWindow) -> None:
    """At 1,280×720 the 'Identical to the source' chooser was drawn over the placeholders' box: the dialog kept the
    height it had before the counts (two wrapped lines) arrived, and the form squeezed its rows into it."""
    assert window.state.db is not None and window.state.suite_name is not None
    dialog = OutputPolicyDialog(window.state.db, window.state.suite_name, OutputPolicy(), window.ops, window)
    qtbot.addWidget(dialog)
    dialog.show()
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: dialog.counts.text().startswith("In this suite"))

    def stacked() -> bool:
        rows = [dialog.empty, dialog.placeholders, dialog.untranslated, dialog.counts, dialog.buttons]
        return all(upper.geometry().bottom() < lower.geometry().top() for upper, lower in zip(rows, rows[1:]))

    qtbot.waitUntil(stacked)
    dialog.placeholders.setPlainText("x" * 201)  # a problem under the fields: two lines more
    dialog.policy()
    qtbot.waitUntil(lambda: dialog.problem.isVisible() and stacked()
                    and dialog.problem.geometry().bottom() < dialog.buttons.geometry().top())


def test_tab_goes_through_the_fields_in_the_order_they_are_shown(qtbot: QtBot, window: MainWindow) -> None:
    """Tab went from the first chooser to the second, past the placeholders' box between them, and in the box it
    typed a tab character instead of moving on."""
    from PySide6.QtCore import Qt

    assert window.state.db is not None and window.state.suite_name is not None
    dialog = OutputPolicyDialog(window.state.db, window.state.suite_name, OutputPolicy(), window.ops, window)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    dialog.empty.setFocus()
    qtbot.waitUntil(dialog.empty.hasFocus)
    qtbot.keyClick(dialog.empty, Qt.Key.Key_Tab)
    qtbot.waitUntil(dialog.placeholders.hasFocus)
    qtbot.keyClicks(dialog.placeholders, "####")
    qtbot.keyClick(dialog.placeholders, Qt.Key.Key_Tab)
    qtbot.waitUntil(dialog.untranslated.hasFocus)
    assert dialog.placeholders.toPlainText() == "####"
    assert window.ops.wait_idle()
