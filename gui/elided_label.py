"""A one-line label for messages of any length: it shows what fits, ending in "…", and the whole text on hover.

A plain ``QLabel`` asks for the width of its whole text as its minimum, and Qt grows the window to honour it: a
long status message ("no QE system yet: import scores, train one, …", a job on a long file name) made the window
wider than a laptop's screen (issue 16). This label asks for a few characters' width at least and the whole text's
when there is room.
"""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

MIN_CHARACTERS = 8


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802  (Qt's name)
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:  # noqa: N802  (Qt's name)
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), self.fontMetrics().averageCharWidth() * MIN_CHARACTERS), hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802  (Qt's name)
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter = QPainter(self)
        self.style().drawItemText(painter, rect, int(self.alignment()), self.palette(), self.isEnabled(), text,
                                  QPalette.ColorRole.WindowText)
        painter.end()
