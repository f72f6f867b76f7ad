"""Who decides: the reviewer's name, asked once and remembered, changed with File → Reviewer…, and the question
before a decision replaces or removes another reviewer's."""
from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from gui.colours import LABEL_COLOURS
from gui.settings import Settings
from gui.state import AppState
from suite.editing.review import decided_by_others, reviewer_name
from suite.errors import TsqeError
from suite.reading.browse import OutputRow

SETTINGS_REVIEWER = "review/reviewer"


class ReviewerDialog(QDialog):
    """The reviewer's name, asked before the first decision and changed with File → Reviewer… (a second reviewer on
    the same computer needed a second configuration folder, issue 28). The name goes through the core's one check of a
    reviewer's name (``suite.editing.review.reviewer_name``, as ``--reviewer`` does: empty, too long for the column
    or holding a control character refused, blanks around it stripped); a name it refuses is told under the field,
    and the dialog stays."""

    def __init__(self, state: AppState, parent: QWidget | None = None, question: str | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self.setWindowTitle("tsqe — reviewer")
        self.name = QLineEdit(state.reviewer or Settings().text(SETTINGS_REVIEWER) or state.author(), self)
        self.name.selectAll()
        self.error = QLabel(self)
        self.error.setStyleSheet(f"color: {LABEL_COLOURS['fail']}")
        self.error.setWordWrap(True)
        self.error.hide()
        self.name.textEdited.connect(lambda _: self.error.hide())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(question or "Your name, stored with every decision from now on (decisions made "
                                "so far keep the name they were made under):", self))
        layout.addWidget(self.name)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def accept(self) -> None:
        try:
            name = reviewer_name(self.name.text())
        except TsqeError as error:
            self.error.setText(str(error))
            self.error.show()
            return
        self._state.set_reviewer(name)
        Settings().set(SETTINGS_REVIEWER, name)
        super().accept()


def ask_reviewer(parent: QWidget, state: AppState) -> str | None:
    """The reviewer's name, asked once and remembered: every manual label carries it."""
    if state.reviewer:
        return state.reviewer
    dialog = ReviewerDialog(state, parent, "Your name, stored with every decision:")
    return state.reviewer if dialog.exec() == QDialog.DialogCode.Accepted else None


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
