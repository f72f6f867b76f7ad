"""Review's detail panel shows a segment's marked MQM errors beside its output (issue 30): the pieces the core cut,
painted by severity, with category, severity and rater in the tooltip; a suite without error spans shows none."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QTextCursor, QTextDocument
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from gui.operations import Operations
from gui.review.detail import DetailPanel
from gui.state import AppState
from store import Database, open_database
from suite.importers.mqm import import_mqm
from suite.reading.browse import OutputRow, browse_outputs

MQM = ("system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"
       "sysA\ttalk.1\t1\t1\trater1\tHello world.\tHallo <v>Erde</v>.\tAccuracy/Mistranslation\tMajor\n"
       "sysA\ttalk.1\t1\t1\trater1\tHello world.\tHallo Erde<v>.</v>\tFluency/Punctuation\tMinor\n"
       "sysB\ttalk.1\t1\t1\trater2\tHello world.\tHallo Welt.\tNo-error\tNo-error\n"
       "sysA\ttalk.1\t1\t2\trater1\tBye.\tTschüss.\tAccuracy/Omission\tMinor\n"
       "sysB\ttalk.1\t1\t2\trater2\tBye.\tTschüss.\tNo-error\tNo-error\n"
       "ref\ttalk.1\t1\t1\trater2\tHello world.\tHallo Welt!\tNo-error\tNo-error\n"
       "ref\ttalk.1\t1\t2\trater2\tBye.\tAuf Wiedersehen.\tNo-error\tNo-error\n")


@pytest.fixture
def mqm_db(tmp_path: Path) -> Iterator[Database]:
    path = tmp_path / "mqm_tiny_ende.tsv"
    path.write_text(MQM, encoding="utf-8")
    database = open_database(tmp_path / "mqm.sqlite")
    import_mqm(database, path, name="ted")
    yield database
    database.close()


def _panel(qtbot: QtBot, db: Database, suite: str) -> tuple[DetailPanel, Operations, list[OutputRow]]:
    state = AppState()
    state.open(db, suite)
    parent = QWidget()
    qtbot.addWidget(parent)
    ops = Operations(state, parent)
    panel = DetailPanel(state, ops, parent)
    parent.resize(420, 600)
    panel.resize(420, 600)
    parent.show()
    return panel, ops, browse_outputs(db, suite_name=suite).rows


def _shown(qtbot: QtBot, panel: DetailPanel, ops: Operations, row: OutputRow) -> QTextDocument:
    panel.show_row(row)
    assert ops.wait_idle()
    qtbot.waitUntil(lambda: panel.current is not None and panel.current.row == row, timeout=10_000)
    return panel.browser.document()


def _tooltip_at(document: QTextDocument, text: str, word: str) -> str:
    """The tooltip of the character just inside ``word`` in the paragraph that starts with ``text``."""
    block = document.find(text)
    assert not block.isNull(), f"{text!r} not shown"
    found = document.find(word, block.selectionStart())
    cursor = QTextCursor(document)
    cursor.setPosition(found.selectionStart() + 1)
    return cursor.charFormat().toolTip()


def test_an_mqm_output_shows_its_marked_errors_beside_it(qtbot: QtBot, mqm_db: Database) -> None:
    panel, ops, rows = _panel(qtbot, mqm_db, "ted")
    erde = next(row for row in rows if row.text == "Hallo Erde.")
    document = _shown(qtbot, panel, ops, erde)
    text = document.toPlainText()
    assert "Annotated errors" in text and "sysA: Hallo Erde." in text
    assert "major · Accuracy/Mistranslation · rater1 (mqm)" == _tooltip_at(document, "sysA: Hallo", "Erde")
    assert "minor · Fluency/Punctuation · rater1 (mqm)" == _tooltip_at(document, "sysA: Hallo", ".")
    assert _tooltip_at(document, "sysA: Hallo", "allo") == ""  # unmarked
    html = document.toHtml()
    assert "background-color:#d55e00" in html.lower() and "background-color:#f0e442" in html.lower()

    # sysA and sysB translated item 2 alike: one output, whose omission only sysA's rater marked (no span)
    shared = next(row for row in rows if row.text == "Tschüss.")
    assert set(shared.systems) == {"sysA", "sysB"}
    text = _shown(qtbot, panel, ops, shared).toPlainText()
    assert "sysA: Tschüss." in text and "sysB:" not in text
    assert "no span: minor · Accuracy/Omission · rater1 (mqm)" in text
    assert ops.wait_idle()


def test_a_suite_without_error_spans_shows_none(qtbot: QtBot, demo_db: Database) -> None:
    from suite.demo import DEMO_SUITE

    panel, ops, rows = _panel(qtbot, demo_db, DEMO_SUITE)
    document = _shown(qtbot, panel, ops, rows[0])
    assert "Output" in document.toPlainText() and "Annotated errors" not in document.toPlainText()
    assert "#f0e442" not in document.toHtml().lower()
    assert ops.wait_idle()
