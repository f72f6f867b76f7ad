"""The pairs behind a cell of the accuracy table, with the words that tell the two outputs apart highlighted.

Reading a pair is comparing two near-identical sentences; marking the differing words (difflib over word
tokens) shows at a glance what the test rule and the QE system had to notice.
"""
from __future__ import annotations

import html

from PySide6.QtWidgets import QTextBrowser, QWidget

from gui.colours import LABEL_COLOURS, NEGATIVE, POSITIVE
from qe.pair_verdicts import PairVerdict
from suite.word_diff import word_diff

SHOWN_PAIRS = 400
"""A row of the DFKI suite has thousands of pairs; the first few hundred say what there is to say."""
VERDICT_COLOURS = {"correct": LABEL_COLOURS["pass"], "wrong": LABEL_COLOURS["fail"],
                   "tie": LABEL_COLOURS["conflict"], "unscored": LABEL_COLOURS["unknown"]}
PASS_TINT = "#c8eadf"  # the pass and fail colours mixed with white: dark text stays readable on them
FAIL_TINT = "#f5d3bf"


def highlighted_diff(passing: str, failing: str) -> tuple[str, str]:
    """Both outputs as HTML, the words only one of them has tinted in its label's colour."""
    left: list[str] = []
    right: list[str] = []
    for run in word_diff(passing, failing):
        if run.equal:
            left.append(html.escape(run.old))
            right.append(html.escape(run.new))
            continue
        left.append(_marked(run.old, PASS_TINT))
        right.append(_marked(run.new, FAIL_TINT))
    return "".join(left), "".join(right)


def _marked(text: str, tint: str) -> str:
    """Tint and underline the changed words, not the spaces around them."""
    core = text.strip()
    if not core:
        return html.escape(text)
    lead, trail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
    return (f'{html.escape(lead)}<span style="background-color:{tint};text-decoration:underline">'
            f"{html.escape(core)}</span>{html.escape(trail)}")


def pairs_html(title: str, pairs: list[PairVerdict]) -> str:
    counts = {v: sum(p.verdict == v for p in pairs) for v in VERDICT_COLOURS}
    summary = " · ".join(f"{v} {n}" for v, n in counts.items() if n)
    rows = []
    for pair in pairs[:SHOWN_PAIRS]:
        passing, failing = highlighted_diff(pair.pass_output, pair.fail_output)
        colour = VERDICT_COLOURS[pair.verdict]
        rows.append(
            f"<tr><td>{html.escape(pair.item_id)}</td><td>{html.escape(pair.source)}</td>"
            f'<td>{passing}<br><small style="color:#666">{html.escape(pair.pass_systems)}</small></td>'
            f'<td>{failing}<br><small style="color:#666">{html.escape(pair.fail_systems)}</small></td>'
            f'<td align="right">{_score(pair.pass_score)}</td><td align="right">{_score(pair.fail_score)}</td>'
            f'<td style="color:{colour}"><b>{pair.verdict}</b></td></tr>')
    more = (f"<p style='color:#666'>showing the first {SHOWN_PAIRS} of {len(pairs):,} pairs</p>"
            if len(pairs) > SHOWN_PAIRS else "")
    return (f"<p><b>{html.escape(title)}</b>: {len(pairs):,} pairs — {summary}</p>"
            '<table cellspacing="0" cellpadding="4" border="1" style="border-collapse:collapse;border-color:#ccc">'
            f'<tr style="background:#f0f0f0"><th>item</th><th>source</th>'
            f'<th style="color:{POSITIVE}">passing output</th><th style="color:{NEGATIVE}">failing output</th>'
            "<th>score pass</th><th>score fail</th><th>verdict</th></tr>"
            + "".join(rows) + "</table>" + more)


def _score(value: float | None) -> str:
    return "–" if value is None else f"{value:.4g}"


class PairsView(QTextBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pairs: list[PairVerdict] = []
        self.setOpenLinks(False)
        self.show_hint()

    def show_hint(self) -> None:
        self.pairs = []
        self.setHtml("<p style='color:#666'>Click an accuracy cell to read its pairs: source, passing and failing "
                     "output with their differences marked, both QE scores and the verdict.</p>")

    def show_pairs(self, title: str, pairs: list[PairVerdict]) -> None:
        self.pairs = pairs
        self.setHtml(pairs_html(title, pairs))
