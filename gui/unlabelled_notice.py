"""The yellow line "13,104 outputs are not labelled yet" that the report tabs and the Review screen show above
their tables while some of the suite's outputs are not labelled (issue 27): here, since both use it."""
from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from gui.operations import Operations
from gui.state import AppState
from suite.reading.status import Unlabelled, unlabelled_outputs


class UnlabelledNotice(QLabel):
    """"13,104 outputs are not labelled yet": shown above a report's tables (and in Review) while the count is
    not zero, hidden otherwise."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("unlabelledNotice")
        self.setWordWrap(True)
        self.setStyleSheet("background: #fff4ce; color: #5c4400; padding: 4px 8px; border-radius: 3px")
        self.hide()

    def show_count(self, unlabelled: Unlabelled) -> None:
        if unlabelled.notice is None:
            self.hide()
            return
        self.setText(f"{unlabelled.notice}: label the suite to count them (the figures below leave them out)")
        self.show()

    def refresh(self, state: AppState, ops: Operations, key: str) -> None:
        """Read the count in the background and show it."""
        db, suite = state.db, state.suite_name
        if db is None or suite is None:
            self.hide()
            return
        ops.read(lambda task: unlabelled_outputs(db, suite), self.show_count, key=key)
