"""Who decides: the reviewer's name, asked once and remembered, and the question before a decision replaces or
removes another reviewer's."""
from __future__ import annotations

from PySide6.QtCore import (
    QSettings,
)
from PySide6.QtWidgets import (
    QInputDialog,
    QLineEdit,
    QMessageBox,
    QWidget,
)

from gui.state import AppState
from suite.editing.api import default_author
from suite.editing.review import decided_by_others
from suite.reading.browse import OutputRow

SETTINGS_REVIEWER = "review/reviewer"


def ask_reviewer(parent: QWidget, state: AppState) -> str | None:
    """The reviewer's name, asked once and remembered: every manual label carries it."""
    if state.reviewer:
        return state.reviewer
    settings = QSettings()
    remembered = str(settings.value(SETTINGS_REVIEWER, "") or "") or default_author()
    name, ok = QInputDialog.getText(parent, "tsqe — reviewer", "Your name, stored with every decision:",
                                    QLineEdit.EchoMode.Normal, remembered)
    if not ok or not name.strip():
        return None
    state.reviewer = name.strip()
    settings.setValue(SETTINGS_REVIEWER, state.reviewer)
    return state.reviewer


def replaces_others(parent: QWidget, rows: list[OutputRow], reviewer: str, label: str | None, *,
                    removing: bool = False) -> bool:
    """Whether the reviewer means to take over (or, ``removing``, remove) decisions other reviewers made (True when
    there are none): a decision is never made another reviewer's, nor removed, unasked. ``label`` is the one it
    gets; None for a comment, which keeps each decision's label and makes it the commenter's."""
    others = decided_by_others(rows, reviewer)
    if not others:
        return True
    if removing:
        verb = "Remove it" if len(others) == 1 else "Remove their decisions"
        action = f"{verb}, so that the automatic label applies again?"
    elif label:
        action = f"Replace {'it' if len(rows) == 1 else 'their decisions'} with your {label}?"
    else:
        action = f"Take {'it' if len(rows) == 1 else 'them'} over with your comment?"
    if len(rows) == 1:
        row = rows[0]
        said = f" — “{row.comment}”" if row.comment else ""
        question = f"{row.reviewer} decided {row.manual_label}{said}. {action}"
    else:
        names = ", ".join(sorted({r.reviewer or "" for r in others}))
        question = f"{len(others)} of the {len(rows)} outputs were decided by another reviewer ({names}). {action}"
    answer = QMessageBox.question(parent, "tsqe — another reviewer's decision",
                                  question + "\n\nTheir decision stays in the item's history.",
                                  QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes
