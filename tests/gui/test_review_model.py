"""The review table's model and delegate on the demo: cells read as they are painted, what a cell holds after a
decision, a row whose output vanished, selected rows painted as such only while they are selected, and the
scroll bar whose groove is painted once."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QScrollBar, QStyleFactory, QTableView, QWidget
from pytestqt.qtbot import QtBot
from reviewing import review_output

import gui.review.model as model_module
from gui.colours import LABEL_COLOURS
from gui.main_window import MainWindow
from gui.review.columns import COLUMN
from gui.review.model import ReviewModel
from gui.review.scroll_bar import paint_groove_once
from gui.review.table import ReviewTable
from store.domain import Label
from suite.editing.items import remove_item
from suite.reading.browse import OutputFilter, output_ids, output_rows


def test_a_cell_not_read_yet_asks_for_its_block_and_then_shows_the_row(qtbot: QtBot, window: MainWindow,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_module, "BLOCK", 20)
    db, suite_name = window.state.db, window.state.suite_name
    assert db is not None and suite_name is not None
    model = ReviewModel(window.state, window.ops)
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.query(OutputFilter())
    assert window.ops.wait_idle()
    assert model.cells(100) is None  # painting a row whose block is not here asks for it
    assert window.ops.wait_idle()
    [row] = output_rows(db, [output_ids(db, OutputFilter(), suite_name=suite_name)[100]])
    cells = model.cells(100)
    assert cells is not None
    output = cells[COLUMN["output"]]
    assert output.text == row.text and output.colour is None and not output.bold
    auto = cells[COLUMN["auto"]]
    assert auto.text == (row.auto_label or "not labelled")
    assert auto.colour == (QColor(LABEL_COLOURS[row.auto_label]) if row.auto_label else None)
    assert model.cells(100) is cells  # worked out once
    assert model.index(100, COLUMN["output"]).data() == row.text
    del tester


def test_a_decision_shows_in_the_cells_once_its_row_is_read_again(qtbot: QtBot, window: MainWindow) -> None:
    model = window.review.model
    db = window.state.db
    assert db is not None
    row = next(r for r in range(20) if (cached := model.cached(r)) is not None and cached.manual_label is None)
    output_id = model.output_id(row)
    assert output_id is not None
    before = model.cells(row)  # painted once: its cells are worked out and kept
    assert before is not None and before[COLUMN["manual"]].text == "" and not before[COLUMN["manual"]].bold
    review_output(db, output_id, Label.FAIL, "Ada Lovelace")
    model.refresh([output_id])
    assert window.ops.wait_idle()
    cells = model.cells(row)
    assert cells is not None
    after = cells[COLUMN["manual"]]
    assert after.text == "fail (AL)" and after.bold
    assert after.colour == QColor(LABEL_COLOURS["fail"])


def test_the_row_of_an_output_removed_after_the_query_stays_blank(qtbot: QtBot, window: MainWindow,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Later blocks are read by the ids the query had when it ran; an output removed since has no row to show."""
    monkeypatch.setattr(model_module, "BLOCK", 20)
    db, suite_name = window.state.db, window.state.suite_name
    assert db is not None and suite_name is not None
    model = ReviewModel(window.state, window.ops)
    model.query(OutputFilter())
    assert window.ops.wait_idle()
    ids = output_ids(db, OutputFilter(), suite_name=suite_name)
    [gone] = output_rows(db, [ids[45]])
    remove_item(db, gone.item_id, author="test")
    model.fetch(45)
    assert window.ops.wait_idle()
    assert model.output_id(45) == gone.output_id
    assert model.cells(45) is None and model.index(45, COLUMN["output"]).data() is None
    kept = next(r for r in range(40, 60) if model.cached(r) is not None)
    assert model.cells(kept) is not None


