"""The suite tree dock: category → phenomenon → item with label counts, a pass-rate bar and a search.

The whole tree (a few thousand items) comes from one core call, ``suite.tree.suite_tree``, read in the
background; the model is rebuilt from it after every write that touches the suite or its labels, which costs
less than patching nodes and cannot drift from the database.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSortFilterProxyModel,
    Qt,
    QTimer,
)
from PySide6.QtGui import QAction, QColor, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QLineEdit,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from gui.colours import LABEL_COLOURS, POSITIVE
from gui.operations import Operations
from gui.state import AppState, Selection
from store import Database
from suite.label_counts import LabelCounts
from suite.names import item_patterns
from suite.tree import SuiteTree, suite_tree

NO_PARENT = QModelIndex()  # the invalid index: Qt's default argument for "top level"

SEARCH_ROLE = Qt.ItemDataRole.UserRole + 1
"""What the search box matches: a node's name, and for an item its id, source and rule patterns."""
PASS_RATE_ROLE = Qt.ItemDataRole.UserRole + 2
SELECTION_ROLE = Qt.ItemDataRole.UserRole + 3

RELOAD_DELAY_MS = 700
COLUMNS = ("suite", "pass rate", "outputs")
NAME, PASS_RATE, OUTPUTS = range(len(COLUMNS))


@dataclass(frozen=True)
class TreeData:
    tree: SuiteTree
    patterns: dict[int, list[str]]


def load_tree(db: Database, suite_name: str | None) -> TreeData:
    """Everything the tree shows, read together so that the counts and the patterns belong to one moment."""
    return TreeData(suite_tree(db, suite_name), item_patterns(db, suite_name))


@dataclass(eq=False)
class _Node:
    label: str
    counts: LabelCounts
    selection: Selection
    search: str
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
    return " · ".join(parts) + f"\nreviewed {counts.reviewed:,} of {counts.outputs:,} outputs"


class SuiteTreeModel(QAbstractItemModel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._root = _Node("", LabelCounts(), Selection(), "")

    def set_data(self, data: TreeData) -> None:
        self.beginResetModel()
        root = _Node(data.tree.suite, data.tree.counts, Selection(), "")
        for category in data.tree.categories:
            c = root.add(_Node(category.name, category.counts, Selection(category.name), category.name))
            for phenomenon in category.phenomena:
                p = c.add(_Node(phenomenon.name, phenomenon.counts,
                                Selection(category.name, phenomenon.name), phenomenon.name))
                for item in phenomenon.items:
                    search = "\n".join([item.external_id, item.source, *data.patterns.get(item.item_id, [])])
                    p.add(_Node(f"{item.external_id}  {item.source}", item.counts,
                                Selection(category.name, phenomenon.name, item.item_id), search))
        self._root = root
        self.endResetModel()

    def clear(self) -> None:
        self.beginResetModel()
        self._root = _Node("", LabelCounts(), Selection(), "")
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
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section] if section else (self._root.label or COLUMNS[0])
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = self._node(index)
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == NAME:
                return node.label
            if column == PASS_RATE:
                rate = node.counts.pass_rate
                return "–" if rate is None else f"{rate:.0%}"
            return f"{node.counts.outputs:,}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return counts_tooltip(node.counts)
        if role == Qt.ItemDataRole.TextAlignmentRole and column != NAME:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == SEARCH_ROLE:
            return node.search
        if role == PASS_RATE_ROLE:
            return node.counts.pass_rate
        if role == SELECTION_ROLE:
            return node.selection
        return None


