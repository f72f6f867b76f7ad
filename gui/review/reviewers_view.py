"""The status bar's review view: how far the team's reviewers agree and how they do on controls, opened by a click
on the status bar's review counts.

It shows what ``tsqe reviewers agreement`` and ``tsqe reviewers controls`` print (Cohen's kappa, raw agreement and
counts per reviewer pair and category; each reviewer's accuracy on control outputs), with the way to the Review
tab's assignments and disagreements pages, and a plan of double review and controls for a lead to make.
"""
from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QPushButton,
    QSpinBox,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from gui.operations import Operations
from gui.operations import review as review_ops
from gui.state import AppState
from store import Database
from suite.assist.agreement import Agreement, reviewer_agreement
from suite.assist.controls import ControlAccuracy, control_accuracy
from suite.tables import NO_CATEGORY


@dataclass(frozen=True)
class TeamReport:
    agreement: Agreement
    controls: list[ControlAccuracy]


def team_report(db: Database, suite: str) -> TeamReport:
    return TeamReport(reviewer_agreement(db, suite_name=suite), control_accuracy(db, suite_name=suite))


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def report_html(report: TeamReport) -> str:
    agreement = report.agreement
    head = "<tr>" + "".join(f"<th align='left'>{h}</th>" for h in (
        "reviewers", "category", "outputs", "agreed", "agreement", "κ", "AC1")) + "</tr>"
    rows = []
    notes = []
    for row in agreement.rows:
        weight = "font-weight:bold;" if row.overall else ""
        kappa = "–" if row.kappa is None else f"{row.kappa:.2f}"
        note = row.kappa_note()
        if note is not None:
            kappa += "*"
            if (line := f"{' · '.join(row.reviewers)}: {note}") not in notes:
                notes.append(line)  # a category's row may be one-sided where the pair's overall row is not
        ac1 = "–" if row.ac1 is None else f"{row.ac1:.2f}"
        rows.append(f"<tr style='{weight}'><td>{html.escape(' · '.join(row.reviewers)) if row.overall else ''}</td>"
                    f"<td>{'all categories' if row.overall else html.escape(row.category or NO_CATEGORY)}</td>"
                    f"<td align='right'>{row.compared:,}</td><td align='right'>{row.agreed:,}</td>"
                    f"<td align='right'>{_percent(row.raw)}</td><td align='right'>{kappa}</td>"
                    f"<td align='right'>{ac1}</td></tr>")
    parts = ["<h3 style='margin:2px 0'>Agreement of reviewers</h3>",
             f"<p>{agreement.answered:,} of {agreement.planned:,} planned double reviews answered · "
             f"{agreement.open_disagreements:,} disagreements to adjudicate · {agreement.adjudicated:,} "
             "adjudicated</p>"]
    if rows:
        parts.append(f"<table cellspacing='0' cellpadding='3'>{head}{''.join(rows)}</table>")
        parts.append("<p style='color:#555555'>κ: Cohen's kappa; AC1: Gwet's AC1, which stays meaningful when one "
                     "label dominates." + "".join(f"<br>* {html.escape(note)}" for note in notes) + "</p>")
    elif not agreement.planned:
        parts.append("<p style='color:#777777'>No double review is planned: plan one to have a share of each "
                     "category's reviewed outputs decided again, blind, by a second reviewer.</p>")
    parts.append("<h3 style='margin:10px 0 2px 0'>Accuracy on control outputs</h3>")
    if report.controls:
        parts.append("<table cellspacing='0' cellpadding='3'><tr><th align='left'>reviewer</th>"
                     "<th align='left'>answered</th><th align='left'>right</th><th align='left'>accuracy</th>"
                     "<th align='left'>on good</th><th align='left'>on bad</th></tr>" + "".join(
                         f"<tr><td>{html.escape(c.reviewer)}</td><td align='right'>{c.answered:,}</td>"
                         f"<td align='right'>{c.right:,}</td><td align='right'>{_percent(c.accuracy)}</td>"
                         f"<td align='right'>{_percent(c.good_right / c.good if c.good else None)}</td>"
                         f"<td align='right'>{_percent(c.bad_right / c.bad if c.bad else None)}</td></tr>"
                         for c in report.controls) + "</table>")
    else:
        parts.append("<p style='color:#777777'>No control answered yet: known good and bad translations are mixed "
                     "unmarked into reviewers' assignments when the plan asks for controls.</p>")
    return "".join(parts)


class PlanDialog(QDialog):
    """The shares and seed of a plan of double review and controls."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("tsqe — plan double review")
        self.share = QDoubleSpinBox(self)
        self.share.setRange(1, 100)
        self.share.setValue(10)
        self.share.setSuffix(" %")
        self.controls = QDoubleSpinBox(self)
        self.controls.setRange(0, 90)
        self.controls.setValue(10)
        self.controls.setSuffix(" %")
        self.seed = QSpinBox(self)
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(1)
        form = QFormLayout(self)
        form.addRow("reviewed outputs decided again, per category", self.share)
        form.addRow("controls among each reviewer's assignments", self.controls)
        form.addRow("seed", self.seed)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class ReviewersView(QFrame):
    """A popup under the status bar's review counts."""

    def __init__(self, state: AppState, ops: Operations, show_page: Callable[[str], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self._state = state
        self._ops = ops
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.browser = QTextBrowser(self)
        self.browser.setMinimumSize(560, 300)
        self.assignments_button = QPushButton("My assignments", self)
        self.disagreements_button = QPushButton("Disagreements", self)
        self.plan_button = QPushButton("Plan double review…", self)
        self._show_page = show_page
        self.assignments_button.clicked.connect(lambda: self._go("assignments"))
        self.disagreements_button.clicked.connect(lambda: self._go("disagreements"))
        self.plan_button.clicked.connect(self.plan)
        buttons = QHBoxLayout()
        buttons.addWidget(self.assignments_button)
        buttons.addWidget(self.disagreements_button)
        buttons.addStretch(1)
        buttons.addWidget(self.plan_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addLayout(buttons)
        self.report: TeamReport | None = None

    def _go(self, page: str) -> None:
        self.hide()
        self._show_page(page)

    def open_at(self, corner: QPoint) -> None:
        """Show it with its bottom right corner at ``corner`` (global), and read the report."""
        self.adjustSize()
        self.move(corner - QPoint(self.width(), self.height()))
        self.show()
        self.reload()

    def reload(self) -> None:
        db, suite = self._state.db, self._state.suite_name
        if db is None or suite is None:
            return
        self._ops.read(lambda task: team_report(db, suite), self._arrived, key="reviewers-view")

    def _arrived(self, report: TeamReport) -> None:
        self.report = report
        self.browser.setHtml(report_html(report))
        self.disagreements_button.setText(f"Disagreements ({report.agreement.open_disagreements:,})")

    def plan(self) -> None:
        db, suite = self._state.db, self._state.suite_name
        if db is None or suite is None:
            return
        dialog = PlanDialog(self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        review_ops.plan(self._state, db, suite, dialog.share.value() / 100, dialog.controls.value() / 100,
                        dialog.seed.value()).success(lambda _: self.reload()).run(self._ops)
