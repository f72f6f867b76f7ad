"""The Discriminative tab's "What the selection keeps" page, beside the ranking: ``tsqe vat-properties`` on the
selection the ranking keeps, following the drop slider, read in the background only while shown."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot
from suite_builder import build_suite
from typer.testing import CliRunner

from cli.main import app
from gui.operations import Operations
from gui.reports.discriminative import DiscriminativeTab
from gui.reports.table_model import RAW_ROLE
from gui.state import AppState
from store import Database, open_database
from suite.tables import render

REFERENCES = ["a b", "a b c", "a b c d", "a b c d e", "a b c d e f", "a b c d e f g"]
"""Six items, sources of 1 to 6 words: thirds Short (items 1-2), Medium (3-4), Long (5-6)."""


@pytest.fixture
def six(tmp_path: Path) -> Iterator[Database]:
    """Systems agree on the two shortest items and disagree on the rest."""
    db = open_database(tmp_path / "six.sqlite")
    good = REFERENCES
    bad = [ref if i < 2 else "zzz" for i, ref in enumerate(REFERENCES)]
    build_suite(db, "six", [[ref] for ref in REFERENCES], {"good": good, "bad": bad},
                sources=[" ".join(["Wort"] * (i + 1)) for i in range(6)])
    yield db
    db.close()


@pytest.fixture
def tab(qtbot: QtBot, six: Database) -> DiscriminativeTab:
    state = AppState()
    state.open(six, "six")
    parent = QWidget()
    qtbot.addWidget(parent)
    ops = Operations(state, parent)
    tab = DiscriminativeTab(state, ops)
    qtbot.addWidget(tab)
    tab.resize(1280, 720)
    tab.show()
    assert ops.wait_idle(120_000)
    tab.metric_choice.setCurrentIndex(tab.metric_choice.findData("chrf"))
    tab.set_drop(0.3)
    tab.rank()
    assert ops.wait_idle(120_000)
    return tab


def _tsqe(db: Database, *args: str) -> str:
    result = CliRunner().invoke(app, ["--db", db.url, *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_page_is_tsqe_vat_properties_of_the_kept_items(tab: DiscriminativeTab, six: Database,
                                                            tmp_path: Path) -> None:
    assert tab.properties.table() is None  # hidden: nothing read
    tab.beside.setCurrentWidget(tab.properties)
    assert tab._ops.wait_idle()
    table = tab.properties.table()
    assert table is not None
    _tsqe(six, "variance", "--metric", "chrf", "--drop", "0.3", "--vat-dir", str(tmp_path / "vat"))
    kept = next((tmp_path / "vat").glob("*.json"))
    assert render(table, "csv") == _tsqe(six, "vat-properties", "--kept", str(kept), "--format", "csv")
    model = tab.properties.model
    length = {model.data(model.index(r, 1), RAW_ROLE): model.data(model.index(r, 3), RAW_ROLE) for r in range(3)}
    # items 3-6 deviate (std 50), 1-2 not (0): the 30th percentile is 0, so the four above it are kept
    assert length == {"Short": 0, "Medium": 2, "Long": 2}
    assert tab.properties.status.text() == "4 of 6 items kept"


def test_the_page_follows_the_drop_slider(tab: DiscriminativeTab) -> None:
    tab.beside.setCurrentWidget(tab.properties)
    assert tab._ops.wait_idle()
    tab.set_drop(0.9)  # the 90th percentile is 50: nothing above it
    assert tab._ops.wait_idle()
    properties = tab.properties.properties
    assert properties is not None and properties.kept == 0 == len(tab.variance.kept)  # type: ignore[union-attr]
    assert tab.properties.status.text() == "0 of 6 items kept"


def test_parts_of_speech_are_tagged_when_asked_for_as_on_the_command_line(tab: DiscriminativeTab, six: Database,
                                                                           tmp_path: Path) -> None:
    tab.beside.setCurrentWidget(tab.properties)
    assert tab._ops.wait_idle()
    assert tab.properties.properties is not None and tab.properties.properties.part_of_speech is None
    tab.properties.parts_of_speech.setChecked(True)
    assert tab._ops.wait_idle(120_000)
    table = tab.properties.table()
    assert table is not None and tab.properties.properties.part_of_speech is not None
    _tsqe(six, "variance", "--metric", "chrf", "--drop", "0.3", "--vat-dir", str(tmp_path / "vat"))
    kept = next((tmp_path / "vat").glob("*.json"))
    assert render(table, "csv") == _tsqe(six, "vat-properties", "--kept", str(kept), "--part-of-speech",
                                         "--format", "csv")
    assert "part of speech" in render(table, "csv")
