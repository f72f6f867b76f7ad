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
        self.counts_label = QLabel(self)
        self.review_label = QLabel(self)
        self.review_label.linkActivated.connect(lambda _: self.show_reviewers())
        self.reviewers_view = ReviewersView(self.state, self.ops, self._show_review_page, self)
        self.job_label = ElidedLabel("", self)
        self.job_label.setMaximumWidth(360)
        self.job_bar = QProgressBar(self)
        self.job_bar.setMaximumWidth(140)
        self.job_bar.setRange(0, 1000)
        self.job_bar.hide()
        status = self.statusBar()
        status.addPermanentWidget(self.counts_label)
        status.addPermanentWidget(self.review_label)
        status.addPermanentWidget(self.job_label)
        status.addPermanentWidget(self.job_bar)
        self.ops.message.connect(status.showMessage)  # stays until the next one: what the last job did
        self.ops.progressed.connect(self._job_progress)
        self.ops.busy_changed.connect(self._job_busy)
        self.state.tree_loaded.connect(self._show_counts)

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
        self.job_label.setText(f" │ {title}…")  # plain text: a quote in a name is a quote, not &#x27;
        self.job_bar.setVisible(fraction >= 0)
        if fraction >= 0:
            self.job_bar.setValue(round(fraction * 1000))

    def _job_busy(self, busy: bool) -> None:
        if not busy:
            self.job_label.clear()
            self.job_bar.hide()
