"""A one-line monospace field for a regular expression that underlines where it stops compiling.

A QLineEdit cannot underline part of its text, so this is a single-line QPlainTextEdit: a syntax
highlighter draws the red wavy underline from the position the core reports to the end of the pattern.
"""
from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QFontMetrics,
    QKeyEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import QFrame, QPlainTextEdit, QSizePolicy, QWidget

PROBLEM_UNDERLINE = QColor("#D00000")


def field_height() -> int:
    """A pattern field's height: one line of the monospace font, its margins and frame."""
    return QFontMetrics(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)).lineSpacing() + 10


class _ProblemHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self.position: int | None = None
        self.active = False
        self._format = QTextCharFormat()
        self._format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
        self._format.setUnderlineColor(PROBLEM_UNDERLINE)

    def highlightBlock(self, text: str) -> None:
        if not self.active or not text:
            return
        start = 0 if self.position is None else max(0, min(self.position, len(text) - 1))
        self.setFormat(start, len(text) - start, self._format)


class PatternEdit(QPlainTextEdit):
    """Edits one pattern; ``edited`` carries the text after every keystroke."""

    edited = Signal(str)
    focused = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setWordWrapMode(QTextOption.WrapMode.NoWrap)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTabChangesFocus(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.document().setDocumentMargin(2)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(field_height())
        self.setPlaceholderText("regular expression")
        self._highlighter = _ProblemHighlighter(self.document())
        self.textChanged.connect(lambda: self.edited.emit(self.toPlainText()))

    def text(self) -> str:
        return self.toPlainText()

    def set_text(self, text: str) -> None:
        """Replace the text unless it is already there, so a model echoing a keystroke keeps the cursor; the
        text comes from the model, so it is not reported back as an edit."""
        if text != self.toPlainText():
            self.blockSignals(True)
            self.setPlainText(text)
            self.blockSignals(False)

    def set_problem(self, active: bool, position: int | None = None) -> None:
        if (active, position) != (self._highlighter.active, self._highlighter.position):
            self._highlighter.active, self._highlighter.position = active, position
            self.blockSignals(True)  # a new underline is no edit of the text
            self._highlighter.rehighlight()
            self.blockSignals(False)

    def has_problem(self) -> bool:
        return self._highlighter.active

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.ignore()  # one line only; let the dialog or view have Enter
            return
        super().keyPressEvent(event)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """A pasted pattern with line breaks becomes one line (a rule never spans lines)."""
        self.insertPlainText(" ".join(source.text().splitlines()))

    def focusInEvent(self, event):  # type: ignore[no-untyped-def]
        super().focusInEvent(event)
        self.focused.emit()
