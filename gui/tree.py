"""The suite tree dock: category → phenomenon → item, each with its outputs by label, and a search.

The whole tree (a few thousand items) comes from one core call, ``suite.reading.tree.suite_tree``, read in the
background with what the search looks in (``suite.reading.search``); the model is rebuilt from it after every
write that touches the suite or its labels, which costs less than patching nodes and cannot drift from the
database. What the tree shows — narrowed by the search, in suite order or most undecided first, all nodes or the
undecided ones — is worked out by the core off the window's thread too, the newest request winning, and the
model is rebuilt from that: filtering the Qt model itself asked each of thousands of nodes for its text through
Python on every keystroke, which froze the window for seconds (issue 16).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QRect,
    Qt,
    QTimer,
)
from PySide6.QtGui import QAction, QColor, QFont, QFontMetrics, QKeyEvent, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
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

from gui.colours import LABEL_COLOURS
from gui.elided_label import ElidedLabel
from gui.operations import Operations
from gui.state import AppState, Selection
from store import Database
from suite.engine.label_counts import LabelCounts
from suite.reading.search import SuiteSearch, search_tree, suite_search
from suite.reading.tree import SuiteTree, TreeOrder, arranged_tree, suite_tree

NO_PARENT = QModelIndex()  # the invalid index: Qt's default argument for "top level"

COUNTS_ROLE = Qt.ItemDataRole.UserRole + 2
SELECTION_ROLE = Qt.ItemDataRole.UserRole + 3
ITEM_ID_ROLE = Qt.ItemDataRole.UserRole + 4
"""An item node's external id (None on categories and phenomena): shown whole, its source elided after it."""

RELOAD_DELAY_MS = 700
SEARCH_DELAY_MS = 15
"""Keys typed faster than this are searched together; slower typing gets each keystroke's result at once."""
SHOWN_ITEMS = 300
"""A search that finds more items than this opens its categories but not its phenomena: laying out thousands of
item rows cost most of a keystroke, and a search of one or two letters is read by its categories anyway."""
COLUMNS = ("suite", "labels", "undecided")
NAME, LABELS, UNDECIDED = range(len(COLUMNS))

BAR_SEGMENTS = (("pass", "passed"), ("fail", "failed"), ("conflict", "conflict"), ("unknown", "unknown"),
                ("error", "error"), ("not labelled", "unlabelled"))
"""The stacked bar's segments left to right: label word (and colour) and ``LabelCounts`` field."""
_UNLABELLED_COLOUR = "#E4E4E4"
_MIN_SEGMENT_PX = 2  # a single conflict among 500 outputs still shows
LABELS_WIDTH, UNDECIDED_WIDTH = 90, 56
"""The bar and the count, narrow enough that the names column holds an eight-digit id at 1280 px (issue 28)."""
TEXT_MARGIN_PX = 8
"""What the style keeps on both sides of a cell's text."""
MIN_PANE_WIDTH = 260


@dataclass(frozen=True)
class TreeData:
    tree: SuiteTree
    search: SuiteSearch


def load_tree(db: Database, suite_name: str | None) -> TreeData:
    """Everything the tree shows, read together so that the counts and the searched texts belong to one moment."""
    tree = suite_tree(db, suite_name)
    return TreeData(tree, suite_search(db, tree, suite_name))


@dataclass(frozen=True)
class TreeView:
    """How the tree is shown: the search, the order and whether only nodes with undecided outputs are."""

    query: str = ""
    order: TreeOrder = "suite"
    undecided_only: bool = False

    def shown(self, data: TreeData) -> SuiteTree:
        return arranged_tree(search_tree(data.tree, data.search, self.query), self.order, self.undecided_only)


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


