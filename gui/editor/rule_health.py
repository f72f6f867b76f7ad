"""Rule health in the Item & rules tab: with a category, a phenomenon or nothing selected in the suite tree (where
the tab has no item to edit), every rule there with what it matches and decides, how often reviewers overrode
it and what is wrong with it. Columns sort with a click; a double-click opens the rule's item.
"""
from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor, QFontDatabase, QShowEvent
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QWidget

from gui.colours import LABEL_COLOURS
from gui.editor.pane import pane_layout
from gui.operations import Operations
from gui.reports.export import ExportButton
from gui.review.column_fit import FittedColumns, at_least, header_width
from gui.row_table_model import RowColumn, RowListModel, row_view
from gui.state import AppState, Selection
from store import Database
from suite.assist.rule_health import RuleHealth, RuleHealthReport, compile_rules, rule_health
from suite.changes import Changes
from suite.errors import TsqeError
from suite.tables import Table

ITEM, PHENOMENON, RULE, PATTERN, MATCHES, DECISIONS, REVIEWED, OVERRIDDEN, PRECISION, PROBLEMS = range(10)
_COLUMNS = (RowColumn("Item", "double-click to open the item"), RowColumn("Phenomenon"),
            RowColumn("Rule", "its polarity and place among the item's rules"), RowColumn("Pattern"),
            RowColumn("Matches", "outputs of its item it matches (of all its outputs)", numeric=True),
            RowColumn("Decisions", "automatic pass or fail labels it decided", numeric=True),
            RowColumn("Reviewed", "of its decisions, outputs a reviewer labelled", numeric=True),
            RowColumn("Overridden", "of those, outputs whose reviewer chose another label", numeric=True),
            RowColumn("Precision", "the share of its reviewed decisions reviewers kept", numeric=True),
            RowColumn("Problems"))
PROBLEM_ROLE = Qt.ItemDataRole.UserRole + 2
_POLARITY = {"positive": QColor(LABEL_COLOURS["pass"]), "negative": QColor(LABEL_COLOURS["fail"])}
_PROBLEM = QColor("#B00000")
_NOTE = QColor("#666666")
READ = "rule-health"
COMPILE_READ = "rule-health/compile"


class RuleHealthModel(RowListModel[RuleHealth]):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(_COLUMNS, parent)
        self.report: RuleHealthReport | None = None
        self._order: dict[int, int] = {}
        self._problems: dict[int, list[str]] = {}
        self._sort: tuple[int, Qt.SortOrder] = (ITEM, Qt.SortOrder.AscendingOrder)
        self._fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)

    def set_report(self, report: RuleHealthReport | None) -> None:
        self.report = report
        self._order = {} if report is None else {rule.rule_id: n for n, rule in enumerate(report.rules)}
        self._problems = {}
        self.set_rows([] if report is None else self._sorted(report.rules))

    def problems(self, rule: RuleHealth) -> list[str]:
        """Worded once per rule, when first shown: the words of a suite's 3,718 rules took 1.6 s."""
        if self.report is None:
            return []
        found = self._problems.get(rule.rule_id)
        if found is None:
            found = self._problems[rule.rule_id] = self.report.problems(rule)
        return found

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sorted here, a key per rule, rather than by a sorting proxy: its comparisons asked ``data`` through Qt
        52,890 times for a suite's rules, 2.1 s of the main thread each time a report arrived (issue 28)."""
        self._sort = (column, order)
        if self.report is not None:
            self.set_rows(self._sorted(self.rows()))

    def _sorted(self, rules: list[RuleHealth]) -> list[RuleHealth]:
        column, order = self._sort
        return sorted(rules, key=lambda rule: self._sort_key(rule, column),
                      reverse=order == Qt.SortOrder.DescendingOrder)

    def cell(self, rule: RuleHealth, number: int, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(rule, column)
        if role == PROBLEM_ROLE:
            return bool(self.problems(rule))
        if role == Qt.ItemDataRole.ForegroundRole:
            if column == RULE:
                return _POLARITY[rule.polarity]
            if column == PROBLEMS:
                return _PROBLEM if rule.serious else _NOTE
        if role == Qt.ItemDataRole.FontRole and column == PATTERN:
            return self._fixed
        if role == Qt.ItemDataRole.ToolTipRole and column in (PATTERN, PROBLEMS):
            return "\n".join([rule.pattern + ("  (ignore case)" if rule.ignore_case else ""), *self.problems(rule)])
        return None

    def _text(self, rule: RuleHealth, column: int) -> str:
        if column == ITEM:
            return rule.external_id
        if column == PHENOMENON:
            return rule.phenomenon or ""
        if column == RULE:
            return f"{'+' if rule.polarity == 'positive' else '−'} {rule.number}"
        if column == PATTERN:
            return rule.pattern + ("  (Aa)" if rule.ignore_case else "")
        if column == MATCHES:
            return f"{rule.matches} / {rule.outputs}"
        if column in (DECISIONS, REVIEWED, OVERRIDDEN):
            return str((rule.decisions, rule.reviewed, rule.overridden)[column - DECISIONS])
        if column == PRECISION:
            return "–" if rule.precision is None else f"{rule.precision:.0%}"
        return "; ".join(self.problems(rule))

    def _sort_key(self, rule: RuleHealth, column: int) -> Any:
        """Numbers sort as numbers; a rule without reviews sorts after every precision."""
        if column == MATCHES:
            return rule.matches
        if column in (DECISIONS, REVIEWED, OVERRIDDEN):
            return (rule.decisions, rule.reviewed, rule.overridden)[column - DECISIONS]
        if column == PRECISION:
            return 2.0 if rule.precision is None else rule.precision
        if column == PROBLEMS:  # the serious ones above those that only match nothing
            return 100 * rule.serious + len(self.problems(rule))
        if column == ITEM:
            return self._order.get(rule.rule_id, 0)  # suite order
        return self._text(rule, column)


class _ProblemFilter(QSortFilterProxyModel):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.only_problems = False

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """The rules are sorted by the model (``RuleHealthModel.sort``); this proxy only filters."""
        self.sourceModel().sort(column, order)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        if not self.only_problems:
            return True
        return bool(self.sourceModel().index(source_row, PROBLEMS, source_parent).data(PROBLEM_ROLE))

    def set_only_problems(self, only: bool) -> None:
        self.beginFilterChange()  # Qt 6.9's way to say the rows' filter is about to change
        self.only_problems = only
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)


