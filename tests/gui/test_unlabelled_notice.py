"""The window says so while outputs are not labelled yet (issue 27): one line above every report tab's tables and
above Review's pages, following the labels."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from gui.operations import Operations
from gui.reports.systems import SystemsTab
from gui.review.screen import ReviewScreen
from gui.state import AppState
from store import Database, open_database
from suite.changes import ANYWHERE, Changes
from suite.engine.labelling import label_suite
from suite.importers.outputs import import_outputs
from suite.importers.wmt import import_wmt


@pytest.fixture
def news(tmp_path: Path) -> Iterator[Database]:
    """A WMT-style suite of 10 segments and two systems (A, B), not labelled."""
    (tmp_path / "src.de").write_text("".join(f"Satz {i}.\n" for i in range(10)), encoding="utf-8")
    (tmp_path / "ref.en").write_text("".join(f"Sentence {i}.\n" for i in range(10)), encoding="utf-8")
    systems = tmp_path / "systems"
    systems.mkdir()
    for n, name in enumerate(("A", "B")):
        (systems / f"newstest2099.{name}.de-en").write_text("".join(f"S {i}{'!' * (n + 1)}\n" for i in range(10)),
                                                           encoding="utf-8")
    db = open_database(tmp_path / "t.sqlite")
    import_wmt(db, src=tmp_path / "src.de", refs=[tmp_path / "ref.en"], systems=[systems], name="nt")
    yield db
    db.close()


def _operations(qtbot: QtBot, db: Database) -> tuple[AppState, Operations]:
    state = AppState()
    state.open(db, "nt")
    parent = QWidget()
    qtbot.addWidget(parent)
    return state, Operations(state, parent)


def test_a_report_tab_shows_how_many_outputs_are_not_labelled(qtbot: QtBot, news: Database) -> None:
    state, ops = _operations(qtbot, news)
    tab = SystemsTab(state, ops)
    qtbot.addWidget(tab)
    tab.resize(1200, 800)
    tab.show()
    assert ops.wait_idle()
    notice = tab.unlabelled_notice
    assert notice.isVisible() and notice.text().startswith("20 outputs are not labelled yet")
    layout = tab.layout()
    assert layout is not None and layout.indexOf(notice) == 0  # above the tables
    label_suite(news)
    again = SystemsTab(state, ops)
    qtbot.addWidget(again)
    again.show()
    assert ops.wait_idle()
    assert not again.unlabelled_notice.isVisible()
    ops.wait_idle()


def test_review_shows_how_many_outputs_are_not_labelled(qtbot: QtBot, news: Database, tmp_path: Path) -> None:
    label_suite(news)
    (tmp_path / "c.txt").write_text("".join(f"C {i}?\n" for i in range(10)), encoding="utf-8")
    import_outputs(news, tmp_path / "c.txt", system="C")  # 10 new outputs, not labelled: the suite is partly labelled
    state, ops = _operations(qtbot, news)
    screen = ReviewScreen(state, ops)
    qtbot.addWidget(screen)
    screen.resize(1280, 720)
    screen.show()
    assert ops.wait_idle()
    notice = screen.unlabelled_notice
    assert notice.isVisible() and notice.text().startswith("10 outputs are not labelled yet: label the suite")
    layout = screen.layout()
    assert layout is not None and layout.indexOf(notice) == 0  # above the pages
    label_suite(news)
    state.operation_executed.emit(Changes(labels=ANYWHERE))
    assert ops.wait_idle()
    assert not notice.isVisible()
    (tmp_path / "e.txt").write_text("E 0.\n" + "".join(f"C {i}?\n" for i in range(1, 10)), encoding="utf-8")
    import_outputs(news, tmp_path / "e.txt", system="E")  # one output that no system gave before
    state.operation_executed.emit(Changes(outputs=ANYWHERE))
    assert ops.wait_idle()
    assert notice.isVisible() and notice.text().startswith("1 output is not labelled yet")