def _painted_selected(table: QTableView, row: int) -> bool:
    """Whether the painted table shows ``row`` as selected: its item id drawn in the selection's text colour on
    the selection's colour, and none of it in the plain text colour."""
    QCoreApplication.processEvents()
    image: QImage = table.viewport().grab().toImage()
    ratio = image.devicePixelRatio()
    rect = table.visualRect(table.model().index(row, COLUMN["item"]))
    colours = {image.pixelColor(int(x * ratio), int(y * ratio)).rgb()
               for x in range(rect.left() + 1, rect.right()) for y in range(rect.top() + 1, rect.bottom())}
    palette = table.palette()
    selected = {palette.color(role).rgb() for role in (QPalette.ColorRole.Highlight,
                                                       QPalette.ColorRole.HighlightedText)}
    plain = palette.color(QPalette.ColorRole.Text).rgb()
    if selected <= colours and plain not in colours:
        return True
    assert plain in colours, "the row shows neither the plain nor the selected colours"
    return False


def test_the_highlight_follows_the_selection(qtbot: QtBot, window: MainWindow) -> None:
    review = window.review
    table = review.table
    review.set_current_row(3)
    assert _painted_selected(table, 3) and not _painted_selected(table, 5)
    review.set_current_row(5)
    assert _painted_selected(table, 5) and not _painted_selected(table, 3)
    review.apply_filter(OutputFilter(label=Label.PASS))  # a new query: rows mean other outputs, the cursor goes to 0
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: review.model.all_cached(0, 10), timeout=5000)
    assert _painted_selected(table, 0) and not _painted_selected(table, 5)


def test_a_new_query_leaves_no_row_painted_as_selected(qtbot: QtBot, window: MainWindow) -> None:
    """Qt empties the selection when the model is reset; the table paints the selection as it is now."""
    model = ReviewModel(window.state, window.ops)
    table = ReviewTable(model)
    qtbot.addWidget(table)
    table.resize(600, 400)
    table.show()
    model.query(OutputFilter())
    assert window.ops.wait_idle()
    table.selectRow(3)
    assert _painted_selected(table, 3)
    model.query(OutputFilter(label=Label.PASS))
    assert window.ops.wait_idle()
    assert not table.selectionModel().hasSelection() and not _painted_selected(table, 3)


def test_the_scroll_bar_with_its_groove_painted_once_looks_the_same(qtbot: QtBot) -> None:
    """Fusion's groove is copied from a pixmap instead of filled anew: at every slider position the bar shows the
    same pixels as Fusion's own painting."""
    bars, backgrounds = [], []
    for once in (False, True):
        background = QWidget()  # a colour under the bar, which shows through the groove's half-transparent edges
        qtbot.addWidget(background)
        background.setAutoFillBackground(True)
        palette = background.palette()
        palette.setColor(background.backgroundRole(), QColor("darkcyan"))
        background.setPalette(palette)
        background.resize(30, 620)
        bar = QScrollBar(Qt.Orientation.Vertical, background)
        fusion = QStyleFactory.create("fusion")
        fusion.setParent(bar)
        bar.setStyle(fusion)
        if once:
            paint_groove_once(bar)
        bar.setRange(0, 1_000_000)
        bar.setPageStep(35)
        bar.setGeometry(7, 10, 16, 600)
        background.show()
        bars.append(bar)
        backgrounds.append(background)
    assert bars[1].style() is not fusion
    for value in (0, 35, 500_000, 1_000_000, 70):
        for bar in bars:
            bar.setValue(value)
        plain, cached = (background.grab().toImage() for background in backgrounds)
        assert plain == cached


def test_a_moved_column_is_painted_where_the_header_puts_it(qtbot: QtBot, window: MainWindow) -> None:
    """The table paints its rows itself: a column dragged to the front, before a hidden one, shows its labels at
    the front, in their colour."""
    table, model = window.review.table, window.review.model
    header = table.horizontalHeader()
    header.moveSection(header.visualIndex(COLUMN["auto"]), 0)
    header.hideSection(COLUMN["item"])
    row = next(r for r in range(30) if (cached := model.cached(r)) is not None and cached.auto_label == "fail")
    QCoreApplication.processEvents()
    image: QImage = table.viewport().grab().toImage()
    ratio = image.devicePixelRatio()
    rect = table.visualRect(model.index(row, COLUMN["auto"]))
    assert rect.left() == 0
    colours = {image.pixelColor(int(x * ratio), int(y * ratio)).rgb()
               for x in range(rect.left() + 1, rect.right()) for y in range(rect.top() + 1, rect.bottom())}
    assert QColor(LABEL_COLOURS["fail"]).rgb() in colours
