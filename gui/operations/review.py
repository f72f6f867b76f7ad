"""A reviewer's decisions as undoable writes (after Anki's ``operations/scheduling.py``).

P, F, U, C and Shift+P/F each become one ``suite.undoable_edits.Decide`` on the rows as the reviewer saw them
(their versions: a decision on a row someone changed since is refused), saved in one transaction, and one step
of the window's undo stack named after what it did ("pass on 00544005 · UEdin").
"""
from __future__ import annotations

from collections.abc import Sequence

from gui.operations.runner import Operations
from gui.operations.undo import EditsWrite, undoable
from gui.state import AppState
from suite.browse import OutputRow
from suite.undoable_edits import Decide, ReviewedOutput, output_name

PROGRESS_ROWS = 50
"""A decision on more rows than this may take a moment: it gets the progress dialog (and its Cancel)."""


def reviewed(row: OutputRow) -> ReviewedOutput:
    return ReviewedOutput(row.output_id, row.item_id, output_name(row.external_id, row.systems), row.text,
                          row.manual_version, row.comment, row.manual_label)


def _write(state: AppState, ops: Operations, rows: Sequence[OutputRow], decision: Decide) -> EditsWrite:
    write = undoable(state, ops, [decision], decision.summary())
    write.progress = len(rows) > PROGRESS_ROWS
    return write


def decide(state: AppState, ops: Operations, rows: Sequence[OutputRow], label: str, *,
           as_known: bool = False) -> EditsWrite:
    """P / F, or with ``as_known`` Shift+P / Shift+F (the outputs also become known translations)."""
    return _write(state, ops, rows, Decide(tuple(map(reviewed, rows)), label, as_known=as_known))


def clear(state: AppState, ops: Operations, rows: Sequence[OutputRow]) -> EditsWrite:
    """U: the automatic label applies again."""
    return _write(state, ops, rows, Decide(tuple(map(reviewed, rows)), None))


def comment(state: AppState, ops: Operations, rows: Sequence[OutputRow], text: str) -> EditsWrite:
    """C: each decision keeps its label and gets the comment (an empty one removes it)."""
    return _write(state, ops, rows, Decide(tuple(map(reviewed, rows)), None, text.strip() or None, commenting=True))
