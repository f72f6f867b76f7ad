"""The window says so while outputs are not labelled yet (issue 27): one line above every report tab's tables."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from gui.operations import Operations
from gui.reports.systems import SystemsTab
from gui.state import AppState
from store import open_database
from suite.engine.labelling import label_suite
from suite.importers.wmt import import_wmt


def test_a_report_tab_shows_how_many_outputs_are_not_labelled(qtbot: QtBot, tmp_path: Path) -> None:
    (tmp_path / "src.de").write_text("".join(f"Satz {i}.\n" for i in range(10)), encoding="utf-8")
    (tmp_path / "ref.en").write_text("".join(f"Sentence {i}.\n" for i in range(10)), encoding="utf-8")
    systems = tmp_path / "systems"
    systems.mkdir()
    for n, name in enumerate(("A", "B")):
        (systems / f"newstest2099.{name}.de-en").write_text("".join(f"S {i}{'!' * (n + 1)}\n" for i in range(10)),
                                                           encoding="utf-8")
    db = open_database(tmp_path / "t.sqlite")
    import_wmt(db, src=tmp_path / "src.de", refs=[tmp_path / "ref.en"], systems=[systems], name="nt")
    state = AppState()
    state.open(db, "nt")
    parent = QWidget()
    qtbot.addWidget(parent)
    ops = Operations(state, parent)
    tab = SystemsTab(state, ops)
    qtbot.addWidget(tab)
    tab.resize(1200, 800)
    tab.show()
    assert ops.wait_idle()
    notice = tab.unlabelled_notice
    assert notice.isVisible() and notice.text().startswith("20 outputs are not labelled yet")
    layout = tab.layout()
    assert layout is not None and layout.indexOf(notice) == 0  # above the tables
    label_suite(db)
    again = SystemsTab(state, ops)
    qtbot.addWidget(again)
    again.show()
    assert ops.wait_idle()
    assert not again.unlabelled_notice.isVisible()
    ops.wait_idle()
    db.close()
