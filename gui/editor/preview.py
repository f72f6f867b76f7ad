"""The live preview: every distinct output of the item with what the draft's rules match in it, the label it
has next to the one it would get, and the flips those changes add up to."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
)
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QWidget,
)

from gui.colours import LABEL_COLOURS
from gui.editor.pane import pane_layout
from gui.review.columns import DISPLAY, FONT, FOREGROUND, SPANS_ROLE, TOOLTIP, initials
from gui.review.delegate import SpanDelegate
from gui.row_table_model import RowColumn, RowListModel, row_view
from suite.engine.preview import UNLABELLED, ItemPreview, PreviewOutput, RuleProblem

OUTPUT, SYSTEMS, NOW, AFTER, REVIEW = range(5)
_COLUMNS = (RowColumn("Output", "matches of positive rules in the pass colour, of negative ones in the fail colour"),
            RowColumn("Systems", "the systems that produced this output"),
            RowColumn("Now", "the stored automatic label"),
            RowColumn("After", "the automatic label the draft would give"),
            RowColumn("Reviewed", "a reviewer's label, which always wins"))
FLIP_BACKGROUND = QColor("#FFF3D6")


def label_html(label: str | None) -> str:
    word = label or UNLABELLED
    return f"<span style='color:{LABEL_COLOURS.get(word, LABEL_COLOURS['unknown'])}'>{word}</span>"


def flips_html(flips: dict[str, int]) -> str:
    """"3 unknown→pass, 1 pass→conflict", each label in its colour."""
    if not flips:
        return "no label changes"
    parts = []
    for flip, count in flips.items():
        before, _, after = flip.partition("->")
        parts.append(f"{count} {label_html(before)}→{label_html(after)}")
    return ", ".join(parts)


_BACKGROUND = int(Qt.ItemDataRole.BackgroundRole)
_BOLD = QFont()
_BOLD.setBold(True)
_LABEL_COLOURS = {label: QColor(colour) for label, colour in LABEL_COLOURS.items()}

Cell = dict[int, Any]


def _cells(output: PreviewOutput) -> tuple[Cell, ...]:
    """Every role of every column of one output, worked out once per preview rather than per paint (the view
    asks for some 750 roles per repaint)."""
    stored = output.stored
    now = stored.label or UNLABELLED
    changed = now != output.label_after

    def colour(label: str) -> QColor:
        return _LABEL_COLOURS.get(label, _LABEL_COLOURS["unknown"])

    text: Cell = {DISPLAY: stored.text, SPANS_ROLE: output.spans, TOOLTIP: stored.text}
    systems: Cell = {DISPLAY: ", ".join(stored.systems), TOOLTIP: ", ".join(stored.systems)}
    label_now: Cell = {DISPLAY: now, FOREGROUND: colour(now),
                       TOOLTIP: stored.decided_by or "not labelled yet"}
    after: Cell = {DISPLAY: f"{output.label_after} (timed out)" if output.timed_out else output.label_after,
                   FOREGROUND: colour(output.label_after), TOOLTIP: output.decided_by_after}
    if changed:
        after.update({FONT: _BOLD, _BACKGROUND: FLIP_BACKGROUND})
    review: Cell = {}
    if stored.manual is not None:
        review = {DISPLAY: f"{stored.manual} ({initials(stored.reviewer)})", FONT: _BOLD,
                  FOREGROUND: colour(stored.manual),
                  TOOLTIP: f"reviewed by {stored.reviewer}: {stored.manual} (the effective label stays "
                            f"{output.effective_after} whatever the rules say)"}
    return text, systems, label_now, after, review


class _Shown(NamedTuple):
    output: PreviewOutput
    cells: tuple[Cell, ...]


class PreviewModel(RowListModel[_Shown]):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(_COLUMNS, parent)

    def set_preview(self, outputs: Sequence[PreviewOutput]) -> None:
        """Replace the rows; when the same outputs are shown again (a keystroke), only the rows that changed
        are announced, so the view keeps its scroll position and selection and repaints only those."""
        shown = [_Shown(output, _cells(output)) for output in outputs]
        if [row.output.stored.output_id for row in shown] != [row.output.stored.output_id for row in self._rows]:
            self.set_rows(shown)
            return
        changed = [number for number, (old, new) in enumerate(zip(self._rows, shown, strict=True))
                   if old.output != new.output]
        self._rows = shown
        if changed:
            self.dataChanged.emit(self.index(changed[0], 0), self.index(changed[-1], len(self.columns) - 1))

    def output(self, row: int) -> PreviewOutput:
        return self.row(row).output

    def cell(self, row: _Shown, number: int, column: int, role: int) -> Any:
        return row.cells[column].get(role)


class PreviewPane(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = PreviewModel(self)
        self.flips = QLabel("", self)
        self.flips.setTextFormat(Qt.TextFormat.RichText)
        self.flips.setWordWrap(True)
        self.status = QLabel("", self)
        self.status.setStyleSheet("color: #666")
        self.view = row_view(self.model, self)
        self.view.setItemDelegateForColumn(OUTPUT, SpanDelegate(self.view))
        self.view.setAlternatingRowColors(True)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(OUTPUT, QHeaderView.ResizeMode.Stretch)
        for column in (SYSTEMS, NOW, AFTER, REVIEW):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
        # narrow enough that the outputs keep most of the pane on a 1,280 px screen (elided around their matches)
        header.resizeSection(SYSTEMS, 120)
        header.resizeSection(NOW, 64)
        header.resizeSection(AFTER, 100)
        header.resizeSection(REVIEW, 76)
        title = QLabel("<b>Preview</b> <span style='color:#666'>— this item's outputs under the draft</span>")
        layout = pane_layout(self)
        layout.addWidget(title)
        layout.addWidget(self.flips)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.status)

    def show_preview(self, preview: ItemPreview | None) -> None:
        self.status.setText("")
        if preview is None:
            self.model.set_preview([])
            self.flips.setText("")
            return
        self.model.set_preview(preview.outputs)
        timed_out = sum(1 for output in preview.outputs if output.timed_out)
        if preview.problems:
            text = (f"Flips: none to show — {_unusable(preview.problems)}, so every output would be an "
                    f"<span style='color:{LABEL_COLOURS['error']}'>error</span>")
        else:
            text = f"Flips: {flips_html(preview.flips)}"
        if timed_out:
            text += (f" — <b style='color:{LABEL_COLOURS['error']}'>{timed_out} output"
                     f"{'s' if timed_out != 1 else ''} timed out</b> (a pattern that backtracks too much)")
        self.flips.setText(text)


def _unusable(problems: list[RuleProblem]) -> str:
    """"1 pattern of the draft is too complex", "2 patterns of the draft do not compile", or both counted: a
    pattern refused by the bounds on patterns (``suite.engine.pattern_bounds``) has no error to look for, it would only
    cost too much to compile."""
    too_complex = sum(1 for problem in problems if problem.problem.too_complex)
    broken = len(problems) - too_complex
    patterns = f"{len(problems)} pattern{'s' if len(problems) > 1 else ''} of the draft"
    if not too_complex:
        return f"{patterns} {'does' if broken == 1 else 'do'} not compile"
    if not broken:
        return f"{patterns} {'is' if too_complex == 1 else 'are'} too complex"
    return (f"{patterns}: {broken} {'does' if broken == 1 else 'do'} not compile, {too_complex} "
            f"{'is' if too_complex == 1 else 'are'} too complex")
