"""What the draft's new or changed rules would flip beyond this item: per item of its phenomenon, category or
suite, with a jump to each item and to a Review of the flipped outputs."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from gui.editor.preview import flips_html
from suite.preview import SCOPES, ItemFlips, ScopePreview

ModelIndex = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()
ITEM, PLACE, FLIPS, OUTPUTS = range(4)
_HEADERS = ("Item", "Category / phenomenon", "Flips", "Outputs")


def flips_text(flips: dict[str, int]) -> str:
    return ", ".join(f"{count} {flip.replace('->', '→')}" for flip, count in
                     sorted(flips.items(), key=lambda kv: (-kv[1], kv[0])))


class ScopeModel(QAbstractTableModel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[ItemFlips] = []

    def set_items(self, items: list[ItemFlips]) -> None:
        self.beginResetModel()
        self._items = list(items)
        self.endResetModel()

    def item(self, row: int) -> ItemFlips:
        return self._items[row]

    def items(self) -> list[ItemFlips]:
        return list(self._items)

    def rowCount(self, parent: ModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: ModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(_HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _HEADERS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._items):
            return None
        item = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (item.external_id, " / ".join(p for p in (item.category, item.phenomenon) if p),
                    flips_text(item.flips), str(len(item.output_ids)))[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == ITEM:
            return "double-click to open this item"
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == OUTPUTS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def flags(self, index: ModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


class ScopePane(QWidget):
    scope_changed = Signal(str)
    open_item = Signal(object)  # ItemFlips
    review = Signal(object)  # list[ItemFlips]

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ScopeModel(self)
        self.scope = QComboBox(self)
        self.scope.addItems([scope for scope in SCOPES if scope != "item"])
        self.scope.setToolTip("where to try the new and changed rules of the draft")
        self.scope.currentTextChanged.connect(self.scope_changed)
        self.summary = QLabel("", self)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().hide()
        self.view.setWordWrap(False)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(PLACE, QHeaderView.ResizeMode.Stretch)
        for column in (ITEM, FLIPS, OUTPUTS):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.view.doubleClicked.connect(lambda index: self.open_item.emit(self.model.item(index.row())))
        self.review_button = QPushButton("Review these", self)
        self.review_button.setToolTip("show the outputs that would flip in the Review tab")
        self.review_button.setEnabled(False)
        self.review_button.clicked.connect(lambda: self.review.emit(self.model.items()))
        top = QHBoxLayout()
        top.addWidget(QLabel("<b>Scope</b> — the new and changed rules added to every item of the"))
        top.addWidget(self.scope)
        top.addStretch(1)
        top.addWidget(self.review_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)

    def current_scope(self) -> str:
        return self.scope.currentText()

    def show_scope(self, preview: ScopePreview | None, message: str = "") -> None:
        if preview is None:
            self.model.set_items([])
            self.summary.setText(message)
            self.review_button.setEnabled(False)
            return
        self.model.set_items(preview.items)
        flipped = sum(len(item.output_ids) for item in preview.items)
        items = len(preview.items)
        self.summary.setText(f"{flipped} of {preview.outputs:,} outputs in {items} item{'s' if items != 1 else ''} "
                             f"of this {preview.scope} would flip: {flips_html(preview.flips)}" if flipped else
                             f"nothing would flip among the {preview.outputs:,} outputs of this {preview.scope}")
        self.review_button.setEnabled(bool(preview.items))
