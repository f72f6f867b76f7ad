"""Suite → Degenerate outputs…: the suite's policy for empty, placeholder and untranslated outputs.

The dialog only gathers the choice and shows how many outputs it concerns (counted by the core in the background
as the placeholders are typed); setting it is one undoable background write of ``set_output_policy``, which
relabels the suite and says what it decided: an edit value (``SetOutputPolicy``) on the window's one undo stack, which
sets the policy before back.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLayout,
    QPlainTextEdit,
    QWidget,
)

from gui.operations import Operations
from gui.operations.undo import undoable
from gui.state import AppState
from store import Database
from suite.engine.output_policy import (
    DegenerateCounts,
    OutputPolicy,
    PolicyChange,
    SetOutputPolicy,
    degenerate_counts,
    output_policy,
)
from suite.errors import TsqeError

CHOICES = (("left to the rules (unknown unless a rule matches)", "unknown"), ("fail, before any rule", "fail"))
COUNT_DELAY_MS = 300


def counts_text(counts: DegenerateCounts) -> str:
    return (f"In this suite: {counts.empty:,} empty output{'s' if counts.empty != 1 else ''}, "
            f"{counts.placeholder:,} placeholder{'s' if counts.placeholder != 1 else ''} and "
            f"{counts.untranslated:,} identical to the source (distinct outputs).")


class OutputPolicyDialog(QDialog):
    def __init__(self, db: Database, suite_name: str, policy: OutputPolicy, ops: Operations,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("tsqe — degenerate outputs")
        self._db, self._suite, self._ops = db, suite_name, ops
        intro = QLabel("Outputs that are empty, a placeholder a system wrote instead of a translation (such as "
                       "####), or the source sentence itself, decided once for the whole suite.", self)
        intro.setWordWrap(True)
        self.counts = QLabel("counting…", self)
        self.counted: DegenerateCounts | None = None
        self.counts.setWordWrap(True)
        self.empty = QComboBox(self)
        self.untranslated = QComboBox(self)
        for box, value in ((self.empty, policy.empty_output), (self.untranslated, policy.untranslated_output)):
            for text, label in CHOICES:
                box.addItem(text, label)
            box.setCurrentIndex(box.findData(value))
        self.placeholders = QPlainTextEdit("\n".join(policy.placeholders), self)
        self.placeholders.setPlaceholderText("one per line, e.g. ####")
        self.placeholders.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        self.placeholders.setTabChangesFocus(True)  # a placeholder has no tab: Tab goes on to the next field
        self.problem = QLabel(self)
        self.problem.setStyleSheet("color: #B00000")
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow(intro)
        form.addRow("Empty and placeholder outputs", self.empty)
        form.addRow("Placeholders", self.placeholders)
        form.addRow("Identical to the source", self.untranslated)
        form.addRow(self.counts)
        form.addRow(self.problem)
        form.addRow(self.buttons)
        # The dialog takes the height its wrapped lines need, again whenever the counts or a problem change them:
        # kept at its first height, the form squeezed its rows over each other (seen at 1,280×720).
        form.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)
        QWidget.setTabOrder(self.empty, self.placeholders)  # as the fields are shown, not as they were created
        QWidget.setTabOrder(self.placeholders, self.untranslated)
        self._recount = QTimer(self)
        self._recount.setSingleShot(True)
        self._recount.setInterval(COUNT_DELAY_MS)
        self._recount.timeout.connect(self.count)
        self.placeholders.textChanged.connect(self._recount.start)
        for box in (self.empty, self.untranslated):
            box.currentIndexChanged.connect(lambda _: self.policy())
        self.count()

    def policy(self) -> OutputPolicy | None:
        """The policy chosen, or None (and why, under the fields) when it cannot be one."""
        texts = tuple(dict.fromkeys(line.strip() for line in self.placeholders.toPlainText().splitlines()
                                    if line.strip()))
        try:
            policy = OutputPolicy(self.empty.currentData(), self.untranslated.currentData(), texts)
        except TsqeError as error:
            self.problem.setText(str(error))
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
            return None
        self.problem.setText("")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)
        return policy

    def count(self) -> None:
        policy = self.policy()
        if policy is None:
            return
        db, suite, placeholders = self._db, self._suite, policy.placeholders
        self._ops.read(lambda task: degenerate_counts(db, suite, placeholders), self._counted, key="policy-counts")

    def _counted(self, counts: DegenerateCounts) -> None:
        self.counted = counts
        self.counts.setText(counts_text(counts))


def edit_output_policy(state: AppState, ops: Operations, parent: QWidget) -> None:
    """Read the suite's policy, ask for the new one, set it undoably."""
    db, suite = state.db, state.suite_name
    if db is None or suite is None:
        return
    ops.read(lambda task: output_policy(db, suite), lambda policy: _ask(state, ops, parent, db, suite, policy),
             key="output-policy")


def _ask(state: AppState, ops: Operations, parent: QWidget, db: Database, suite: str, before: OutputPolicy) -> None:
    dialog = OutputPolicyDialog(db, suite, before, ops, parent)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return
    after = dialog.policy()
    if after is None or after == before:
        return
    edit = SetOutputPolicy(suite, after, before)
    write = undoable(state, ops, [edit], edit.summary())
    counted = dialog.counted
    if counted is not None:  # what it decided, with the counts, where the status bar said only what was done
        write.success(lambda _: ops.message.emit(PolicyChange(before, after, counted).summary()))
    write.run(ops)