class NameDelegate(QStyledItemDelegate):
    """Names that never lose what tells them apart: an item's id is shown whole and its source elided after it,
    a category's or phenomenon's name is elided in the middle. Qt's right elision showed "003…" for every item id
    and "Modal n…" for the phenomena at the tree's default width (issue 28)."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        option.text = shown_name(option.text, index.data(ITEM_ID_ROLE), option.fontMetrics,
                                 option.rect.width() - TEXT_MARGIN_PX)
        option.textElideMode = Qt.TextElideMode.ElideNone  # elided here already, as each kind of node needs


def shown_name(text: str, external_id: str | None, metrics: QFontMetrics, width: int) -> str:
    """The name as it fits ``width`` pixels: an item's id whole, then as much of its source as fits."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    if external_id is None:
        return metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, width)
    head = text[:len(external_id)]
    rest = width - metrics.horizontalAdvance(head + "  ")
    source = text[len(external_id):].lstrip()
    tail = metrics.elidedText(source, Qt.TextElideMode.ElideRight, rest) if rest > 0 else ""
    return f"{head}  {tail}" if tail else head


def bar_segments(counts: LabelCounts, width: int) -> list[tuple[str, int, int]]:
    """(label word, count, width in pixels) of each non-empty segment of a stacked bar ``width`` pixels wide: in
    proportion to the counts, every non-empty one at least a couple of pixels (taken from the widest)."""
    values = [(word, getattr(counts, name)) for word, name in BAR_SEGMENTS]
    total = sum(n for _, n in values)
    if total == 0 or width <= 0:
        return []
    segments = [[word, n, max(_MIN_SEGMENT_PX, round(width * n / total))] for word, n in values if n]
    widest = max(segments, key=lambda s: s[2])
    widest[2] = max(widest[2] - (sum(s[2] for s in segments) - width), 1)
    return [(str(word), int(n), int(w)) for word, n, w in segments]


def _text_colour(background: QColor) -> QColor:
    """Black or white, whichever reads on the segment's colour."""
    return QColor("#000000") if background.lightnessF() > 0.55 else QColor("#FFFFFF")


