"""A segment's annotated errors (MQM, ESA) beside its output in Review's detail panel: the pieces the core cut
(``suite.reading.error_spans``) painted by their worst severity, each with a tooltip naming its errors' severity,
category and rater; errors that mark no span (omissions) and those marked in the source are listed under it.

Colours: a major error in vermillion, the fail colour (an MQM major error weighs 5, a failed translation's worth),
a minor one in Okabe–Ito yellow, which no label uses; the severity is also written in every tooltip and in the list
(gui.md: colour is never the only signal)."""
from __future__ import annotations

import html
from collections.abc import Sequence

from gui.colours import NEGATIVE
from store.domain import ErrorSeverity
from suite.reading.error_spans import ErrorSpan, Piece, SystemErrors

SEVERITY_STYLES = {ErrorSeverity.MAJOR: f"background:{NEGATIVE}; color:#FFFFFF",
                   ErrorSeverity.MINOR: "background:#F0E442; color:#000000"}


def error_words(error: ErrorSpan) -> str:
    """``major · Accuracy/Mistranslation · rater1 (mqm)``."""
    rater = f" · {error.rater}" if error.rater else ""
    return f"{error.severity} · {error.category}{rater} ({error.kind})"


def pieces_html(pieces: Sequence[Piece], errors: Sequence[ErrorSpan]) -> str:
    out = []
    for piece in pieces:
        text = html.escape(piece.text)
        if piece.severity is None:
            out.append(text)
            continue
        tip = html.escape("\n".join(error_words(errors[k]) for k in piece.errors), quote=True)
        out.append(f'<span style="{SEVERITY_STYLES[piece.severity]}" title="{tip}">{text}</span>')
    return "".join(out)


def errors_html(found: Sequence[SystemErrors], section: str) -> list[str]:
    """The section of the output's annotated errors, per system that has some; none without errors."""
    if not found:
        return []
    parts = [section.format("Annotated errors")]
    for system in found:
        errors = system.errors
        parts.append(f"<p><b>{html.escape(system.system)}</b>: {pieces_html(errors.output, errors.errors)}</p>")
        in_source = [k for piece in errors.source for k in piece.errors]
        if in_source:
            parts.append(f"<p style='color:#555555'>in the source: {pieces_html(errors.source, errors.errors)}</p>")
        listed = [error_words(errors.errors[k]) for k in errors.unplaced]
        parts += [f"<p style='color:#555555'>no span: {html.escape(words)}</p>" for words in listed]
    return parts
