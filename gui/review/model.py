"""A paged table over a million outputs (after Anki's browser table model).

The model knows how many outputs the query matches and holds only the blocks of rows fetched so far: the
first block comes with the total (one ``suite.reading.browse.browse_outputs`` call), later blocks are fetched by
offset in the background when painted, and kept. Holding every id instead meant reading a million of them
before the first page could show (seconds). Sorting re-runs the query in the database with another order:
sorting a million rows in Python would freeze the window and would disagree with the command line's order.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont

from gui.operations import Operations
from gui.review.columns import (
    COLUMN,
    COLUMNS,
    DISPLAY,
    FONT,
    FOREGROUND,
    HEADER_TIPS,
    OUTPUT_ID_ROLE,
    ROLES,
    SPANS_ROLE,
    Cell,
    row_cells,
)
from gui.state import AppState
from store import Database
from suite.assist.hints import RowHints, neighbour_hints, review_hints
from suite.assist.neighbours import NeighbourContext
from suite.engine.rules import Span
from suite.reading.browse import (
    OutputFilter,
    OutputPage,
    OutputRow,
    browse_outputs,
    output_ids,
    output_rows,
    output_spans,
)

NO_PARENT = QModelIndex()  # the invalid index: Qt's default argument for "top level"

BLOCK = 300
"""Rows fetched together: about ten screenfuls. A query costs about the same for 100 rows as for 1,000 (on a
million outputs it mostly works out which items hold the page), so fewer, larger blocks scroll faster."""

@dataclass(frozen=True)
class Query:
    """One question to the core: its results are read a block at a time by offset."""
    db: Database
    suite_name: str
    filter: OutputFilter
    sort: str
    descending: bool

    def block(self, offset: int, context: NeighbourContext | None) -> Block:
        page = browse_outputs(self.db, self.filter, suite_name=self.suite_name, sort=self.sort,
                              descending=self.descending, limit=BLOCK, offset=offset)
        outputs = page.total
        if self.filter.grouped and offset == 0:  # what the rows stand for, said beside their count
            outputs = browse_outputs(self.db, replace(self.filter, grouped=False), suite_name=self.suite_name,
                                     limit=0).total
        return Block(page, output_spans(self.db, [r.output_id for r in page.rows]),
                     review_hints(self.db, page.rows, grouped=self.filter.grouped, context=context), outputs)

    def ids(self) -> array[int]:
        """Every matching id in order: the snapshot later blocks are read by, once it has arrived. An array of
        machine integers: as a list of a million Python ints it took 36 MB, and 11 ms of every full garbage
        collection while the window scrolled."""
        return array("q", output_ids(self.db, self.filter, suite_name=self.suite_name, sort=self.sort,
                                     descending=self.descending))

    def rows(self, ids: list[int], context: NeighbourContext | None) -> Block:
        return read_rows(self.db, ids, grouped=self.filter.grouped, context=context)


class Block(NamedTuple):
    """Rows read together: the rows, where rules match them, and what the queue shows beside them."""

    page: OutputPage
    spans: dict[int, list[Span]]
    hints: dict[int, RowHints]
    outputs: int | None = None
    """The outputs the query's rows stand for (more than its rows when alike outputs are grouped)."""


def read_rows(db: Database, ids: list[int], *, grouped: bool, context: NeighbourContext | None) -> Block:
    rows = output_rows(db, ids)
    return Block(OutputPage(len(ids), rows), output_spans(db, ids),
                 review_hints(db, rows, grouped=grouped, context=context))


