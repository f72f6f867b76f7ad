"""The QE tab's Disagreement page: the heat map is ``tsqe accuracy --table disagreement``, a click lists the flips."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot
from qe_testdata import ItemSpec, add_qe, make_suite
from typer.testing import CliRunner

from cli.main import app
from gui.operations import Operations
from gui.reports.qe import DISAGREEMENT_PAGE, QETab
from gui.reports.table_model import RAW_ROLE
from gui.state import AppState
from store import Database, open_database
from suite.tables import render

CATEGORIES = {"A": 10, "B": 10, "C": 2, "D": 10}
RIGHT = {"A": "x", "B": "y", "C": "y", "D": "x"}


@pytest.fixture
def flipping(tmp_path: Path) -> Iterator[Database]:
    """Categories whose passing outputs QE system x prefers (A, D) or y prefers (B, C); C has too few pairs."""
    db = open_database(tmp_path / "flips.sqlite")
    specs: list[ItemSpec] = []
    for category, count in CATEGORIES.items():
        for k in range(count):
            outputs: dict[str, tuple[str, tuple[str, ...]]] = {
                f"{category}{k} {label}{n}": (label, (f"mt{n}{label}",)) for label in ("pass", "fail") for n in (1, 2)}
            specs.append(ItemSpec(f"{category}{k}", category, f"{category} phenomenon", outputs))
    ids = make_suite(db, specs)
    for name in ("x", "y"):
        add_qe(db, name, {output: float((RIGHT[item[0]] == name) == (" pass" in text))
                          for (item, text), output in ids.items()})
    yield db
    db.close()


@pytest.fixture
def page_tab(qtbot: QtBot, flipping: Database) -> QETab:
    state = AppState()
    state.open(flipping, "test")
    parent = QWidget()
    qtbot.addWidget(parent)
    ops = Operations(state, parent)
    tab = QETab(state, ops)
    qtbot.addWidget(tab)
    QAbstractItemModelTester(tab.disagreement_page.model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    tab.resize(1400, 900)
    tab.show()
    assert ops.wait_idle()
    tab.pages.setCurrentIndex(DISAGREEMENT_PAGE)
    assert ops.wait_idle()
    return tab


def test_the_heat_map_is_the_clis_disagreement_table_and_greys_rows_with_too_few_pairs(page_tab: QETab,
                                                                                        flipping: Database) -> None:
    page = page_tab.disagreement_page
    table = page.table()
    assert table is not None
    cli = CliRunner().invoke(app, ["--db", flipping.url, "accuracy", "--table", "disagreement", "--format", "csv"])
    assert cli.exit_code == 0, cli.output
    assert render(table, "csv") == cli.stdout
    model = page.model
    assert [model.data(model.index(r, 0)) for r in range(4)] == ["1  A", "2  B", "3  C†", "4  D"]
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(5)] == ["row", "1", "2", "3", "4"]
    assert model.headerData(2, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) == "B"
    assert model.data(model.index(0, 2), RAW_ROLE) == 1 and model.data(model.index(0, 4), RAW_ROLE) == 0
    flipped = model.data(model.index(0, 2), Qt.ItemDataRole.BackgroundRole)
    agreed = model.data(model.index(0, 4), Qt.ItemDataRole.BackgroundRole)
    assert isinstance(flipped, QColor) and agreed == QColor("white") and flipped != agreed
    assert model.data(model.index(2, 1), Qt.ItemDataRole.BackgroundRole) == QColor("#EEEEEE")  # C: left out
    assert "too few pairs" in model.data(model.index(2, 1), Qt.ItemDataRole.ToolTipRole)
    assert "click to list" in model.data(model.index(0, 2), Qt.ItemDataRole.ToolTipRole)
    assert page.status.text() == "2 flips between 3 rows"


def test_clicking_a_cell_lists_the_flipping_pairs_with_both_accuracies_and_ranks(page_tab: QETab) -> None:
    page = page_tab.disagreement_page
    page.view.clicked.emit(page.model.index(0, 2))  # A against B
    flips = page.flips_model
    assert flips.rowCount() == 2
    header = [flips.headerData(c, Qt.Orientation.Horizontal) for c in range(flips.columnCount())]
    assert header == ["flip", "QE system", "A", "rank on A", "B", "rank on B"]
    assert [flips.data(flips.index(r, 1)) for r in range(2)] == ["x", "y"]
    assert flips.data(flips.index(0, 2)) == "100.0 [100.0, 100.0]" and flips.data(flips.index(0, 3)) == "1"
    assert flips.data(flips.index(1, 4)) == "100.0 [100.0, 100.0]" and flips.data(flips.index(1, 5)) == "1"
    page.view.clicked.emit(page.model.index(2, 1))  # a left-out row lists nothing new
    assert flips.rowCount() == 2
    figure = page.figure()
    assert figure is not None and page.document() is not None


def test_rows_with_too_few_pairs_are_counted_on_request(page_tab: QETab) -> None:
    page = page_tab.disagreement_page
    page.count_too_few.setChecked(True)
    assert page_tab._ops.wait_idle()
    model = page.model
    assert model.data(model.index(2, 1), RAW_ROLE) == 1  # C against A: y above x in C, x above y in A
    assert model.data(model.index(2, 0), Qt.ItemDataRole.ForegroundRole) == QColor("#8A8A8A")  # still marked
    assert page.status.text() == "4 flips between 4 rows"
