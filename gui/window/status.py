"""The status bar: the suite's label counts, the review counts (a link to the reviewers' view), the running
job with its progress, and the last message.
"""
from __future__ import annotations

from PySide6.QtWidgets import (
    QLabel,
    QProgressBar,
)

from gui.colours import LABEL_COLOURS
from gui.elided_label import ElidedLabel
from gui.review.reviewers_view import ReviewersView
from gui.window.surface import WindowSurface
from suite.engine.label_counts import LabelCounts

MESSAGE_MS = 10_000
"""How long a message stays: long enough to read twice, short enough not to be taken for the state of things."""
JOB_BAR_WIDTH = 120


def counts_html(counts: LabelCounts) -> str:
    words = [("pass", counts.passed), ("fail", counts.failed), ("conflict", counts.conflict),
             ("unknown", counts.unknown), ("error", counts.error)]
    parts = [f'<span style="color:{LABEL_COLOURS[w]}"><b>{w}</b></span> {n:,}' for w, n in words]
    if counts.unlabelled:
        parts.append(f"not labelled {counts.unlabelled:,}")
    return " · ".join(parts)


class WindowStatus(WindowSurface):
    """The status bar's widgets and what they show."""

    def _build_status(self) -> None:
        """The job line and its bar on the left, where messages show (a message covers them, and a job's last
        message replaces its line when it ends); the counts on the right. The bar keeps its room while hidden,
        so nothing moves as a job's phases come and go."""
        self.counts_label = QLabel(self)
        self.review_label = QLabel(self)
        self.review_label.linkActivated.connect(lambda _: self.show_reviewers())
        self.reviewers_view = ReviewersView(self.state, self.ops, self._show_review_page, self)
        self.job_label = ElidedLabel("", self)
        self.job_bar = QProgressBar(self)
        self.job_bar.setFixedWidth(JOB_BAR_WIDTH)
        self.job_bar.setRange(0, 1000)
        policy = self.job_bar.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.job_bar.setSizePolicy(policy)
        self.job_bar.hide()
        self._job_title: str | None = None
        status = self.statusBar()
        status.addWidget(self.job_label, 1)
        status.addWidget(self.job_bar)
        status.addPermanentWidget(self.counts_label)
        status.addPermanentWidget(self.review_label)
        self.ops.message.connect(self.show_message)
        self.ops.progressed.connect(self._job_progress)
        self.ops.busy_changed.connect(self._job_busy)
        self.state.tree_loaded.connect(self._show_counts)

    def show_message(self, text: str) -> None:
        """What a job did or a screen says, for ``MESSAGE_MS``; its whole text stays the status bar's tooltip
        (a long one is cut at the bar's end). Messages used to stay until the next: "opening dfki.sqlite: 1 suite"
        was still there an hour later."""
        status = self.statusBar()
        status.showMessage(text, MESSAGE_MS)
        status.setToolTip(text)

    def _show_counts(self) -> None:
        tree = self.state.tree
        if tree is None:
            self.counts_label.clear()
            self.review_label.clear()
            return
        counts = tree.counts
        self.counts_label.setText(counts_html(counts))
        self.review_label.setText(f" │ <a href='reviewers'>reviewed {counts.reviewed:,} · {counts.undecided:,} "
                                  "undecided</a> ")
        self.review_label.setToolTip("reviewed: outputs with a manual label; undecided: outputs whose label is "
                                     "still unknown, conflict or error — what needs a reviewer. Click: how far "
                                     "reviewers agree, their accuracy on controls, double review")

    def show_reviewers(self) -> None:
        """The status bar's review view, above the review counts."""
        label = self.review_label
        self.reviewers_view.open_at(label.mapToGlobal(label.rect().topRight()))

    def _show_review_page(self, page: str) -> None:
        self.tabs.setCurrentWidget(self.review)
        self.review.show_page(page)

    def _job_progress(self, title: str, fraction: float) -> None:
        """The running job's line: a new job takes the line from the last one's message."""
        if title != self._job_title:
            self._job_title = title
            self.statusBar().clearMessage()
        text = f"{title}…"  # plain text: a quote in a name is a quote, not &#x27;
        self.job_label.setText(text)
        self.job_label.setToolTip(text)
        self.job_bar.setVisible(fraction >= 0)
        if fraction >= 0:
            self.job_bar.setValue(round(fraction * 1000))

    def _job_busy(self, busy: bool) -> None:
        if not busy:
            self._job_title = None
            self.job_label.clear()
            self.job_label.setToolTip("")
            self.job_bar.hide()
