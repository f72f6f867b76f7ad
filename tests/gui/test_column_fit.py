"""The review table's column widths for the room it has (gui.review.column_fit): the output keeps its share."""
from __future__ import annotations

import pytest

from gui.review.column_fit import OUTPUT_LEAST, OUTPUT_SHARE, ColumnWidth, fit_widths

# item, source, output, systems, automatic, suggestion: the queue's columns at their default widths
COLUMNS = [ColumnWidth(70, 70), ColumnWidth(140, 56), None, ColumnWidth(100, 56), ColumnWidth(76, 70),
           ColumnWidth(230, 70)]


def test_with_room_the_columns_keep_their_widths_and_the_output_takes_the_rest() -> None:
    widths = fit_widths(COLUMNS, 1200)
    assert widths == [70, 140, 1200 - 616, 100, 76, 230]


@pytest.mark.parametrize("room", [700, 650, 600, 560])
def test_a_narrow_table_squeezes_the_text_columns_before_the_output(room: int) -> None:
    widths = fit_widths(COLUMNS, room)
    output = widths.pop(2)
    assert output >= round(OUTPUT_SHARE * room)
    assert sum(widths) + output == room  # no sideways scrolling while the others can still give
    leasts = [c.least for c in COLUMNS if c is not None]
    assert all(width >= least for width, least in zip(widths, leasts, strict=True))
    assert widths[0] == 70  # the item's id is never cut


def test_each_column_gives_in_proportion_to_what_it_can_give() -> None:
    widths = fit_widths(COLUMNS, 700)
    given = [c.preferred - w for c, w in zip([c for c in COLUMNS if c is not None], widths[:2] + widths[3:],
                                             strict=True)]
    assert sum(given) == 616 - (700 - round(OUTPUT_SHARE * 700))
    assert given[4] > given[1] > given[2] > given[3] >= 0  # suggestion 160 to give, source 84, systems 44, auto 6


def test_too_narrow_for_every_column_the_output_keeps_its_floor_and_the_table_scrolls() -> None:
    widths = fit_widths(COLUMNS, 300)
    assert widths == [70, 56, OUTPUT_LEAST, 56, 70, 70]


def test_one_column_must_take_what_is_left() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        fit_widths([ColumnWidth(10, 5)], 100)


def test_with_every_other_column_at_its_header_the_output_gives_its_share_before_the_table_scrolls() -> None:
    """The review picture at 1,280×720 (the detail panel as the 1,500 px window left it): the queue's columns at
    their headers' widths took 532 of 695 px, the output kept its quarter (181 px) and the table scrolled 18 px."""
    shown = [ColumnWidth(70, 70), ColumnWidth(140, 56), None, ColumnWidth(44, 40), ColumnWidth(100, 58),
             ColumnWidth(76, 70), ColumnWidth(84, 80), ColumnWidth(230, 74), ColumnWidth(96, 84)]
    widths = fit_widths(shown, 695)
    assert sum(widths) == 695
    assert widths[2] == 695 - 532 >= OUTPUT_LEAST
