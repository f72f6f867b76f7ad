"""The Suggestions list under the rules: rules the core proposes from the item's decided outputs, with what each
would decide here and flip across the phenomenon. Enter in the list (or a double-click, Add, or Ctrl+Shift+A from
anywhere in the tab: the first suggestion is selected when they arrive) puts the selected one into the draft as a
new rule, where the live preview shows it and the linguist edits and saves it like any other.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QHeaderView, QLabel, QWidget

from gui.colours import LABEL_COLOURS
from gui.editor.pane import pane_layout, tool_button
from gui.editor.preview import flips_html
from gui.editor.scope import flips_text
from gui.row_table_model import RowColumn, RowListModel, fit_to_rows, row_view
from suite.assist.item_suggestions import ItemSuggestions, OfferedSuggestion
from suite.assist.rule_suggestions import RuleSuggestion

POLARITY, PATTERN, DECIDES, PHENOMENON = range(4)
_COLUMNS = (RowColumn("", "positive (a match means pass) or negative (a match means fail); ✓ once added"),
            RowColumn("Suggested pattern", "Enter or double-click adds it to the draft as a new rule; Aa: it "
                      "ignores upper/lower case"),
            RowColumn("Here", "undecided outputs of this item it would decide", numeric=True),
            RowColumn("Phenomenon", "what adding it to every item of the phenomenon would flip (\"2 pass\": two "
                      "unknown outputs would pass)"))
_ADDED = QColor("#999999")


def short_flips(flips: dict[str, int]) -> str:
    """Flips in few words for a narrow column: a new rule mostly decides unknown outputs, so "unknown→pass" is
    written "pass" and only other flips name where they come from."""
    if not flips:
        return "nothing flips"
    return ", ".join(f"{count} {after}" if before == "unknown" else f"{count} {before}→{after}"
                     for before, after, count in ((*flip.split("->", 1), count) for flip, count in flips.items()))


def suggestion_tooltip(offered: OfferedSuggestion) -> str:
    rule = offered.suggestion
    other = "failing" if rule.label == "pass" else "passing"
    lines = [f"{rule.polarity} rule: {rule.pattern}" + (" (ignore case)" if rule.ignore_case else ""),
             f"decides {len(rule.decides)} undecided output{'s' if len(rule.decides) != 1 else ''} here: "
             f"{flips_text(offered.flips) or 'no label changes'}",
             f"matches {rule.matches} of {rule.of} {rule.label}ing texts and "
             + (f"none of the {rule.against} {other} ones" if rule.against else f"there is no {other} one"),
             f"confidence {rule.confidence:.2f} (found by {' and '.join(rule.found_by)})",
             *([] if offered.scope is None else [f"across the {offered.scope.scope}: "
                                                 f"{flips_text(offered.scope.flips) or 'nothing flips'}"]),
             *(f"why: {reason}" for reason in rule.reasons)]
    return "\n".join(lines)


class SuggestionModel(RowListModel[OfferedSuggestion]):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(_COLUMNS, parent)
        self.added: set[tuple[str, str, bool]] = set()
        self._fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)

    def cell(self, offered: OfferedSuggestion, number: int, column: int, role: int) -> Any:
        rule = offered.suggestion
        if role == Qt.ItemDataRole.DisplayRole:
            if column == POLARITY:
                return ("+" if rule.polarity == "positive" else "−") + (" ✓" if self.is_added(rule) else "")
            if column == PATTERN:
                return rule.pattern + ("   Aa" if rule.ignore_case else "")
            if column == DECIDES:
                return str(len(rule.decides))
            if column == PHENOMENON:
                return "–" if offered.scope is None else short_flips(offered.scope.flips)
        if role == Qt.ItemDataRole.ForegroundRole:
            if self.is_added(rule):
                return _ADDED
            if column == POLARITY:
                return QColor(LABEL_COLOURS[rule.label])
        if role == Qt.ItemDataRole.FontRole and column == PATTERN:
            return self._fixed
        if role == Qt.ItemDataRole.ToolTipRole:
            return suggestion_tooltip(offered)
        return None

    def is_added(self, rule: RuleSuggestion) -> bool:
        return (rule.polarity, rule.pattern, rule.ignore_case) in self.added

    def mark_added(self, rule: RuleSuggestion) -> None:
        self.added.add((rule.polarity, rule.pattern, rule.ignore_case))
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, len(_COLUMNS) - 1))


class SuggestionsPane(QWidget):
    add = Signal(object)  # a RuleSuggestion to put into the draft

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = SuggestionModel(self)
        self.view = row_view(self.model, self)
        self.view.setShowGrid(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a template's start and end say the most
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(PATTERN, QHeaderView.ResizeMode.Stretch)
        for column in (POLARITY, DECIDES, PHENOMENON):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        fit_to_rows(self.view)
        self.view.doubleClicked.connect(lambda index: self._add_row(index.row()))
        for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            shortcut = QShortcut(QKeySequence(key), self.view)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(self.add_current)
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("color: #666")
        self.add_button = tool_button("Add", "add the selected suggestion to the draft as a new rule (Enter in the "
                                      "list, Ctrl+Shift+A anywhere in Item & rules)",
                                      self.add_current)
        self.add_button.setEnabled(False)
        self.view.selectionModel().currentRowChanged.connect(lambda *_: self._update_button())
        top = QHBoxLayout()
        top.addWidget(QLabel("<b>Suggestions</b> <span style='color:#666'>(none contradicts a decided output)"
                             "</span>"))
        top.addStretch(1)
        top.addWidget(self.add_button)
        layout = pane_layout(self)
        layout.addLayout(top)
        layout.addWidget(self.view)
        layout.addWidget(self.summary)

    def show_suggestions(self, found: ItemSuggestions | None, message: str = "") -> None:
        self.model.added.clear()
        self.model.set_rows([] if found is None else found.suggestions)
        if found is None:
            self.summary.setText(message)
        elif not found.suggestions:
            self.summary.setText(
                "No suggestion: " + ("every output is decided." if not found.undecided else
                                     f"no pattern decides any of the {found.undecided} undecided outputs with "
                                     f"enough evidence ({found.passing} passing and {found.failing} failing "
                                     f"decided texts) without contradicting a decided one."))
        else:
            best = found.suggestions[0]
            self.summary.setText(f"{len(found.suggestions)} suggestion{'s' if len(found.suggestions) != 1 else ''} "
                                 f"for {found.undecided} undecided output{'s' if found.undecided != 1 else ''}; "
                                 f"the first decides {len(best.suggestion.decides)} here "
                                 f"({flips_html(best.flips)}).")
            self.view.setCurrentIndex(self.model.index(0, PATTERN))
        self._update_button()

    def _update_button(self) -> None:
        row = self.view.currentIndex().row()
        self.add_button.setEnabled(0 <= row < self.model.rowCount()
                                   and not self.model.is_added(self.model.row(row).suggestion))

    def add_current(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self._add_row(index.row())

    def _add_row(self, row: int) -> None:
        if not 0 <= row < self.model.rowCount():
            return
        rule = self.model.row(row).suggestion
        if self.model.is_added(rule):
            return
        self.model.mark_added(rule)
        self._update_button()
        self.add.emit(rule)
