"""What every report tab shares: it computes when shown, and a change it shows makes what it holds stale.

A hidden tab computes nothing; once a write that concerns it has finished, it computes again when (or, if
shown, as soon as) it is seen. Every read the tab started before that write's notification may have read the
data as they were and is superseded (``Operations.supersede``): its result would otherwise land after the
notification and be shown, or be kept and reused, as if it were current.

While some of the suite's outputs are not labelled yet (a labelling stopped part-way, new outputs, rules changed
since), every tab shows one line above its tables saying how many (``UnlabelledNotice``): its figures count those
outputs as unlabelled.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtGui import QAction, QShowEvent
from PySide6.QtWidgets import QAbstractItemView, QBoxLayout, QLabel, QVBoxLayout, QWidget

from gui.operations import Operations
from gui.state import AppState
from gui.unlabelled_notice import UnlabelledNotice
from suite.changes import Changes

UNLABELLED_READ = "unlabelled outputs"


if TYPE_CHECKING:
    from store import Database

T = TypeVar("T")


class ReportTab(QWidget):
    def __init__(self, state: AppState, ops: Operations, reads: tuple[str, ...],
                 parent: QWidget | None = None) -> None:
        """``reads``: the keys of the tab's reads of the database (not of its renderings)."""
        super().__init__(parent)
        self._state = state
        self._ops = ops
        self._reads = reads
        self._stale = True
        self.unlabelled_notice = UnlabelledNotice(self)
        state.database_changed.connect(self._switched)
        state.suite_changed.connect(self._switched)
        state.operation_executed.connect(self._changed)
        state.selection_changed.connect(self._follow_selection)

    def refresh(self) -> None:
        """Read and compute the report anew (the tab is shown)."""
        raise NotImplementedError

    def concerns(self, changes: Changes) -> bool:
        """Whether a finished write changed something the tab shows."""
        raise NotImplementedError

    def _forget(self) -> None:
        """Drop what was read or computed from the data as they were (the tab may be hidden meanwhile)."""

    def _follow_selection(self) -> None:
        """Show the tree's selection in the report."""
        raise NotImplementedError

    def _clear_shown(self) -> None:
        """Empty the tables and charts on screen: they showed another suite (a chart of the previous suite stayed
        beside the new suite's empty table, issue 16)."""

    def _switched(self) -> None:
        self._clear_shown()
        self._invalidate()

    def _while_current(self, db: Database, suite: str | None, shown: Callable[[T], None]) -> Callable[[T], None]:
        """``shown``, only while the database and suite are those a job was started on: a ranking or correlation
        that finished after a switch belongs to the previous database (issue 28)."""
        return lambda result: shown(result) if self._state.db is db and self._state.suite_name == suite else None

    def add_menu_actions(self, actions: tuple[tuple[str, Callable[[], None]], ...]) -> None:
        """The window's QE menu lists a screen's actions (``QWidget.actions()``): the same forms as its buttons."""
        for title, slot in actions:
            action = QAction(title, self)
            action.triggered.connect(slot)
            self.addAction(action)

    def _invalidate(self) -> None:
        self._stale = True
        self._ops.supersede(*self._reads)
        self._forget()
        if self.isVisible():
            self._refresh_all()

    def _changed(self, changes: Changes) -> None:
        if self.concerns(changes):
            self._invalidate()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        layout = self.layout()
        if isinstance(layout, QBoxLayout) and layout.indexOf(self.unlabelled_notice) < 0:
            layout.insertWidget(0, self.unlabelled_notice)  # above whatever the tab lays out
        if self._stale:
            self._refresh_all()

    def _refresh_all(self) -> None:
        self.unlabelled_notice.refresh(self._state, self._ops, f"{UNLABELLED_READ} {id(self)}")
        self.refresh()


def note_label() -> QLabel:
    """The small grey text under a table that says how to read it."""
    label = QLabel()
    label.setWordWrap(True)
    label.setStyleSheet("color: #555; font-size: 11px")
    return label


def with_notes(view: QAbstractItemView, notes: QLabel) -> QWidget:
    """A table with its notes under it, as one pane of a splitter."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(view)
    layout.addWidget(notes)
    return box
