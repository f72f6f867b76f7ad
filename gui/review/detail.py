"""The detail panel beside the review table: what a reviewer needs to decide one output.

Source, references and known translations; how the output differs from the closest of them (word by word,
so a reviewer sees at once the one word that changed); and why it got its automatic label. Everything is
read in the background from ``suite.editing.item_detail`` and ``suite.editing.review.explain``.
"""
from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from gui.colours import LABEL_COLOURS, NEGATIVE, POSITIVE
from gui.operations import Operations
from gui.review.columns import initials
from gui.review.error_marks import errors_html
from gui.state import AppState
from suite.assist.hints import RowHints
from suite.editing.item_detail import ItemDetail, item_detail, nearest_translation
from suite.editing.review import Explanation, explain
from suite.engine.rules import Span
from suite.reading.browse import OutputRow
from suite.reading.error_spans import SystemErrors, output_errors
from suite.word_diff import word_diff

INSERTED = "#56B4E9"  # Okabe–Ito sky blue: not a label colour, so a difference never reads as pass or fail


@dataclass(frozen=True)
class Detail:
    row: OutputRow
    item: ItemDetail
    explanation: Explanation
    hints: RowHints | None = None
    errors: tuple[SystemErrors, ...] = ()
    """The output's annotated errors (MQM, ESA), per system that has some."""


def load_detail(state: AppState, row: OutputRow, hints: RowHints | None = None) -> Detail:
    assert state.db is not None
    item, why = item_detail(state.db, row.item_id), explain(state.db, row.output_id)
    errors = output_errors(state.db, state.suite_name, item.external_id, row.systems, why.text, item.source)
    return Detail(row, item, why, hints, tuple(errors))


def diff_html(output: str, other: str) -> str:
    """The output against another translation: its extra words tinted, missing ones struck."""
    parts: list[str] = []
    for run in word_diff(other, output):
        if run.equal:
            parts.append(html.escape(run.new))
            continue
        if run.old.strip():
            parts.append(f'<s style="color:#777777">{html.escape(run.old)}</s>')
            if run.new.strip():
                parts.append(" ")  # between what was struck and what replaced it, as in running text
        if run.new.strip():
            parts.append(f'<span style="background:{INSERTED}">{html.escape(run.new)}</span>')
        elif run.new:
            parts.append(html.escape(run.new))
    return "".join(parts)


def spans_html(text: str, spans: Sequence[Span]) -> str:
    out: list[str] = []
    at = 0
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if span.start < at:
            continue  # overlapping matches: the first one shown is enough to see why
        colour = POSITIVE if span.polarity == "positive" else NEGATIVE
        out.append(html.escape(text[at:span.start]))
        out.append(f'<u style="text-decoration-color:{colour}; color:{colour}"><b>'
                   f"{html.escape(text[span.start:span.end])}</b></u>")
        at = span.end
    out.append(html.escape(text[at:]))
    return "".join(out)


def label_html(label: str | None) -> str:
    if label is None:
        return "not labelled"
    return f'<b style="color:{LABEL_COLOURS.get(label, "#000000")}">{html.escape(label)}</b>'


