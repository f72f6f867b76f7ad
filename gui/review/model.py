"""A lazy table over a million outputs (after Anki's browser table model).

The model holds only the ordered ids the core's query returned (``suite.browse.output_ids``); rows are
fetched in blocks around the first row painted that is not cached, in the background, and kept. Sorting
re-runs the query in the database with another order: sorting a million rows in Python would freeze the
window and would disagree with the command line's order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont

from gui.colours import LABEL_COLOURS
from gui.operations import Operations
from gui.state import AppState
from suite.browse import OutputFilter, OutputRow, output_ids, output_rows, output_spans
from suite.rules import Span

NO_PARENT = QModelIndex()  # the invalid index: Qt's default argument for "top level"

BLOCK = 100
"""Rows fetched together: a screenful or two, so scrolling asks the database once per page, not per row."""

SPANS_ROLE = int(Qt.ItemDataRole.UserRole.value) + 1
OUTPUT_ID_ROLE = int(Qt.ItemDataRole.UserRole.value) + 2


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    sort: str | None  # the core's sort key (suite.browse.SORTS), None when the column cannot be sorted
    width: int


COLUMNS = (
    Column("item", "item", "item", 70),
    Column("category", "category", "category", 110),
    Column("phenomenon", "phenomenon", "category", 120),
    Column("source", "source", None, 170),
    Column("output", "output", "text", 300),
    Column("systems", "systems", "systems", 110),
    Column("auto", "automatic", "label", 76),
    Column("decided_by", "decided by", None, 160),
    Column("manual", "manual", "label", 84),
    Column("reviewer", "reviewer", None, 100),
    Column("reviewed_at", "time", None, 120),
    Column("comment", "comment", None, 140),
)
COLUMN = {column.key: i for i, column in enumerate(COLUMNS)}


DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
FONT = int(Qt.ItemDataRole.FontRole.value)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)
_ROLES = frozenset({DISPLAY, FOREGROUND, FONT, TOOLTIP, int(SPANS_ROLE), int(OUTPUT_ID_ROLE)})
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_NO_FLAGS = Qt.ItemFlag.NoItemFlags
_LABEL_BRUSHES = {label: QColor(colour) for label, colour in LABEL_COLOURS.items()}


def initials(name: str | None) -> str:
    return "".join(part[0].upper() for part in (name or "").split() if part)


def manual_text(row: OutputRow) -> str:
    return f"{row.manual_label} ({initials(row.reviewer)})" if row.manual_label else ""


def _display(row: OutputRow, key: str) -> str:
    if key == "item":
        return row.external_id
    if key == "output":
        return row.text
    if key == "systems":
        return ", ".join(row.systems)
    if key == "auto":
        return row.auto_label or "not labelled"
    if key == "manual":
        return manual_text(row)
    if key == "reviewed_at":
        return row.reviewed_at.strftime("%Y-%m-%d %H:%M") if row.reviewed_at else ""
    value = getattr(row, key)
    return "" if value is None else str(value)


class ReviewModel(QAbstractTableModel):
    loaded = Signal()  # a new id list is in place (after a filter or sort)
    rows_arrived = Signal()  # a block of rows reached the cache

    def __init__(self, state: AppState, ops: Operations, parent: Any = None) -> None:
        super().__init__(parent)
        self._state = state
        self._ops = ops
        self._ids: list[int] = []
        self._rows: dict[int, OutputRow] = {}
        self._spans: dict[int, list[Span]] = {}
        self._pending: set[int] = set()  # blocks asked for
        self._generation = 0  # bumped by every new id list; older blocks that arrive late are dropped
        self.filter = OutputFilter()
        self.sort_key = "item"
        self.descending = False
        self.sort_column = COLUMN["item"]
        self._asked: tuple[object, ...] | None = None  # the last query asked for
        self._shown: dict[int, tuple[str, ...]] = {}  # each cached row's cell texts, worked out once
        self._bold = QFont()
        self._bold.setBold(True)

    # --- the query --------------------------------------------------------------------------------
    def query(self, filter: OutputFilter | None = None, *, again: bool = False) -> None:
        """Run the core's query (in the background) for this filter, or the current one.

        The same question twice (the suite, the selection and the sort all settle as a window opens) is asked
        once: on a million outputs each asking costs seconds. ``again`` asks anew after the data changed.
        """
        if filter is not None:
            self.filter = filter
        db, suite_name = self._state.db, self._state.suite_name
        if db is None or suite_name is None:
            self._asked = None
            self.set_ids([])
            return
        wanted, sort, descending = self.filter, self.sort_key, self.descending
        question = (db, suite_name, wanted, sort, descending)
        if question == self._asked and not again:
            return
        self._asked = question
        self._ops.read(lambda task: output_ids(db, wanted, suite_name=suite_name, sort=sort, descending=descending),
                       self.set_ids, key="review-ids")

    def set_ids(self, ids: list[int]) -> None:
        self.beginResetModel()
        self._generation += 1
        self._ids = ids
        self._rows.clear()
        self._shown.clear()
        self._spans.clear()
        self._pending.clear()
        self.endResetModel()
        self.loaded.emit()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        key = COLUMNS[column].sort if 0 <= column < len(COLUMNS) else None
        if key is None:
            return
        self.sort_column, self.sort_key = column, key
        self.descending = order == Qt.SortOrder.DescendingOrder
        self.query()

    # --- rows -------------------------------------------------------------------------------------
    def output_id(self, row: int) -> int:
        return self._ids[row]

    def row_of(self, output_id: int) -> int | None:
        try:
            return self._ids.index(output_id)
        except ValueError:
            return None

    def cached(self, row: int) -> OutputRow | None:
        return self._rows.get(self._ids[row]) if 0 <= row < len(self._ids) else None

    def spans(self, output_id: int) -> list[Span]:
        return self._spans.get(output_id, [])

    def fetch(self, row: int) -> None:
        """Ask for the block holding ``row`` unless it is cached or on its way."""
        block = row // BLOCK
        if block in self._pending or not (0 <= row < len(self._ids)):
            return
        db = self._state.db
        if db is None:
            return
        self._pending.add(block)
        ids = self._ids[block * BLOCK:(block + 1) * BLOCK]
        generation = self._generation
        self._ops.read(lambda task: (output_rows(db, ids), output_spans(db, ids)),
                       lambda result: self._arrived(generation, block, result))

    def prefetch(self, first: int, last: int) -> None:
        """Ask for the rows on screen and the next block, so paging down rarely waits for the database."""
        for start in range(max(first, 0) // BLOCK * BLOCK, min(last + BLOCK, len(self._ids) - 1) + 1, BLOCK):
            if self._ids[start] not in self._rows:
                self.fetch(start)

    def refresh(self, ids: list[int]) -> None:
        """Re-read these rows after a decision: they repaint without re-running the whole query."""
        db = self._state.db
        if db is None or not ids:
            return
        generation = self._generation
        self._ops.read(lambda task: (output_rows(db, ids), output_spans(db, ids)),
                       lambda result: self._arrived(generation, None, result))

    def _arrived(self, generation: int, block: int | None,
                 result: tuple[list[OutputRow], dict[int, list[Span]]]) -> None:
        if generation != self._generation:
            return
        rows, spans = result
        self._rows.update((r.output_id, r) for r in rows)
        self._shown.update((r.output_id, tuple(_display(r, c.key) for c in COLUMNS)) for r in rows)
        self._spans.update(spans)
        changed = [i for i in (self.row_of(r.output_id) for r in rows) if i is not None] if block is None else [
            block * BLOCK, min(len(self._ids), (block + 1) * BLOCK) - 1]
        if changed:
            self.dataChanged.emit(self.index(min(changed), 0), self.index(max(changed), len(COLUMNS) - 1))
        self.rows_arrived.emit()

    def all_cached(self, first: int, last: int) -> bool:
        return all(self._ids[i] in self._rows for i in range(max(first, 0), min(last + 1, len(self._ids))))

    # --- QAbstractTableModel ----------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = NO_PARENT) -> int:
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = NO_PARENT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
                   ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section].title
        if orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return section + 1
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return _FLAGS if index.isValid() else _NO_FLAGS

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = DISPLAY) -> Any:
        """Cell contents; called tens of thousands of times a second while scrolling, so roles are plain ints
        compared in order of frequency and texts come from a per-row cache."""
        if role not in _ROLES:
            return None
        row_number = index.row()
        if not 0 <= row_number < len(self._ids):
            return None
        output_id = self._ids[row_number]
        if role == OUTPUT_ID_ROLE:
            return output_id
        shown = self._shown.get(output_id)
        if shown is None:
            if role == DISPLAY:
                self.fetch(row_number)
                return "…"
            return None
        column = index.column()
        if role == DISPLAY:
            return shown[column]
        key = COLUMNS[column].key
        row = self._rows[output_id]
        if role == FOREGROUND:
            label = row.auto_label if key == "auto" else row.manual_label if key == "manual" else None
            return _LABEL_BRUSHES.get(label) if label is not None else None
        if role == FONT:
            return self._bold if key == "manual" and row.manual_label else None
        if role == SPANS_ROLE:
            return self._spans.get(output_id, []) if key == "output" else None
        if key in ("source", "output", "comment", "systems", "decided_by"):
            return shown[column] or None
        return f"{row.manual_label} by {row.reviewer}" if key == "manual" and row.manual_label else None

