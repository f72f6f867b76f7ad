"""How the suite tree writes its names in a narrow column: an item's id whole, a name's middle elided.

Qt's right elision showed "003…" for every item id and "Modal n…" for the phenomena at the tree's default width
(issue 28): ids are what a linguist reads and types, and a phenomenon's end tells it from its neighbours as often
as its start does.
"""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from gui.tree_model import ITEM_ID_ROLE

TEXT_MARGIN_PX = 8
"""What the style keeps on both sides of a cell's text."""


def shown_name(text: str, external_id: str | None, metrics: QFontMetrics, width: int) -> str:
    """The name as it fits ``width`` pixels: an item's id whole, then as much of its source as fits; another name
    elided in the middle."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    if external_id is None:
        return metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, width)
    head = text[:len(external_id)]
    rest = width - metrics.horizontalAdvance(head + "  ")
    source = text[len(external_id):].lstrip()
    tail = metrics.elidedText(source, Qt.TextElideMode.ElideRight, rest) if rest > 0 else ""
    return f"{head}  {tail}" if tail else head


class NameDelegate(QStyledItemDelegate):
    """The names column: each name elided as ``shown_name`` says, never by the style."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.text = shown_name(option.text, index.data(ITEM_ID_ROLE), option.fontMetrics,
                                 option.rect.width() - TEXT_MARGIN_PX)
        option.textElideMode = Qt.TextElideMode.ElideNone
