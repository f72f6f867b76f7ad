"""The suite tree's Qt model: category → phenomenon → item nodes built from ``suite.reading.tree.SuiteTree``,
each with its name, its outputs by label (drawn by ``gui.label_bars``) and its undecided count."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtWidgets import (
    QWidget,
)

from gui.state import Selection
from suite.engine.label_counts import LabelCounts
from suite.reading.tree import SuiteTree

NO_PARENT = QModelIndex()  # the invalid index: Qt's default argument for "top level"

COUNTS_ROLE = Qt.ItemDataRole.UserRole + 2
SELECTION_ROLE = Qt.ItemDataRole.UserRole + 3
ITEM_ID_ROLE = Qt.ItemDataRole.UserRole + 4
"""An item node's external id (None on categories and phenomena): shown whole, its source elided after it."""

COLUMNS = ("suite", "labels", "undecided")
NAME, LABELS, UNDECIDED = range(len(COLUMNS))


@dataclass(eq=False)
class _Node:
    label: str
    counts: LabelCounts
    selection: Selection
    external_id: str | None = None
    parent: _Node | None = None
    row: int = 0
    children: list[_Node] = field(default_factory=list)

    def add(self, child: _Node) -> _Node:
        child.parent, child.row = self, len(self.children)
        self.children.append(child)
        return child


def counts_tooltip(counts: LabelCounts) -> str:
    parts = [f"pass {counts.passed:,}", f"fail {counts.failed:,}", f"conflict {counts.conflict:,}",
             f"unknown {counts.unknown:,}", f"error {counts.error:,}"]
    if counts.unlabelled:
        parts.append(f"not labelled {counts.unlabelled:,}")
    rate = counts.pass_rate
    return (" · ".join(parts) + f"\nreviewed {counts.reviewed:,} of {counts.outputs:,} outputs · "
            f"{counts.undecided:,} undecided (unknown, conflict, error)"
            + ("" if rate is None else f" · pass rate {rate:.0%} of the judged"))


class SuiteTreeModel(QAbstractItemModel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._root = _Node("", LabelCounts(), Selection())

    def set_tree(self, tree: SuiteTree) -> None:
        self.beginResetModel()
        root = _Node(tree.suite, tree.counts, Selection())
        for category in tree.categories:
            c = root.add(_Node(category.name, category.counts, Selection(category.name)))
            for phenomenon in category.phenomena:
                p = c.add(_Node(phenomenon.name, phenomenon.counts, Selection(category.name, phenomenon.name)))
                for item in phenomenon.items:
                    p.add(_Node(f"{item.external_id}  {item.source}", item.counts,
                                Selection(category.name, phenomenon.name, item.item_id), item.external_id))
        self._root = root
        self.endResetModel()

    def clear(self) -> None:
        self.beginResetModel()
        self._root = _Node("", LabelCounts(), Selection())
        self.endResetModel()

    def index_of(self, selection: Selection) -> QModelIndex:
        """The node showing this selection (invalid when the tree has no such node)."""
        node = self._root
        parent = QModelIndex()
        for depth in range(3):
            wanted = (selection.category, selection.phenomenon, selection.item_id)[depth]
            if wanted is None:
                break
            child = next((n for n in node.children if (n.selection.category, n.selection.phenomenon,
                                                       n.selection.item_id)[depth] == wanted), None)
            if child is None:
                return QModelIndex()
            node, parent = child, self.index(child.row, 0, parent)
        return parent

    def first_item(self) -> QModelIndex:
        """The first item shown (the first node when no item is): where Down or Enter in the search goes."""
        node, index = self._root, QModelIndex()
        while node.children:
            node = node.children[0]
            index = self.index(node.row, 0, index)
        return index

    # --- QAbstractItemModel ---------------------------------------------------------------------
    def _node(self, index: QModelIndex | QPersistentModelIndex) -> _Node:
        return index.internalPointer() if index.isValid() else self._root

    def index(self, row: int, column: int, parent: QModelIndex | QPersistentModelIndex = NO_PARENT
              ) -> QModelIndex:
        node = self._node(parent)
        if not (0 <= row < len(node.children) and 0 <= column < len(COLUMNS)):
            return QModelIndex()
        return self.createIndex(row, column, node.children[row])

    def parent(self, index: QModelIndex | QPersistentModelIndex = NO_PARENT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        parent = self._node(index).parent
        if parent is None or parent is self._root:
            return QModelIndex()
        return self.createIndex(parent.row, 0, parent)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = NO_PARENT) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = NO_PARENT) -> int:
        return len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
                   ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section] if section else (self._root.label or COLUMNS[0])
        if role == Qt.ItemDataRole.ToolTipRole and section == UNDECIDED:
            return "outputs whose label is still unknown, conflict or error: what needs a rule or a reviewer"
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = self._node(index)
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == NAME:
                return node.label
            if column == UNDECIDED:
                return f"{node.counts.undecided:,}"
            return None  # the bar is painted by LabelBarDelegate
        if role == Qt.ItemDataRole.ToolTipRole:
            return (f"{node.label}\n" if column == NAME else "") + counts_tooltip(node.counts)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == UNDECIDED:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == COUNTS_ROLE:
            return node.counts
        if role == SELECTION_ROLE:
            return node.selection
        if role == ITEM_ID_ROLE:
            return node.external_id
        return None
