"""Smaller things seen in the window (issue 16): the suffix typed decides the format, no stale chart after switching
suite, a Keys dialog built from the actions, plain text in the status bar, a confirmed copy, the version in About,
a progress dialog that keeps its width."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QProgressDialog
from pytestqt.qtbot import QtBot

from gui.main_window import MainWindow
from gui.operations import Write, changes_nothing
from gui.reports.export import table_target
from suite.assist.rule_health import RuleHealthReport
from suite.importers.suite_import import import_suite
from suite.tasks import TaskState


def test_the_suffix_typed_decides_the_table_format(qtbot: QtBot, window: MainWindow, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert table_target("/x/table2.tex", "CSV (*.csv)") == (Path("/x/table2.tex"), "latex")
    assert table_target("/x/table2", "LaTeX (*.tex)") == (Path("/x/table2.tex"), "latex")
    assert table_target("/x/table2.v1", "Markdown (*.md)") == (Path("/x/table2.v1.md"), "md")
    window.tabs.setCurrentWidget(window.systems)
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: window.systems.model.report is not None)
    out = tmp_path / "table2.tex"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(out), "CSV (*.csv)"))
    window.systems.export.save_table_action.trigger()
    assert out.read_text(encoding="utf-8").startswith("\\begin{table}") or "\\toprule" in out.read_text()
    assert "wrote the systems report to" in window.statusBar().currentMessage()


def test_copy_as_markdown_says_it_copied(qtbot: QtBot, window: MainWindow) -> None:
    window.tabs.setCurrentWidget(window.systems)
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: window.systems.model.report is not None)
    copy = next(a for a in window.systems.export.menu().actions() if a.text() == "Copy as Markdown")
    copy.trigger()
    assert "| category | items |" in QApplication.clipboard().text()
    assert window.statusBar().currentMessage() == "copied the systems report as Markdown: paste it where it goes"


def test_after_switching_suite_the_qe_tab_shows_nothing_of_the_previous_one(qtbot: QtBot, window: MainWindow,
                                                                           tmp_path: Path) -> None:
    qe = window.qe
    window.tabs.setCurrentWidget(qe)
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: qe.chart.image is not None, timeout=20000)
    suite = tmp_path / "other.tsv"
    suite.write_text("id\tcategory\tphenomenon\tsource\tpositive_regex\nx-01\tC\tP\tEin Satz.\t\\bsentence\\b\n",
                     encoding="utf-8")
    assert window.state.db is not None
    import_suite(window.state.db, suite, name="other", source_lang="de", target_lang="en")
    window.state.choose_suite("other")
    assert window.ops.wait_idle()
    qtbot.wait(300)  # a chart rendering that was on its way lands now, if it is not superseded
    assert window.ops.wait_idle()
    assert qe.chart.image is None and qe.model.table is None  # the new suite has no pairs: nothing to draw


def test_the_keys_dialog_lists_every_action_with_a_key(qtbot: QtBot, window: MainWindow) -> None:
    rows = window.key_rows()
    listed = {(keys, what) for _, keys, what in rows}
    for expected in [("Ctrl+S", "Save item"), ("Ctrl+Shift+P", "Add positive rule"),
                     ("Ctrl+Shift+N", "Add negative rule"), ("Alt+Up", "Move the positive rule up"),
                     ("Alt+Down", "Move the negative rule down"), ("Ctrl+1", "Item & rules"), ("P", "Mark pass"),
                     ("F5", "Label all"), ("F1", "Keys")]:
        assert expected in listed, expected
    assert not any("&" in what and "& " not in what for _, _, what in rows)  # no mnemonic marks left
    window._show_keys()
    assert window.keys_dialog is not None and window.keys_dialog.isVisible()
    window.keys_dialog.close()


def test_the_status_bar_shows_a_job_title_as_written(qtbot: QtBot, window: MainWindow) -> None:
    window._job_progress("training 'pgb' <gb>", 0.3)
    assert window.job_label.text() == "training 'pgb' <gb>…"
    assert "&#x27;" not in window.job_label.text()


def test_about_shows_the_version(qtbot: QtBot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    from suite.version import VERSION

    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "about", lambda parent, title, text: said.append(text))
    about = next(a for a in window.menuBar().findChildren(type(window.detail_toggle)) if a.text() == "&About tsqe")
    about.trigger()
    assert said and VERSION in said[0]


def test_the_progress_dialog_keeps_its_width(qtbot: QtBot, window: MainWindow) -> None:
    release = threading.Event()
    step = threading.Event()

    def work(task: TaskState) -> None:
        task.progress(1, 3, "item 1")
        step.wait(5)
        task.progress(2, 3, "importing outputs from a file whose name is very long indeed, as real names are .tsv")
        release.wait(5)

    Write("importing", work, said=lambda _: "done", changes=changes_nothing).run(window.ops)
    qtbot.waitUntil(lambda: any(d.isVisible() for d in window.findChildren(QProgressDialog)), timeout=5000)
    dialog = next(d for d in window.findChildren(QProgressDialog) if d.isVisible())
    qtbot.wait(100)
    width = dialog.width()
    step.set()
    qtbot.waitUntil(lambda: "very long" in dialog.labelText(), timeout=5000)
    qtbot.wait(100)
    assert dialog.width() == width
    release.set()
    assert window.ops.wait_idle()


def test_the_rule_health_title_shows_a_name_as_written(qtbot: QtBot, window: MainWindow) -> None:
    """A category named with markup was read as markup in the title of Rule health (as the status bar did)."""
    from gui.state import Selection

    pane = window.editor.health
    pane.show_for(Selection(category="<i>Agreement</i> & co"))
    assert window.ops.wait_idle()
    assert "<b>&lt;i&gt;Agreement&lt;/i&gt; &amp; co</b>" in pane.title.text()


def test_rule_health_is_read_when_it_is_shown_not_behind_review(qtbot: QtBot, window: MainWindow,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """With no item chosen the editor shows Rule health, and it read the whole suite's rules (1.5 s of CPU on DFKI
    de-en) at every start and every category clicked in the tree while the reviewer was in Review."""
    import gui.editor.rule_health as module
    from gui.state import Selection

    read: list[str | None] = []
    real = module.rule_health

    def counted(*args: Any, **kwargs: Any) -> RuleHealthReport:
        read.append(kwargs.get("category"))
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "rule_health", counted)
    assert window.tabs.currentWidget() is window.review
    tree = window.state.tree
    assert tree is not None
    first, second = tree.categories[0].name, tree.categories[1].name
    window.state.select(Selection(category=first))
    window.state.select(Selection(category=second))
    assert window.ops.wait_idle()
    assert read == []
    window.tabs.setCurrentWidget(window.editor)
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: read == [second])
    qtbot.waitUntil(lambda: window.editor.health.model.rowCount() > 0)
    assert second in window.editor.health.title.text()
