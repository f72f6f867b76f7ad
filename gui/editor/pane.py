"""What the editor's panes (rules, known translations, references, preview, scope, history) share in their
look: their parts stacked flush with the pane's edges and 2 px apart, and small flat tool buttons."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QToolButton, QVBoxLayout, QWidget


def pane_layout(pane: QWidget) -> QVBoxLayout:
    layout = QVBoxLayout(pane)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    return layout


def tool_button(text: str, tip: str, slot: Callable[[], object]) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    button.clicked.connect(slot)
    return button
