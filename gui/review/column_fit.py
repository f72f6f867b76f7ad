"""How wide each column of the review table is, given the room the table has.

Qt's ``Stretch`` mode gives the stretched column what the others leave, down to nothing: at 1,280 px, with the
suite tree and the detail panel open, the others took 840 px of a 650 px table and the output, the text a
reviewer reads, was a 15 px sliver while the table scrolled sideways. Here the output keeps a share of the
table first; the text columns that elide (source, systems, suggestion…) give up width, down to what still
shows their header, before it does; then the output gives up its share, down to ``OUTPUT_LEAST``; only when
even that does not fit does the table scroll.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QHeaderView, QStyle, QTableView

from gui.vertical_titles import VerticalTitles

OUTPUT_SHARE = 0.26
"""The part of the table's width the output keeps before the other columns get their preferred widths: at
1,280 px about 180 px, three or four words around a match (the cell scrolls its text to the first match), which
is what a reviewer reads before looking at the detail panel; more would cut the manual label's initials."""
OUTPUT_LEAST = 120
"""The narrowest output, however small the table."""


@dataclass(frozen=True)
class ColumnWidth:
    """One column's preferred width (the user's, once dragged) and the narrowest it may be squeezed to."""
    preferred: int
    least: int


def header_width(header: QHeaderView, logical: int) -> int:
    """The narrowest a column is while its title reads whole: the title's text and the header's margins (Qt's own
    size hint adds room for a sort arrow too, which a column not sorted by never draws)."""
    if isinstance(header, VerticalTitles) and header.upright(logical):
        return header.title_width(logical)
    title = str(header.model().headerData(logical, header.orientation()) or "") if header.model() else ""
    margin = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
    return header.fontMetrics().horizontalAdvance(title) + 2 * margin + 4


def at_least(preferred: int, least: int) -> ColumnWidth:
    """A column that prefers ``preferred`` px but never fewer than ``least`` (its header's width, say)."""
    return ColumnWidth(max(preferred, least), least)


