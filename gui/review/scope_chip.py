"""The chip that shows the part of the Review filter the bar's choosers cannot (an item, chosen items, an automatic
label), with a × that clears it.

An item chosen through the tree's search stayed as a hidden filter ("1 chosen item · 0 outputs") after the search
was cleared and "any category" chosen; only a click on a category cleared it (issue 28). The chip says it is in
force, and one click on it (or Esc in Review) takes it away.
"""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QToolButton, QWidget

MAX_WIDTH_PX = 280
"""A chip for fifty chosen items must not widen the window (``gui.elided_label`` says why)."""
_STYLE = ("QToolButton { border: 1px solid #0072B2; border-radius: 9px; padding: 1px 8px; background: #E8F1F8; }"
          "QToolButton:hover { background: #D0E3F1; }")


class ScopeChip(QToolButton):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setStyleSheet(_STYLE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setMaximumWidth(MAX_WIDTH_PX)
        self._words = ""
        self.hide()

    def setText(self, text: str) -> None:  # noqa: N802  (Qt's name)
        """``text``: what narrows the queue, in words ("item 00470001", "1 chosen item"); empty hides the chip."""
        self._words = text
        self.setVisible(bool(text))
        self.setToolTip(f"The queue shows only {text}. Click, or press Esc in Review, to show every output the "
                        "choosers allow." if text else "")
        room = MAX_WIDTH_PX - 24 - self.fontMetrics().horizontalAdvance("  ×")
        super().setText(f"{self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, room)}  ×")

    def words(self) -> str:
        return self._words

    def minimumSizeHint(self) -> QSize:  # noqa: N802  (Qt's name)
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), MAX_WIDTH_PX), hint.height())