class RuleHealthPane(QWidget):
    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.ops = ops
        self.selection: Selection | None = None
        self._shown: tuple[str | None, Selection] | None = None  # the suite and selection the table shows
        self._stale = False  # the selection's health is not read yet: it is, once the pane is on screen
        # The scope whose health is shown or being read, of the data as they are: the window's opening asked for
        # the same suite's health three times (the database, the editor's empty page, the selection), three
        # readers checking 3,718 rules while the review queue waited for one (issue 28).
        self._asked: tuple[Database, str | None, Selection] | None = None
        self.model = RuleHealthModel(self)
        self.proxy = _ProblemFilter(self)
        self.proxy.setSourceModel(self.model)
        self.view = row_view(self.proxy, self)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(ITEM, Qt.SortOrder.AscendingOrder)
        header = self.view.horizontalHeader()
        # Fixed widths, the problems taking the rest: sizing columns to their contents measured every one of a
        # suite's 3,718 rules on the main thread, and the window froze for seconds.
        # The problems take what the others leave (at least a share of the table: at 1,280 px the fixed widths
        # left them cut), the phenomenon and pattern giving up width first, and no header is cut.
        widths = {ITEM: 80, PHENOMENON: 140, RULE: 44, PATTERN: 260, MATCHES: 70, DECISIONS: 70, REVIEWED: 70,
                  OVERRIDDEN: 80, PRECISION: 70}
        for column, width in widths.items():
            header.resizeSection(column, width)
        least = {ITEM: 80, PHENOMENON: 64, PATTERN: 120}  # an id is never elided
        self.columns = FittedColumns(self.view, [
            None if column == PROBLEMS else at_least(widths[column], max(least.get(column, 0),
                                                                       header_width(header, column)))
            for column in range(len(_COLUMNS))])
        self.columns.adopt_widths()
        self.view.doubleClicked.connect(self._open)
        self.title = QLabel(self)
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)  # a long suite or category name must not widen the window (issue 16)
        self.summary = QLabel(self)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("color: #666")
        self.only_problems = QCheckBox("only rules with a problem", self)
        self.only_problems.toggled.connect(self._filter)
        self.export = ExportButton("rule health table", self.table, None, self)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.only_problems)
        top.addWidget(self.export)
        layout = pane_layout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.view, 1)
        state.operation_executed.connect(self._changed)
        state.database_changed.connect(self._switched)
        state.suite_changed.connect(self._switched)
        self._to_compile = False  # a suite was opened whose rules are not compiled yet: once the window settles
        ops.idle.connect(self._compile)

    def _compile(self) -> None:
        """Compile the open suite's rules in the background once the window has settled after opening it (its
        tree and first review page shown): the suite's first rule health then counts instead of compiling (on DFKI
        de-en compiling was 4.5 s of a first rule health's 5.7 s, profiled; 0.42 s of CPU is left)."""
        db, suite = self.state.db, self.state.suite_name
        if not self._to_compile or db is None:
            return
        self._to_compile = False
        self.ops.read(lambda task: compile_rules(db, suite, task=task), lambda _: None, key=COMPILE_READ,
                      on_failure=lambda error: isinstance(error, TsqeError))  # rule health will say it too

    def _switched(self) -> None:
        """Another database or suite: the previous one's rules go at once, and a read of them still running is
        dropped (they stayed for 2-6 s on DFKI de-en until the new suite's were read, issue 28)."""
        self._to_compile = self.state.db is not None
        if self._asked is not None and self._asked[:2] == (self.state.db, self.state.suite_name):
            return  # the new suite's are being read already: an opening says the database changed, then the suite
        self.ops.supersede(READ)
        self._asked = None
        self.model.set_report(None)
        self.summary.setText("")
        self.selection = self._shown = None

    def show_for(self, selection: Selection) -> None:
        """Show the health of the rules the selection covers (the whole suite when it names nothing), read when the
        pane is on screen: the editor sets it whenever no item is chosen, also behind Review, and reading a suite's
        3,718 rules takes 1.5 s of CPU that the window's start and the reviewer's tree clicks then waited for."""
        self.selection = selection
        suite = self.state.suite_name
        where = (f"phenomenon <b>{html.escape(selection.phenomenon)}</b>" if selection.phenomenon else
                 f"category <b>{html.escape(selection.category)}</b>" if selection.category else
                 f"suite <b>{html.escape(suite or '')}</b>")
        self.title.setText(f"<span style='font-size:13pt'><b>Rule health</b></span> · {where}")
        self.view.setColumnHidden(PHENOMENON, selection.phenomenon is not None)
        if self.model.report is not None and self._shown != (suite, selection):
            self.model.set_report(None)  # another scope's rules never stand under this title
            self.summary.setText("checking the rules…")
        self._stale = True
        if self.isVisible():
            self._read()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802  (Qt's name)
        super().showEvent(event)
        if self._stale:
            self._read()

    def _read(self) -> None:
        db, suite, selection = self.state.db, self.state.suite_name, self.selection
        if db is None or selection is None:
            return
        self._stale = False
        if self._asked == (db, suite, selection):
            return
        self._asked = (db, suite, selection)
        self._to_compile = False
        self.ops.supersede(COMPILE_READ)  # the health compiles what it needs: not twice at once
        self.summary.setText("checking the rules…")
        category, phenomenon = selection.category, selection.phenomenon
        self.ops.read(lambda task: rule_health(db, suite, category=category, phenomenon=phenomenon, task=task),
                      lambda report: self._ready(report, (suite, selection)), on_failure=self._failed, key=READ)

    def _ready(self, report: RuleHealthReport, shown: tuple[str | None, Selection]) -> None:
        self._shown = shown
        self.model.set_report(report)
        self.summary.setText(report.notes()[0] + " Double-click a rule to open its item; click a column "
                             "to sort.")

    def _failed(self, error: Exception) -> bool:
        self._asked = None
        if not isinstance(error, TsqeError):
            return False
        self.model.set_report(None)
        self.summary.setText(f"no rule health: {error}")
        return True

    def _filter(self, only: bool) -> None:
        self.proxy.set_only_problems(only)

    def _changed(self, changes: Changes) -> None:
        """Rules, labels and reviews are what it counts; it reads them again when one changed (at once while it
        shows, else when it is shown next)."""
        if self.selection is not None and (
                changes.items or changes.labels or changes.reviews or changes.outputs or changes.taxonomy):
            self._stale = True
            self._asked = None  # what is shown or being read counts the rules as they were
            if self.isVisible():
                self._read()

    def shown_rules(self) -> list[RuleHealth]:
        """The rules as the table shows them: filtered and in its order."""
        return [self.model.row(self.proxy.mapToSource(self.proxy.index(row, 0)).row())
                for row in range(self.proxy.rowCount())]

    def table(self) -> Table | None:
        report = self.model.report
        return None if report is None else report.to_table(self.shown_rules())

    def _open(self, index: QModelIndex) -> None:
        rule = self.model.row(self.proxy.mapToSource(index).row())
        self.state.select(Selection(rule.category, rule.phenomenon, rule.item_id))