def fit_widths(columns: Sequence[ColumnWidth | None], available: int, share: float = OUTPUT_SHARE) -> list[int]:
    """Each shown column's width in a table ``available`` px wide; ``None`` marks the one column that takes
    what is left (the output), which keeps ``share`` of the width first. Hidden columns are not passed: the caller
    maps the widths back."""
    stretch = [i for i, column in enumerate(columns) if column is None]
    if len(stretch) != 1:
        raise ValueError("exactly one column takes what the others leave")
    fixed = [column for column in columns if column is not None]
    floor = max(OUTPUT_LEAST, round(available * share))
    wanted = sum(column.preferred for column in fixed)
    room = available - floor
    if wanted <= room:
        widths = [column.preferred for column in fixed]
    else:
        slack = [max(0, column.preferred - column.least) for column in fixed]
        shrink = min(wanted - room, sum(slack))
        # Each column gives up in proportion to what it can give; the pixels rounding leaves go to the columns
        # with the most still to give (each of those has at least one left).
        cuts = [shrink * give // sum(slack) for give in slack] if shrink else [0] * len(fixed)
        left = sorted(range(len(fixed)), key=lambda i: slack[i] - cuts[i], reverse=True)
        for i in left[:shrink - sum(cuts)]:
            cuts[i] += 1
        widths = [column.preferred - cut for column, cut in zip(fixed, cuts, strict=True)]
    # Every other column at its header's width and still too wide for the share: the output gives up its share
    # before the table scrolls sideways (at 1,280 px with the detail panel widened, 18 px of scrolling for 181 px
    # of output, a scroll bar whose thumb filled the track, where 163 px of output fit).
    output = max(OUTPUT_LEAST, available - sum(widths))
    widths.insert(stretch[0], output)
    return widths


class FittedColumns(QObject):
    """Keeps a table's columns fitted to its width: when the table is resized, a column shown or hidden, or a
    column dragged by the user (whose width then becomes that column's preferred one, and is kept as dragged)."""

    def __init__(self, table: QTableView, columns: Sequence[ColumnWidth | None]) -> None:
        super().__init__(table)
        self._table = table
        self._columns = list(columns)
        self._fitting = False
        self._kept: int | None = None
        self._stretch = 0
        self._share = OUTPUT_SHARE
        # A fit asked while the header changes a section (hiding one, a drag) runs once the header is done: sections
        # resized from inside its signal left the hidden column's room as an empty gap before the output.
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(lambda: self.fit(self._kept))
        table.horizontalHeader().sectionResized.connect(self._section_resized)
        table.viewport().installEventFilter(self)

    @classmethod
    def of_contents(cls, table: QTableView, stretch: int = 0) -> FittedColumns:
        """A fitter for a table whose columns come and go with its model (the reports): call ``contents_changed``
        after each new table."""
        fitter = cls(table, [])
        fitter._stretch = stretch
        # The names keep no share of the width before the figures, only OUTPUT_LEAST: elided in the middle they
        # still read, and at 1,280 px a quarter of the table for them made 19 systems' figures scroll sideways.
        fitter._share = 0.0
        return fitter

    def contents_changed(self) -> None:
        """The model has new columns: each is as wide as what it shows and its header (``resizeColumnsToContents``),
        and the ``stretch`` one (the row names, elided in the middle) takes what the others leave."""
        header = self._table.horizontalHeader()
        self._fitting = True
        try:
            self._table.resizeColumnsToContents()
        finally:
            self._fitting = False
        count = header.count()
        # A figure is never elided ("8…*" for 88.2*): only the names give up width; a table of more columns than
        # the screen holds (19 systems at 1,280 px) scrolls sideways rather than hide its numbers.
        self._columns = [None if logical == self._stretch else
                         ColumnWidth(header.sectionSize(logical), header.sectionSize(logical))
                         for logical in range(count)]
        if self._stretch >= count:
            return
        self.adopt_widths()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802  (Qt's name)
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def adopt_widths(self) -> None:
        """Take the widths the header has now (restored from the settings) as the preferred ones, and fit."""
        header = self._table.horizontalHeader()
        for logical, column in enumerate(self._columns):
            # The output is not dragged: it is what the others leave (as Qt's Stretch, which settings saved before
            # may restore).
            header.setSectionResizeMode(logical, QHeaderView.ResizeMode.Fixed if column is None
                                        else QHeaderView.ResizeMode.Interactive)
            if column is not None and header.sectionSize(logical) > 0:
                self._columns[logical] = ColumnWidth(header.sectionSize(logical), column.least)
        self.fit()

    def fit(self, kept: int | None = None) -> None:
        """Fit the shown columns; ``kept``, a column just dragged, is not squeezed."""
        self._later.stop()
        self._kept = None
        header = self._table.horizontalHeader()
        shown = [logical for logical in range(min(len(self._columns), header.count()))
                 if not header.isSectionHidden(logical)]
        wanted = []
        for logical in shown:
            column = self._columns[logical]
            wanted.append(ColumnWidth(column.preferred, column.preferred) if column is not None and logical == kept
                          else column)
        if not any(column is None for column in wanted):
            return  # the output is hidden: the columns keep their widths
        self._fitting = True
        try:
            widths = fit_widths(wanted, self._table.viewport().width(), self._share)
            for logical, width in zip(shown, widths, strict=True):
                if header.sectionSize(logical) != width:
                    header.resizeSection(logical, width)
        finally:
            self._fitting = False

    def _section_resized(self, logical: int, _old: int, new: int) -> None:
        if self._fitting or logical >= len(self._columns):
            return
        column = self._columns[logical]
        if column is not None and new > 0:  # dragged, or shown again: its width is the one wanted
            self._columns[logical] = ColumnWidth(new, column.least)
            self._kept = logical
        self._later.start()
