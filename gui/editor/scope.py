"""What the draft's new or changed rules would flip beyond this item: per item of its phenomenon, category or
suite, with a jump to each item and to a Review of the flipped outputs."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QWidget,
)

from gui.editor.pane import pane_layout
from gui.editor.preview import flips_html
from gui.row_table_model import RowColumn, RowListModel, row_view
from suite.preview import SCOPES, ItemFlips, ScopePreview

ITEM, PLACE, FLIPS, OUTPUTS = range(4)
_COLUMNS = (RowColumn("Item"), RowColumn("Category / phenomenon"), RowColumn("Flips"),
            RowColumn("Outputs", numeric=True))


def flips_text(flips: dict[str, int]) -> str:
    return ", ".join(f"{count} {flip.replace('->', '→')}" for flip, count in flips.items())


class ScopeModel(RowListModel[ItemFlips]):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(_COLUMNS, parent)

    def cell(self, item: ItemFlips, number: int, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return (item.external_id, " / ".join(p for p in (item.category, item.phenomenon) if p),
                    flips_text(item.flips), str(len(item.output_ids)))[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == ITEM:
            return "double-click to open this item"
        return None


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
        self.view = row_view(self.model, self)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(PLACE, QHeaderView.ResizeMode.Stretch)
        for column in (ITEM, FLIPS, OUTPUTS):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.view.doubleClicked.connect(lambda index: self.open_item.emit(self.model.row(index.row())))
        self.review_button = QPushButton("Review these", self)
        self.review_button.setToolTip("show the outputs that would flip in the Review tab")
        self.review_button.setEnabled(False)
        self.review_button.clicked.connect(lambda: self.review.emit(list(self.model.rows())))
        top = QHBoxLayout()
        title = QLabel("<b>Scope</b> — the new and changed rules added to every item of the", self)
        title.setWordWrap(True)  # one line where there is room; never a reason for the window to be wider
        top.addWidget(title, 1)
        top.addWidget(self.scope)
        top.addWidget(self.review_button)
        layout = pane_layout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)

    def current_scope(self) -> str:
        return self.scope.currentText()

    def show_scope(self, preview: ScopePreview | None, message: str = "") -> None:
        if preview is None:
            self.model.set_rows([])
            self.summary.setText(message)
            self.review_button.setEnabled(False)
            return
        self.model.set_rows(preview.items)
        flipped = sum(len(item.output_ids) for item in preview.items)
        items = len(preview.items)
        self.summary.setText(f"{flipped} of {preview.outputs:,} outputs in {items} item{'s' if items != 1 else ''} "
                             f"of this {preview.scope} would flip: {flips_html(preview.flips)}" if flipped else
                             f"nothing would flip among the {preview.outputs:,} outputs of this {preview.scope}")
        self.review_button.setEnabled(bool(preview.items))