class PassRateDelegate(QStyledItemDelegate):
    """A thin bar in the pass colour under the percentage: where a category is weak shows at a glance."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
              ) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        opt.text = ""
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect: QRect = opt.rect
        text_width = opt.fontMetrics.horizontalAdvance("100%") + 6
        bar = QRect(rect.left() + 4, rect.center().y() - 3, max(rect.width() - text_width - 8, 0), 6)
        rate = index.data(PASS_RATE_ROLE)
        painter.save()
        if rate is not None and bar.width() > 0:
            painter.fillRect(bar, QColor(LABEL_COLOURS["unknown"]).lighter(140))
            painter.fillRect(QRect(bar.left(), bar.top(), round(bar.width() * rate), bar.height()), QColor(POSITIVE))
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        painter.setPen(opt.palette.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text))
        painter.drawText(rect.adjusted(0, 0, -3, 0), int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                         text)
        painter.restore()


class SuiteTreePane(QWidget):
    """The dock's contents; selecting a node sets the shared selection, which every screen follows."""

    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._ops = ops
        self.model = SuiteTreeModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setRecursiveFilteringEnabled(True)
        self.proxy.setAutoAcceptChildRows(True)
        self.proxy.setFilterRole(SEARCH_ROLE)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("search id, source or pattern (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.view = QTreeView(self)
        self.view.setModel(self.proxy)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setItemDelegateForColumn(PASS_RATE, PassRateDelegate(self.view))
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(PASS_RATE, 84)
        header.resizeSection(OUTPUTS, 56)
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.setMinimumWidth(320)  # names, bars and counts side by side; hide the dock for more room
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addWidget(self.view)
        self.context_actions: list[QAction] = []  # filled by the main window: new, rename, move, delete
        # A reviewer deciding P, P, P… changes the counts every second; the tree (one aggregate over the whole
        # suite, seconds on a million outputs) is read again once they pause.
        self._reload_soon = QTimer(self)
        self._reload_soon.setSingleShot(True)
        self._reload_soon.setInterval(RELOAD_DELAY_MS)
        self._reload_soon.timeout.connect(self.reload)
        state.suite_changed.connect(self.reload)
        state.operation_executed.connect(self._changed)
        state.selection_changed.connect(self._follow_selection)

    def reload(self) -> None:
        db, suite_name = self._state.db, self._state.suite_name
        if db is None or suite_name is None:
            self.model.clear()
            self._state.set_tree(None)
            return
        self._ops.read(lambda task: load_tree(db, suite_name), self._loaded, key="tree")

    def _changed(self, changes: Any) -> None:
        if changes.label_state or changes.items:  # counts, the suite's shape, what the search finds
            self._reload_soon.start()

    def _loaded(self, data: TreeData) -> None:
        expanded = self._expanded()
        self.model.set_data(data)
        self._state.set_tree(data.tree)
        self.view.expandToDepth(0) if not expanded else self._expand(expanded)
        self._follow_selection()

    def _expanded(self) -> set[Selection]:
        found: set[Selection] = set()
        for row in range(self.proxy.rowCount()):
            category = self.proxy.index(row, 0)
            if self.view.isExpanded(category):
                found.add(category.data(SELECTION_ROLE))
                for child_row in range(self.proxy.rowCount(category)):
                    phenomenon = self.proxy.index(child_row, 0, category)
                    if self.view.isExpanded(phenomenon):
                        found.add(phenomenon.data(SELECTION_ROLE))
        return found

    def _expand(self, selections: set[Selection]) -> None:
        for selection in selections:
            index = self.proxy.mapFromSource(self.model.index_of(selection))
            if index.isValid():
                self.view.expand(index)

    def _filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text.strip())
        if text.strip():
            self.view.expandAll()

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        selection = current.data(SELECTION_ROLE)
        if isinstance(selection, Selection):
            self._state.select(selection)

    def _follow_selection(self) -> None:
        """Show the shared selection, whichever screen set it (e.g. the editor after adding an item)."""
        wanted = self._state.selection
        current = self.view.currentIndex().data(SELECTION_ROLE)
        if current == wanted:
            return
        index = self.proxy.mapFromSource(self.model.index_of(wanted))
        if index.isValid():
            self.view.setCurrentIndex(index)
            self.view.scrollTo(index)
        else:
            self.view.selectionModel().clearCurrentIndex()

    def current_selection(self) -> Selection:
        selection = self.view.currentIndex().data(SELECTION_ROLE)
        return selection if isinstance(selection, Selection) else Selection()

    def _context_menu(self, position: QPoint) -> None:
        if not self.context_actions:
            return
        menu = QMenu(self)
        menu.addActions(self.context_actions)
        menu.exec(self.view.viewport().mapToGlobal(position))
