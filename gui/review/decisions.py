"""The Review queue's decisions and actions: P / F (and Shift+P / F adding a known translation), Enter for the
neighbour's suggestion, U, C, E, copy, impact order and moving between rows; each decision is one background
write and one undo step, and on the other pages P / F answer or adjudicate.
"""
from __future__ import annotations

import io
from functools import partial

from PySide6.QtCore import (
    Qt,
)
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QInputDialog,
    QLineEdit,
    QMessageBox,
)

from gui.operations import review as review_ops
from gui.review.columns import COLUMN
from gui.review.reviewer import ask_reviewer, replaces_others
from gui.review.surface import ReviewSurface
from gui.shortcuts import screen_action
from gui.state import Selection
from store.domain import Label
from suite.editing.api import EditConflict
from suite.reading.browse import OutputRow, write_rows_tsv


class QueueDecisions(ReviewSurface):
    """What the reviewer does to the selected rows, and the screen's actions with their keys."""

    def with_alike(self, rows: list[OutputRow]) -> list[OutputRow]:
        """The rows with every output alike to them (in the grouped queue): what a decision on them decides."""
        found: dict[int, OutputRow] = {}
        for row in rows:
            hints = self.model.hints(row.output_id)
            for member in hints.group.members if hints is not None and hints.group is not None else (row,):
                found.setdefault(member.output_id, member)
        return list(found.values())

    def decide(self, label: str, *, as_known: bool = False) -> None:
        """P / F, and Shift+P / Shift+F (``as_known``): one step of the undo stack either way. On the assignments
        page P / F answer, on the disagreements page they adjudicate."""
        if self.page() == "assignments":
            self.assignments.answer(label)
            return
        if self.page() == "disagreements":
            self.adjudication.adjudicate(label)
            return
        self._decide_rows(self.selected_rows(), label, as_known=as_known)

    def accept_suggestion(self) -> None:
        """Enter: the current row (and the selected rows suggested the same label) take their neighbour's label."""
        if self.page() != "queue" or not self.table.currentIndex().isValid():
            return
        current = self.model.cached(self.current_row())
        hints = None if current is None else self.model.hints(current.output_id)
        label = None if hints is None or hints.neighbour is None else hints.neighbour.label
        if current is None or label is None:
            self._ops.message.emit("no suggestion to accept here: its nearest decided output differs in a way "
                                   "that decided labels elsewhere (see the suggestion column)")
            return
        rows = [row for row in self.selected_rows()
                if (h := self.model.hints(row.output_id)) is not None and h.neighbour is not None
                and h.neighbour.label == label] or [current]
        self._decide_rows(rows, label)

    def _decide_rows(self, chosen: list[OutputRow], label: str, *, as_known: bool = False) -> None:
        rows = self.with_alike(chosen)
        reviewer = ask_reviewer(self, self._state) if rows else None
        if not rows or reviewer is None or self._state.db is None:
            return
        if not replaces_others(self, rows, reviewer, label):
            return
        ids = [r.output_id for r in rows]
        review_ops.decide(self._state, self._ops, rows, Label(label), as_known=as_known).failure(
            lambda error: self._conflict(error, ids)).run(self._ops)
        self._advance(set(ids))

    def clear(self) -> None:
        if self.page() == "assignments":
            self.assignments.answer(None)
            return
        if self.page() != "queue":
            return
        rows = [r for r in self.with_alike(self.selected_rows()) if r.manual_label is not None]
        reviewer = ask_reviewer(self, self._state) if rows else None
        if not rows or reviewer is None or self._state.db is None \
                or not replaces_others(self, rows, reviewer, None, removing=True):
            return
        ids = [r.output_id for r in rows]
        review_ops.clear(self._state, self._ops, rows).failure(lambda error: self._conflict(error, ids)).run(self._ops)

    def comment(self) -> None:
        """A comment on the selected decisions, each keeping its label, stored whole or not at all."""
        rows = self.with_alike(self.selected_rows()) if self.page() == "queue" else []
        if not rows:
            return
        if any(r.manual_label is None for r in rows):
            self._ops.message.emit("a comment goes with a decision: press P or F first")
            return
        reviewer = ask_reviewer(self, self._state)
        if reviewer is None or self._state.db is None or not replaces_others(self, rows, reviewer, None):
            return
        text, ok = QInputDialog.getText(self, "tsqe — comment", "Comment on this decision:",
                                        QLineEdit.EchoMode.Normal, rows[0].comment or "")
        if not ok:
            return
        ids = [r.output_id for r in rows]
        review_ops.comment(self._state, self._ops, rows, text).failure(
            lambda error: self._conflict(error, ids)).run(self._ops)

    def _conflict(self, error: Exception, ids: list[int]) -> bool:
        """Someone else changed the label meanwhile: show theirs rather than overwrite it."""
        if not isinstance(error, EditConflict):
            return False
        box = QMessageBox(QMessageBox.Icon.Information, "tsqe — changed meanwhile",
                          f"{error}\n\nNothing was overwritten. Reload the rows to see the label as it is now?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.button(QMessageBox.StandardButton.Yes).setText("Reload")
        box.accepted.connect(lambda: self.model.refresh(ids))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        return True

    def copy_rows(self) -> None:
        """The selected rows to the clipboard as tab-separated values, as ``tsqe outputs --format tsv`` prints them:
        examples to paste into a report or a spreadsheet."""
        rows = self.selected_rows()
        if not rows:
            return
        text = io.StringIO()
        write_rows_tsv(rows, text)
        QGuiApplication.clipboard().setText(text.getvalue())
        self._ops.message.emit(f"copied {len(rows):,} row{'s' if len(rows) != 1 else ''}")

    def edit_rules(self) -> None:
        """Open the current output's item in Item & rules, for a reviewer who sees a wrong automatic label; the
        queue stays as it is (its filter, its row) for when the reviewer comes back."""
        row = self.model.cached(self.current_row()) if self.table.currentIndex().isValid() else None
        if row is not None:
            self._state.edit_item(Selection(row.category, row.phenomenon, row.item_id))

    def _make_actions(self) -> list[QAction]:
        action = partial(screen_action, self)
        return [
            action("Mark &pass", "P", lambda: self.decide("pass")),
            action("Mark &fail", "F", lambda: self.decide("fail")),
            action("Mark pass and add as known &good translation", "Shift+P",
                   lambda: self.decide("pass", as_known=True)),
            action("Mark fail and add as known &bad translation", "Shift+F",
                   lambda: self.decide("fail", as_known=True)),
            self._accept_action(action("&Accept the suggestion", "Return", self.accept_suggestion)),
            action("Order the queue by &impact", "I", self.order_by_impact),
            action("&Clear manual label", "U", self.clear),
            action("C&omment…", "C", self.comment),
            action("&Edit the item's rules", "E", self.edit_rules),
            # Ctrl+C elsewhere copies what is there, not the review rows
            action("Cop&y rows", QKeySequence.StandardKey.Copy, self.copy_rows, only_here=True),
            action("Clear the &filter in force", "Escape", self.clear_filter),
            action("&Next output", "J", lambda: self._move(1)),
            action("P&revious output", "K", lambda: self._move(-1)),
        ]

    @staticmethod
    def _accept_action(accept: QAction) -> QAction:
        accept.setShortcuts([QKeySequence("Return"), QKeySequence("Enter")])
        return accept

    def order_by_impact(self) -> None:
        """Undecided outputs of items with outputs of one label only first, the most pairs first: the pairs column's
        order."""
        self.show_page("queue")
        self.table.horizontalHeader().setSortIndicator(COLUMN["pairs"], Qt.SortOrder.AscendingOrder)

    def actions(self) -> list[QAction]:
        return self._actions