class LabelBarDelegate(QStyledItemDelegate):
    """A node's outputs as one bar stacked by label state in the label colours, each count written on its
    segment where it fits: a node with 7 of its 11 outputs unknown shows mostly grey, with the 7 on it. The pass
    rate alone (pass / judged) showed such an item as a full green 100 %.

    A bar is drawn once into a pixmap and reused while its counts and size stay: a search repaints a screenful
    of them at every keystroke, and laying out their numbers each time was most of a repaint."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bars: dict[tuple[LabelCounts, int, int, float], QPixmap] = {}

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
              ) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        counts = index.data(COUNTS_ROLE)
        if not isinstance(counts, LabelCounts):
            return
        rect: QRect = opt.rect.adjusted(3, 2, -3, -2)
        if rect.width() <= 0 or rect.height() <= 0:
            return
        ratio = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        key = (counts, rect.width(), rect.height(), ratio)
        bar = self._bars.get(key)
        if bar is None:
            if len(self._bars) >= _BARS_KEPT:
                self._bars.clear()
            bar = self._bars[key] = _bar(counts, rect.width(), rect.height(), ratio, painter.font())
        painter.drawPixmap(rect.topLeft(), bar)


_BARS_KEPT = 10_000


def _bar(counts: LabelCounts, width: int, height: int, ratio: float, font: QFont) -> QPixmap:
    pixmap = QPixmap(round(width * ratio), round(height * ratio))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    small = QFont(font)
    small.setPointSizeF(max(font.pointSizeF() - 1, 6))
    painter.setFont(small)
    metrics = painter.fontMetrics()
    x = 0
    for word, count, segment_width in bar_segments(counts, width):
        colour = QColor(LABEL_COLOURS.get(word, _UNLABELLED_COLOUR))
        segment = QRect(x, 0, segment_width, height)
        painter.fillRect(segment, colour)
        text = f"{count:,}"
        if metrics.horizontalAdvance(text) + 2 <= segment_width:
            painter.setPen(_text_colour(colour))
            painter.drawText(segment, int(Qt.AlignmentFlag.AlignCenter), text)
        x += segment_width
    painter.end()
    return pixmap


class SuiteTreePane(QWidget):
    """The dock's contents; selecting a node sets the shared selection, which every screen follows."""

    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._ops = ops
        self._data: TreeData | None = None
        self._searching = False
        self.shown_view = TreeView()
        self._shown_tree: SuiteTree | None = None
        self._expanded_before_search: set[Selection] = set()
        self._ids_px = 0  # the widest item id of the suite, in pixels
        self.model = SuiteTreeModel(self)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("search id, source or pattern")
        self.search.setClearButtonEnabled(True)
        self.search.installEventFilter(self)
        self.found = ElidedLabel("", self)  # while searching: how many items, or that nothing matched
        self.found.hide()
        self.order = QComboBox(self)
        self.order.addItem("suite order", "suite")
        self.order.addItem("most undecided first", "undecided")
        self.order.setToolTip("Undecided: outputs still unknown, conflict or error — what needs a rule or a reviewer")
        self.undecided_only = QCheckBox("undecided only", self)
        self.undecided_only.setToolTip("Hide categories, phenomena and items whose every output is decided")
        self.view = QTreeView(self)
        self.view.setModel(self.model)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setItemDelegateForColumn(NAME, NameDelegate(self.view))
        self.view.setItemDelegateForColumn(LABELS, LabelBarDelegate(self.view))
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(LABELS, LABELS_WIDTH)
        header.resizeSection(UNDECIDED, UNDECIDED_WIDTH)
        self.view.selectionModel().currentChanged.connect(self._current_changed)
        self.setMinimumWidth(MIN_PANE_WIDTH)  # names, bars and counts side by side; hide the dock for more room
        options = QHBoxLayout()
        options.setContentsMargins(0, 0, 0, 0)
        options.addWidget(self.order, 1)
        options.addWidget(self.undecided_only)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addWidget(self.found)
        layout.addLayout(options)
        layout.addWidget(self.view)
        self.context_actions: list[QAction] = []  # filled by the main window: new, rename, move, delete
        # A reviewer deciding P, P, P… changes the counts every second; the tree (one aggregate over the whole
        # suite, seconds on a million outputs) is read again once they pause.
        self._reload_soon = QTimer(self)
        self._reload_soon.setSingleShot(True)
        self._reload_soon.setInterval(RELOAD_DELAY_MS)
        self._reload_soon.timeout.connect(self.reload)
        self._search_soon = QTimer(self)
        self._search_soon.setSingleShot(True)
        self._search_soon.setInterval(SEARCH_DELAY_MS)
        self._search_soon.timeout.connect(self.show_view)
        self.search.textChanged.connect(self._search_soon.start)
        self.order.currentIndexChanged.connect(self.show_view)
        self.undecided_only.toggled.connect(self.show_view)
        state.suite_changed.connect(self.reload)
        state.operation_executed.connect(self._changed)
        state.selection_changed.connect(self._follow_selection)

    def reload(self) -> None:
        db, suite_name = self._state.db, self._state.suite_name
        if db is None or suite_name is None:
            self._data = self._shown_tree = None
            self.model.clear()
            self._state.set_tree(None)
            return
        self._ops.read(lambda task: load_tree(db, suite_name), self._loaded, key="tree")

    def tree_view(self) -> TreeView:
        return TreeView(self.search.text().strip(), self.order.currentData(), self.undecided_only.isChecked())

    def show_view(self) -> None:
        """Show the tree as the search, order and filter now ask, worked out off the window's thread."""
        self._search_soon.stop()
        data, view = self._data, self.tree_view()
        if data is not None:
            self._ops.read(lambda task: view.shown(data), lambda tree: self._show(tree, view), key="tree-view")

    def _changed(self, changes: Any) -> None:
        if changes.label_state or changes.items:  # counts, the suite's shape, what the search finds
            self._reload_soon.start()

    def _loaded(self, data: TreeData) -> None:
        self._data = data
        self._fit_ids(data.tree)  # the whole suite's ids, not a search's: the width stays while searching
        self._state.set_tree(data.tree)
        self.show_view()

    def _show(self, tree: SuiteTree, view: TreeView) -> None:
        found = sum(len(phenomenon.items) for category in tree.categories for phenomenon in category.phenomena)
        self._say_found(view.query, found)
        if tree == self._shown_tree and bool(view.query) == self._searching:
            self.shown_view = view  # the same nodes ("0" then "00"): no reset, no layout, no repaint
            return
        self.shown_view = view
        self._shown_tree = tree
        searching = bool(view.query)
        if searching and not self._searching:
            self._expanded_before_search = self._expanded()
        expanded = self._expanded_before_search if self._searching and not searching else self._expanded()
        self._searching = searching
        self.model.set_tree(tree)
        if searching:
            self.view.expandToDepth(1 if found <= SHOWN_ITEMS else 0)
        elif expanded:
            self._expand(expanded)
        else:
            self.view.expandToDepth(0)
        self._follow_selection()

    def ids_width(self) -> int:
        """The pixels the names column needs for the widest item id whole, with the indentation of an item."""
        indentation = self.view.indentation() * (2 + self.view.rootIsDecorated())
        return indentation + self._ids_px + TEXT_MARGIN_PX

    def _fit_ids(self, tree: SuiteTree) -> None:
        """Keep the pane wide enough for the names column to hold the widest item id whole."""
        metrics = self.view.fontMetrics()
        self._ids_px = max((metrics.horizontalAdvance(item.external_id) for category in tree.categories
                            for phenomenon in category.phenomena for item in phenomenon.items), default=0)
        header = self.view.header()
        others = header.sectionSize(LABELS) + header.sectionSize(UNDECIDED)
        chrome = self.view.verticalScrollBar().sizeHint().width() + 2 * self.view.frameWidth()
        self.setMinimumWidth(max(MIN_PANE_WIDTH, self.ids_width() + others + chrome))

    def _say_found(self, query: str, found: int) -> None:
        """An empty tree under a search said nothing: the line says what was searched, and how many items match."""
        if not query:
            self.found.hide()
            return
        self.found.setText("1 item matches" if found == 1 else f"{found:,} items match" if found else
                           f"nothing matches “{query}”")  # the box says what is searched
        self.found.show()

    def _expanded(self) -> set[Selection]:
        found: set[Selection] = set()
        for row in range(self.model.rowCount()):
            category = self.model.index(row, 0)
            if self.view.isExpanded(category):
                found.add(category.data(SELECTION_ROLE))
                for child_row in range(self.model.rowCount(category)):
                    phenomenon = self.model.index(child_row, 0, category)
                    if self.view.isExpanded(phenomenon):
                        found.add(phenomenon.data(SELECTION_ROLE))
        return found

    def _expand(self, selections: set[Selection]) -> None:
        for selection in selections:
            index = self.model.index_of(selection)
            if index.isValid():
                self.view.expand(index)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Down or Enter in the search box goes to the first result; Escape clears the search."""
        if watched is self.search and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter):
                self.enter_results()
                return True
            if key == Qt.Key.Key_Escape and self.search.text():
                self.search.clear()
                return True
        return super().eventFilter(watched, event)

    def enter_results(self) -> None:
        """The keyboard to the tree, on the first result of what the search box holds now: a search still on its
        way is superseded and done here at once (a few milliseconds), so Enter never lands on an older result."""
        data, view = self._data, self.tree_view()
        if data is not None and (self._search_soon.isActive() or view != self.shown_view):
            self._search_soon.stop()
            self._ops.supersede("tree-view")
            self._show(view.shown(data), view)
        first = self.model.first_item()
        self.view.setFocus()
        if first.isValid():
            self.view.expand(first.parent().parent())
            self.view.expand(first.parent())
            self.view.setCurrentIndex(first)
            self.view.scrollTo(first)

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
        index = self.model.index_of(wanted)
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
