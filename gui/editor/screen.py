"""Placeholder until the gui-editor engineer's screen is merged (the main window only needs the class)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gui.operations import Operations
from gui.state import AppState


class ItemEditorScreen(QWidget):
    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        label = QLabel("The item editor (rules, live preview) comes with the gui-editor branch.", self)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        QVBoxLayout(self).addWidget(label)