def detail_html(detail: Detail) -> str:
    row, item, why = detail.row, detail.item, detail.explanation
    section = '<h4 style="margin:8px 0 2px 0">{}</h4>'
    parts = [(f"<p><b>{html.escape(item.external_id)}</b> · {html.escape(item.category or '')} › "
             f"{html.escape(item.phenomenon or '')}</p>"),
             section.format("Source"), f"<p>{html.escape(item.source)}</p>",
             section.format("Output"), f"<p>{spans_html(why.text, why.spans)}</p>",
             f"<p>systems: {html.escape(', '.join(row.systems))}</p>", *errors_html(detail.errors, section)]
    parts.append(section.format("Label"))
    stored = label_html(why.stored)
    parts.append(f"<p>automatic: {stored} — {html.escape(why.stored_decided_by or 'not labelled yet')}</p>")
    if why.stored is not None and why.decision.label != why.stored:
        parts.append(f"<p>with the rules as they are now: {label_html(why.decision.label)} — "
                     f"{html.escape(why.decision.decided_by)} (label the suite again to store it)</p>")
    if row.manual_label:
        parts.append(f"<p>manual: {label_html(row.manual_label)} by {html.escape(row.reviewer or '')} "
                     f"({html.escape(initials(row.reviewer))})"
                     + (f" — “{html.escape(row.comment)}”" if row.comment else "") + "</p>")
    parts += hints_html(detail.hints, why.text)
    nearest = nearest_translation(item, why.text)
    if nearest is not None and nearest.identical:
        parts.append(f"<p>identical to a {html.escape(nearest.what)}</p>")
    elif nearest is not None:
        parts.append(section.format(f"Difference from the closest {html.escape(nearest.what)}"))
        parts.append(f"<p>{diff_html(why.text, nearest.text)}</p>")
    if item.references:
        parts.append(section.format("References"))
        parts += [f"<p>{html.escape(r.text)}</p>" for r in item.references]
    if item.known:
        parts.append(section.format("Known translations"))
        parts += [f"<p>{label_html('pass' if k.kind == 'good' else 'fail')} {html.escape(k.text)}</p>"
                  for k in item.known]
    if item.rules:
        parts.append(section.format("Rules"))
        parts += [f'<p><span style="color:{POSITIVE if r.spec.polarity == "positive" else NEGATIVE}">'
                  f"{'+' if r.spec.polarity == 'positive' else '−'}{r.position + 1}</span> "  # as the editor numbers
                  f"<code>{html.escape(r.spec.pattern)}</code>"
                  + ("" if r.problem is None else f" — {html.escape(r.problem)}") + "</p>"
                  for r in item.rules]
    return "".join(parts)


def hints_html(hints: RowHints | None, text: str) -> list[str]:
    """The outputs decided with this one (its group), and its neighbour: the suggestion, or why there is none."""
    if hints is None:
        return []
    section = '<h4 style="margin:8px 0 2px 0">{}</h4>'
    parts = []
    if hints.group is not None and hints.group.size > 1:
        parts.append(section.format(f"Decided with it: {hints.group.size - 1} alike"))
        parts += [f"<p>{diff_html(member.text, text)} <span style='color:#777777'>· "
                  f"{html.escape(', '.join(member.systems))}"
                  + (f" · {html.escape(member.manual_label)} by {html.escape(member.reviewer or '')}"
                     if member.manual_label else "") + "</span></p>" for member in hints.group.others]
    near = hints.neighbour
    if near is not None:
        like = near.suggestion or near.nearest
        title = f"Suggestion: {near.label} (Enter accepts it)" if near.label else "Nearest decided output"
        parts.append(section.format(html.escape(title)))
        parts.append(f"<p>{'like' if near.label else 'nearest'} #{like.output_id} ({label_html(like.label)}): "
                     f"{diff_html(text, like.text)}</p>")
        if near.label is None:
            parts.append(f"<p style='color:#777777'>not suggested: {html.escape(near.why_not or '')}</p>")
    if hints.pairs is not None and hints.pairs.text():
        parts.append(f"<p>a decision adds pass/fail pairs: {html.escape(hints.pairs.text())}</p>")
    return parts


class DetailPanel(QWidget):
    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None, *,
                 key: str = "review-detail") -> None:
        """``key``: this panel's background reads, so that a newer read of another panel (the queue's, beside the
        Disagreements page's) does not make its own moot."""
        super().__init__(parent)
        self._state = state
        self._ops = ops
        self._key = key
        self.browser = QTextBrowser(self)
        self.browser.setOpenLinks(False)
        self.browser.setMinimumWidth(220)
        self.browser.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.browser)
        self.current: Detail | None = None
        self.row: OutputRow | None = None  # the row asked for last; ``current`` is that row's once it arrived
        self.hints: RowHints | None = None
        self.show_row(None)

    def show_row(self, row: OutputRow | None, hints: RowHints | None = None) -> None:
        self.row, self.hints = row, hints
        if row is None or self._state.db is None:
            self.current = None
            self.browser.setHtml("<p style='color:#777777'>Select an output to see its source, references, "
                                 "known translations and why it got its label.</p>")
            return
        state = self._state
        self._ops.read(lambda task: load_detail(state, row, hints), self._loaded, key=self._key)

    def reload(self) -> None:
        """Read the row's item again: its rules, references or known translations changed."""
        self.show_row(self.row, self.hints)

    def _loaded(self, detail: Detail) -> None:
        self.current = detail
        self.browser.setHtml(detail_html(detail))
