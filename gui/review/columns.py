"""The review table's columns and what each cell of a row shows: its text, a label's colour, bold for a manual label,
and where rules match in the output (painted by ``gui.review.delegate``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from PySide6.QtCore import (
    Qt,
)
from PySide6.QtGui import QColor

from gui.colours import LABEL_COLOURS
from suite.assist.hints import RowHints
from suite.engine.rules import Span
from suite.reading.browse import (
    OutputRow,
)
from suite.reading.impact import PairsAdded

SPANS_ROLE = int(Qt.ItemDataRole.UserRole.value) + 1
OUTPUT_ID_ROLE = int(Qt.ItemDataRole.UserRole.value) + 2


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    sort: str | None  # the core's sort key (suite.reading.browse.SORTS), None when the column cannot be sorted
    width: int
    least: int  # the narrowest it is squeezed to on a small screen, its header still readable (the output's is
    # not used: it takes what the others leave, gui.review.column_fit)


COLUMNS = (
    Column("item", "item", "item", 70, 70),
    Column("category", "category", "category", 110, 64),
    Column("phenomenon", "phenomenon", "category", 120, 64),
    Column("source", "source", None, 140, 56),
    Column("output", "output", "text", 300, 0),
    Column("alike", "alike", None, 44, 40),
    Column("systems", "systems", "systems", 100, 56),
    Column("auto", "automatic", "label", 76, 70),
    Column("decided_by", "decided by", None, 160, 60),
    Column("manual", "manual", "label", 84, 80),
    Column("suggestion", "suggestion", None, 230, 70),
    Column("pairs", "pairs", "impact", 96, 84),  # "P +12 · F +12" whole
    Column("reviewer", "reviewer", None, 100, 64),
    Column("reviewed_at", "time", None, 120, 80),
    Column("comment", "comment", None, 140, 64),
)
HEADER_TIPS = {
    "alike": "other outputs of the item that differ only in case, punctuation, quotes or spaces and got the same "
             "automatic label: a decision decides them too",
    "suggestion": "the decided output of the item most like this one; a label is suggested (Enter accepts it) when "
                  "every difference kept labels elsewhere in the suite",
    "pairs": "pass/fail pairs for the QE evaluation that deciding this output (and those alike) would add; sort by "
             "it for the queue by impact",
}
COLUMN = {column.key: i for i, column in enumerate(COLUMNS)}


DISPLAY = int(Qt.ItemDataRole.DisplayRole.value)
FOREGROUND = int(Qt.ItemDataRole.ForegroundRole.value)
FONT = int(Qt.ItemDataRole.FontRole.value)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole.value)
ROLES = frozenset({DISPLAY, FOREGROUND, FONT, TOOLTIP, SPANS_ROLE, OUTPUT_ID_ROLE})
_LABEL_BRUSHES = {label: QColor(colour) for label, colour in LABEL_COLOURS.items()}


class Cell(NamedTuple):
    """What a cell shows: its text, the colour of a label (None: the palette's), bold for a manual label, and
    where rules match (the output column only). The review table paints a row from ``ReviewModel.cells``, a
    plain Python call: asking through ``QModelIndex.data`` wraps each value for Qt and back."""
    text: str
    colour: QColor | None
    bold: bool
    spans: list[Span] | None


def pairs_text(added: PairsAdded) -> str:
    """The pairs column's short form, "P +2 · F +3" (the sentence, "+2 if pass · +3 if fail", is its tooltip): the
    sentence was cut to "+8 if …" at 1,280 px, hiding which decision adds the pairs."""
    return " · ".join(f"{letter} +{n:,}" for letter, n in (("P", added.if_pass), ("F", added.if_fail)) if n)


def initials(name: str | None) -> str:
    return "".join(part[0].upper() for part in (name or "").split() if part)


def manual_text(row: OutputRow) -> str:
    return f"{row.manual_label} ({initials(row.reviewer)})" if row.manual_label else ""


def _display(row: OutputRow, key: str, hints: RowHints | None) -> str:
    if key in ("alike", "suggestion", "pairs", "systems") and hints is not None:
        if key == "alike":
            return f"+{hints.size - 1}" if hints.size > 1 else ""
        if key == "suggestion":
            return "" if hints.neighbour is None else hints.neighbour.text()
        if key == "pairs":
            return "" if hints.pairs is None else pairs_text(hints.pairs)
        if hints.group is not None:
            return ", ".join(hints.group.systems)
    if key in ("alike", "suggestion", "pairs"):
        return ""
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


def _colour(row: OutputRow, key: str, hints: RowHints | None) -> QColor | None:
    if key == "auto" and row.auto_label:
        return _LABEL_BRUSHES.get(row.auto_label)
    if key == "manual" and row.manual_label:
        return _LABEL_BRUSHES.get(row.manual_label)
    if key == "suggestion" and hints is not None and hints.neighbour is not None:
        label = hints.neighbour.label
        return _LABEL_BRUSHES["unknown"] if label is None else _LABEL_BRUSHES.get(label)
    return None


def row_cells(row: OutputRow, spans: list[Span], hints: RowHints | None) -> tuple[Cell, ...]:
    manual = row.manual_label is not None
    return tuple(Cell(_display(row, c.key, hints), _colour(row, c.key, hints), c.key == "manual" and manual,
                      spans if c.key == "output" else None) for c in COLUMNS)