class ReviewModel(QAbstractTableModel):
    loaded = Signal()  # a new query's first block and total are in place (after a filter or sort)
    rows_arrived = Signal()  # a block of rows reached the cache

    def __init__(self, state: AppState, ops: Operations, parent: Any = None) -> None:
        super().__init__(parent)
        self._state = state
        self._ops = ops
        self._total = 0
        self._blocks: dict[int, list[int]] = {}  # block number -> its output ids in display order
        self._row_of: dict[int, int] = {}  # output id -> row, for the cached blocks
        self._rows: dict[int, OutputRow] = {}
        self._spans: dict[int, list[Span]] = {}
        self._hints: dict[int, RowHints] = {}
        self._shown_by: dict[int, int] = {}  # an output alike to a row's -> that row's output
        self.outputs = 0
        """The outputs the rows stand for: more than the rows when alike outputs are grouped."""
        self.context: NeighbourContext | None = None
        """What neighbour suggestions are learned from (``suite.assist.neighbours``), set by the screen once read."""
        self._pending: set[int] = set()  # blocks asked for
        self._snapshot: array[int] | None = None
        """The query's ids as they were when it ran, read in the background after its first block: later blocks
        are read by these ids, not by offset, so that rows a reviewer decides (and that thereby leave a filter
        such as "not reviewed") do not shift the rows of blocks not read yet, which would skip some unseen."""
        self._generation = 0  # bumped by every new query's results; older blocks that arrive late are dropped
        self._reads = 0  # numbers every read of rows, in the order asked for
        self._read_by: dict[int, int] = {}
        """Output id -> the number of the read its cached row came from. Reads run side by side, so a read asked
        for before a decision was saved may arrive after the re-read that followed the decision: a row is only
        replaced by one read later than its own, never by an older view of it."""
        self.filter = OutputFilter()
        self.sort_key = "item"
        self.descending = False
        self.sort_column = COLUMN["item"]
        self._asked: Query | None = None  # the last query asked for
        self._current: Query | None = None  # the query whose results the model holds, which later blocks continue
        self._shown: dict[int, tuple[Cell, ...]] = {}  # the cells of each row painted so far, worked out once
        self._bold = QFont()
        self._bold.setBold(True)

    # --- the query --------------------------------------------------------------------------------
    def query(self, filter: OutputFilter | None = None, *, again: bool = False) -> None:
        """Run the core's query (in the background) for this filter, or the current one.

        The same question twice (the suite, the selection and the sort all settle as a window opens) is asked
        once. ``again`` asks anew after the data changed.
        """
        if filter is not None:
            self.filter = filter
        db, suite_name = self._state.db, self._state.suite_name
        if db is None or suite_name is None:
            self._asked = None
            self._reset(None, Block(OutputPage(0, []), {}, {}))
            return
        question = Query(db, suite_name, self.filter, self.sort_key, self.descending)
        if question == self._asked and not again:
            return
        self._asked = question
        read = self._next_read()
        context = self.context
        self._ops.read(lambda task: question.block(0, context), lambda result: self._reset(question, result, read=read),
                       key="review-ids")

    def _next_read(self) -> int:
        self._reads += 1
        return self._reads

    def _reset(self, question: Query | None, block: Block, *, read: int = 0) -> None:
        page = block.page
        self.beginResetModel()
        self._generation += 1
        self._current = question
        self._total = page.total
        self.outputs = page.total if block.outputs is None else block.outputs
        self._blocks.clear()
        self._row_of.clear()
        self._rows.clear()
        self._shown.clear()
        self._spans.clear()
        self._hints.clear()
        self._shown_by.clear()
        self._read_by.clear()
        self._pending = {0}
        self._snapshot = None
        self._keep(0, block, read)
        self.endResetModel()
        self.loaded.emit()
        if question is not None and page.total > len(page.rows):
            generation = self._generation
            self._ops.read(lambda task: question.ids(), lambda ids: self._snapshot_arrived(generation, ids))

    def _snapshot_arrived(self, generation: int, ids: array[int]) -> None:
        if generation == self._generation and len(ids) == self._total:
            self._snapshot = ids

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        key = COLUMNS[column].sort if 0 <= column < len(COLUMNS) else None
        if key is None:
            return
        self.sort_column, self.sort_key = column, key
        self.descending = order == Qt.SortOrder.DescendingOrder
        self.query()

    # --- rows -------------------------------------------------------------------------------------
    def output_id(self, row: int) -> int | None:
        """The output shown in ``row``, None while its block has not arrived."""
        ids = self._blocks.get(row // BLOCK)
        offset = row % BLOCK
        return ids[offset] if ids is not None and offset < len(ids) and 0 <= row < self._total else None

    def row_of(self, output_id: int) -> int | None:
        """The row of this output among the blocks fetched so far (in the grouped queue, the row of its group)."""
        row = self._row_of.get(output_id)
        if row is None and output_id in self._shown_by:
            return self._row_of.get(self._shown_by[output_id])
        return row

    def cached(self, row: int) -> OutputRow | None:
        output_id = self.output_id(row)
        return None if output_id is None else self._rows.get(output_id)

    def spans(self, output_id: int) -> list[Span]:
        return self._spans.get(output_id, [])

    def hints(self, output_id: int) -> RowHints | None:
        """What the queue shows beside this output (its group, pairs, suggestion), once its row has arrived."""
        return self._hints.get(output_id)

    def fetch(self, row: int) -> None:
        """Ask for the block holding ``row`` unless it is cached or on its way."""
        block = row // BLOCK
        question = self._current
        if block in self._pending or not (0 <= row < self._total) or question is None:
            return
        self._pending.add(block)
        generation, read = self._generation, self._next_read()
        snapshot, context = self._snapshot, self.context
        if snapshot is not None:
            ids = snapshot[block * BLOCK:(block + 1) * BLOCK].tolist()
            self._ops.read(lambda task: question.rows(ids, context),
                           lambda result: self._arrived(generation, read, block, result, ids=ids))
            return
        self._ops.read(lambda task: question.block(block * BLOCK, context),
                       lambda result: self._arrived(generation, read, block, result))

    def prefetch(self, first: int, last: int) -> None:
        """Ask for the rows on screen and the next block, so paging down rarely waits for the database."""
        for start in range(max(first, 0) // BLOCK * BLOCK, min(last + BLOCK, self._total - 1) + 1, BLOCK):
            self.fetch(start)

    def refresh(self, ids: list[int]) -> None:
        """Re-read these rows after a decision: they repaint without re-running the whole query."""
        db = self._state.db
        if db is None or not ids:
            return
        generation, read = self._generation, self._next_read()
        grouped, context = self.filter.grouped, self.context
        self._ops.read(lambda task: read_rows(db, ids, grouped=grouped, context=context),
                       lambda result: self._refreshed(generation, read, result))

    def learned(self, context: NeighbourContext | None) -> None:
        """Neighbour suggestions are learned anew (a decision or a rule taught something): read the suggestions of
        the rows held again, in place."""
        self.context = context
        db, held = self._state.db, dict(self._hints)
        if db is None or context is None or not held:
            return
        generation = self._generation
        self._ops.read(lambda task: neighbour_hints(db, context, held),
                       lambda hints: self._suggested(generation, hints), key="review-neighbours")

    def _suggested(self, generation: int, hints: dict[int, RowHints]) -> None:
        if generation != self._generation:
            return
        for output_id, hint in hints.items():
            if output_id in self._hints:  # a newer read of the row brought its own: it stays
                self._hints[output_id] = RowHints(self._hints[output_id].group, self._hints[output_id].pairs,
                                                  hint.neighbour)
                self._shown.pop(output_id, None)
        if self._total:
            self.dataChanged.emit(self.index(0, COLUMN["suggestion"]),
                                  self.index(self._total - 1, COLUMN["suggestion"]))
        self.rows_arrived.emit()

    def _keep(self, block: int, rows: Block, read: int, ids: list[int] | None = None) -> None:
        """Cache a block; ``ids`` (a snapshot's) keep their places even if some output vanished since."""
        self._blocks[block] = ids if ids is not None else [r.output_id for r in rows.page.rows]
        self._row_of.update((output_id, block * BLOCK + i) for i, output_id in enumerate(self._blocks[block]))
        self._store(rows, read)

    def _store(self, rows: Block, read: int) -> list[OutputRow]:
        """Cache the rows no later read has cached already (their cells are worked out when first painted);
        returns those."""
        newer = [r for r in rows.page.rows if self._read_by.get(r.output_id, 0) <= read]
        for row in newer:
            output_id = row.output_id
            self._read_by[output_id] = read
            self._rows[output_id] = row
            self._spans[output_id] = rows.spans.get(output_id, [])
            hints = rows.hints.get(output_id)
            if hints is not None:
                self._hints[output_id] = hints
                if hints.group is not None and output_id in self._row_of:  # not a member read again after a decision
                    self._shown_by.update((member.output_id, output_id) for member in hints.group.others)
            self._shown.pop(output_id, None)
        return newer

    def _arrived(self, generation: int, read: int, block: int, rows: Block, ids: list[int] | None = None) -> None:
        if generation != self._generation:
            return
        self._keep(block, rows, read, ids)
        last = min(self._total, (block + 1) * BLOCK) - 1
        if last >= block * BLOCK:
            self.dataChanged.emit(self.index(block * BLOCK, 0), self.index(last, len(COLUMNS) - 1))
        self.rows_arrived.emit()

    def _refreshed(self, generation: int, read: int, rows: Block) -> None:
        if generation != self._generation:
            return
        stored = self._store(rows, read)
        changed = [i for i in (self.row_of(r.output_id) for r in stored) if i is not None]
        if changed:
            self.dataChanged.emit(self.index(min(changed), 0), self.index(max(changed), len(COLUMNS) - 1))
        self.rows_arrived.emit()

    def cells(self, row: int) -> tuple[Cell, ...] | None:
        """What the table paints in this row, a cell per column; None while the row's block is on its way (asked
        for here, so that rows are read as they are painted). A row's cells are worked out when it is first
        painted."""
        ids = self._blocks.get(row // BLOCK)
        output_id = ids[row % BLOCK] if ids is not None and row % BLOCK < len(ids) else None
        if output_id is None:
            self.fetch(row)
            return None
        cells = self._shown.get(output_id)
        if cells is None:
            found = self._rows.get(output_id)
            if found is None:  # an output that vanished since the snapshot: its row stays blank
                return None
            cells = self._shown[output_id] = row_cells(found, self._spans.get(output_id, []),
                                                    self._hints.get(output_id))
        return cells

    def all_cached(self, first: int, last: int) -> bool:
        last = min(last, self._total - 1)
        return all(block in self._blocks for block in range(max(first, 0) // BLOCK, last // BLOCK + 1)) \
            if last >= first else True

    # --- QAbstractTableModel ----------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = NO_PARENT) -> int:
        return 0 if parent.isValid() else self._total

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = NO_PARENT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
                   ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section].title
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return HEADER_TIPS.get(COLUMNS[section].key)
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return section + 1
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = DISPLAY) -> Any:
        """Cell contents by role, for what Qt asks itself (tooltips, accessibility); the table paints from
        ``cells`` (``gui.review.table``). Roles are plain ints: Qt asks for many that no cell has."""
        if role not in ROLES:
            return None
        row_number = index.row()
        output_id = self.output_id(row_number)
        if output_id is None or role == OUTPUT_ID_ROLE:
            if role == DISPLAY and 0 <= row_number < self._total:
                self.fetch(row_number)
                return "…"
            return output_id
        cells = self.cells(row_number)
        if cells is None:
            return None
        cell = cells[index.column()]
        if role == DISPLAY:
            return cell.text
        if role == FOREGROUND:
            return cell.colour
        if role == FONT:
            return self._bold if cell.bold else None
        if role == SPANS_ROLE:
            return cell.spans
        row = self._rows[output_id]
        key = COLUMNS[index.column()].key
        if key in ("source", "output", "comment", "systems", "decided_by", "suggestion"):
            return cell.text or None
        if key == "pairs":
            hints = self._hints.get(output_id)
            return None if hints is None or hints.pairs is None else hints.pairs.text() or None
        return f"{row.manual_label} by {row.reviewer}" if key == "manual" and row.manual_label else None
