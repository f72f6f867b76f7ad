"""The Review screen says so while some outputs are not labelled yet (issue 27), and follows the labels."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from gui.operations import Operations
from gui.review.screen import ReviewScreen
from gui.state import AppState
from store import open_database
from suite.changes import ANYWHERE, Changes
from suite.engine.labelling import label_suite
from suite.importers.outputs import import_outputs
from suite.importers.wmt import import_wmt


def test_review_shows_how_many_outputs_are_not_labelled(qtbot: QtBot, tmp_path: Path) -> None:
    (tmp_path / "src.de").write_text("".join(f"Satz {i}.\n" for i in range(10)), encoding="utf-8")
    (tmp_path / "ref.en").write_text("".join(f"Sentence {i}.\n" for i in range(10)), encoding="utf-8")
    systems = tmp_path / "systems"
    systems.mkdir()
    for n, name in enumerate(("A", "B")):
        (systems / f"newstest2099.{name}.de-en").write_text("".join(f"S {i}{'!' * (n + 1)}\n" for i in range(10)),
                                                           encoding="utf-8")
    db = open_database(tmp_path / "t.sqlite")
    import_wmt(db, src=tmp_path / "src.de", refs=[tmp_path / "ref.en"], systems=[systems], name="nt")
    label_suite(db)
    (tmp_path / "c.txt").write_text("".join(f"C {i}?\n" for i in range(10)), encoding="utf-8")
    import_outputs(db, tmp_path / "c.txt", system="C")  # 10 new outputs, not labelled: the suite is partly labelled
    state = AppState()
    state.open(db, "nt")
    parent = QWidget()
    qtbot.addWidget(parent)
    ops = Operations(state, parent)
    screen = ReviewScreen(state, ops)
    qtbot.addWidget(screen)
    screen.resize(1280, 720)
    screen.show()
    assert ops.wait_idle()
    notice = screen.unlabelled_notice
    assert notice.isVisible() and notice.text().startswith("10 outputs are not labelled yet: label the suite")
    layout = screen.layout()
    assert layout is not None and layout.indexOf(notice) == 0  # above the pages
    label_suite(db)
    state.operation_executed.emit(Changes(labels=ANYWHERE))
    assert ops.wait_idle()
    assert not notice.isVisible()
    (tmp_path / "e.txt").write_text("E 0.\n" + "".join(f"C {i}?\n" for i in range(1, 10)), encoding="utf-8")
    import_outputs(db, tmp_path / "e.txt", system="E")  # one output that no system gave before
    state.operation_executed.emit(Changes(outputs=ANYWHERE))
    assert ops.wait_idle()
    assert notice.isVisible() and notice.text().startswith("1 output is not labelled yet")
    db.close()
