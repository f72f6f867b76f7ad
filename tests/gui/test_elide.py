"""Outputs cut where the words that matter are: around the first match, not before it (issue 16)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from gui.main_window import MainWindow
from gui.review.columns import COLUMN
from gui.review.delegate import ELLIPSIS, focus_start, shown_from
from store.domain import Polarity
from suite.engine.rules import Span

TEXT = "Yesterday on the way home from school you get a bank account opened by your parents."


def _pixels(text: str) -> int:
    return 6 * len(text)  # a font whose every character is 6 px wide


def test_a_match_past_the_right_edge_is_brought_into_view_with_a_few_words_before_it() -> None:
    bank = TEXT.index("bank")
    spans = [Span(bank, bank + 4, 1, Polarity.POSITIVE)]
    width = 30 * 6  # thirty characters
    start = focus_start(TEXT, spans, width, _pixels)
    shown = shown_from(TEXT, start)
    assert shown.startswith(ELLIPSIS) and TEXT[start - 1] == " "  # from the start of a word
    assert "bank" in shown[:30]  # within the cell
    assert 0 < bank - start <= 0.4 * 30  # a few words of context before it, no more
    assert focus_start(TEXT, spans, len(TEXT) * 6, _pixels) == 0  # it all fits: nothing cut on the left
    early = [Span(0, 9, 1, Polarity.POSITIVE)]
    assert focus_start(TEXT, early, width, _pixels) == 0  # the match is in view anyway
    assert focus_start(TEXT, [], width, _pixels) == 0
    assert focus_start(TEXT, [Span(bank, len(TEXT), 1, Polarity.NEGATIVE)], 20 * 6, _pixels) == bank  # a long match:
    # no context, so that as much of the match as can be is in view


def test_the_review_table_shows_each_rows_match_in_a_narrow_column(qtbot: QtBot, window: MainWindow) -> None:
    table = window.review.table
    header = table.horizontalHeader()
    header.setSectionResizeMode(COLUMN["output"], header.ResizeMode.Interactive)
    header.resizeSection(COLUMN["output"], 150)
    table.viewport().repaint()
    model = window.review.model
    checked = 0
    for row in range(30):
        cells = model.cells(row)
        if cells is None or not cells[COLUMN["output"]].spans:
            continue
        cell = cells[COLUMN["output"]]
        assert cell.spans is not None
        inner = 150 - 1 - 8
        start = table._focus(cell.text, cell.spans, cell.bold, inner)
        drawn = table.fontMetrics().elidedText(shown_from(cell.text, start), Qt.TextElideMode.ElideRight, inner)
        first = min(cell.spans)
        match = cell.text[first.start:first.end]
        if table.fontMetrics().horizontalAdvance(f"…{match}…") <= inner:
            assert match in drawn, (cell.text, drawn)
        else:  # longer than the cell: it starts the text shown
            assert drawn.startswith(f"…{match[:3]}") or drawn.startswith(match[:3]), (cell.text, drawn)
        checked += 1
    assert checked >= 5
