"""The Review screen's line above its pages while some of the suite's outputs are not labelled yet (issue 27).

A labelling that was stopped part-way (it commits chunk by chunk), new outputs and rules changed since leave
outputs without their automatic label; the queue lists them as not labelled, and a reviewer deciding them by
hand would do work ``tsqe label`` does. The count is the reports' (``gui.unlabelled_notice``,
``suite.reading.status.unlabelled_outputs``), read again whenever labels, outputs, items or the suite change.
"""
from __future__ import annotations

from PySide6.QtWidgets import QWidget

from gui.operations import Operations
from gui.state import AppState
from gui.unlabelled_notice import UnlabelledNotice
from suite.changes import Changes
from suite.reading.status import Unlabelled

READ_KEY = "review-unlabelled"


class ReviewUnlabelledNotice(UnlabelledNotice):
    """"20 outputs are not labelled yet: …" above the Review screen's pages, hidden while every output is."""

    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._ops = ops
        # Not on database_changed too: opening a database also says its suite changed, and the count was read
        # twice at every start, taking one of the four readers while the review queue waited for one.
        state.suite_changed.connect(self.reread)
        state.operation_executed.connect(self._changed)
        self.reread()

    def show_count(self, unlabelled: Unlabelled) -> None:
        if unlabelled.notice is None:
            self.hide()
            return
        self.setText(f"{unlabelled.notice}: label the suite (Suite → Label all) to give them their automatic "
                     f"labels before deciding them by hand")
        self.show()

    def reread(self) -> None:
        self._ops.supersede(READ_KEY)
        self.refresh(self._state, self._ops, READ_KEY)

    def _changed(self, changes: Changes) -> None:
        if changes.labels or changes.outputs or changes.taxonomy or changes.items:
            self.reread()
