"""The QE tab's Adversarial validation page: the matrix is ``tsqe adversarial``'s table, computed in the
background on Run, over the suites checked."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot
from suite_builder import build_suite
from typer.testing import CliRunner

from cli.main import app
from gui.operations import Operations
from gui.reports.qe import ADVERSARIAL_PAGE, QETab
from gui.state import AppState
from store import Database, open_database
from suite.tables import render


@pytest.fixture
def two_suites(tmp_path: Path) -> Iterator[Database]:
    """20 English items against 30 German ones: every test item shares its character n-grams with its own suite
    only, so the classifier tells them apart every seed (tests/test_adversarial.py works it out)."""
    db = open_database(tmp_path / "two.sqlite")
    build_suite(db, "cats", [["ref"]] * 20, {"sys": [f"o{i}" for i in range(20)]},
                sources=[f"the cat sat on mat {i}" for i in range(20)])
    build_suite(db, "dogs", [["ref"]] * 30, {"sys": [f"o{i}" for i in range(30)]},
                sources=[f"ein Hund lief weg {i}" for i in range(30)])
    yield db
    db.close()


@pytest.fixture
def tab(qtbot: QtBot, two_suites: Database) -> QETab:
    state = AppState()
    state.open(two_suites, "cats")
    parent = QWidget()
    qtbot.addWidget(parent)
    ops = Operations(state, parent)
    tab = QETab(state, ops)
    qtbot.addWidget(tab)
    QAbstractItemModelTester(tab.adversarial_page.model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    tab.resize(1280, 720)
    tab.show()
    assert ops.wait_idle()
    tab.pages.setCurrentIndex(ADVERSARIAL_PAGE)
    assert ops.wait_idle()
    tab.ops = ops  # type: ignore[attr-defined]
    return tab


def test_showing_the_page_lists_the_suites_with_the_open_one_checked_and_trains_nothing(tab: QETab) -> None:
    page = tab.adversarial_page
    assert [page.suites.item(i).text() for i in range(page.suites.count())] == ["cats", "dogs"]
    assert page.checked() == ["cats"]
    assert page.table() is None and page.figure() is None


def test_run_shows_the_clis_table_shaded_from_chance(tab: QETab, two_suites: Database) -> None:
    page = tab.adversarial_page
    page.set_checked(["cats", "dogs"])
    page.seeds.setValue(3)
    page.run.click()
    assert tab.ops.wait_idle()  # type: ignore[attr-defined]
    table = page.table()
    assert table is not None
    cli = CliRunner().invoke(app, ["--db", two_suites.url, "adversarial", "--suites", "cats,dogs", "--seeds", "3",
                                   "--format", "csv"])
    assert cli.exit_code == 0, cli.output
    assert render(table, "csv") == cli.stdout
    model = page.model
    apart = model.index(0, 2)  # cats against dogs: 100 %
    assert model.data(apart) == "100.0"
    assert model.data(apart, Qt.ItemDataRole.ForegroundRole) == QColor("white")
    assert page.status.text() == "3 pairs of suites, 3 seeds"
    assert page.figure() is not None and '"mean": 1.0' in (page.document() or "")


def test_no_suite_checked_says_so_on_the_page(tab: QETab) -> None:
    page = tab.adversarial_page
    page.set_checked([])
    page.run.click()
    assert tab.ops.wait_idle()  # type: ignore[attr-defined]
    assert page.table() is None
    assert page.status.text() == "adversarial validation needs at least one suite"


def test_a_switch_of_suite_lists_the_suites_again_with_the_new_one_checked(tab: QETab) -> None:
    page = tab.adversarial_page
    page.set_checked(["cats", "dogs"])
    page.run.click()
    assert tab.ops.wait_idle()  # type: ignore[attr-defined]
    assert page.table() is not None
    tab._state.choose_suite("dogs")
    assert tab.ops.wait_idle()  # type: ignore[attr-defined]
    assert page.table() is None and page.checked() == ["dogs"]
