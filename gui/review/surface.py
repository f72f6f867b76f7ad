"""What the Review screen's parts (the filter bar, the decisions) use of the screen, declared once for mypy.

At run time ``ReviewSurface`` is ``object`` and the parts are plain mixins of ``gui.review.screen.ReviewScreen``,
which builds every attribute named here; for mypy it is a ``QWidget`` with them, so each part is checked.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QWidget

    from gui.operations import Operations
    from gui.review.adjudication import AdjudicationPage
    from gui.review.assignments import AssignmentsPage
    from gui.review.model import ReviewModel
    from gui.review.table import ReviewTable
    from gui.state import AppState
    from suite.reading.browse import OutputFilter, OutputRow

    class ReviewSurface(QWidget):
        _state: AppState
        _ops: Operations
        _scope: OutputFilter
        _actions: list[QAction]
        model: ReviewModel
        table: ReviewTable
        assignments: AssignmentsPage
        adjudication: AdjudicationPage

        def page(self) -> str: ...
        def show_page(self, name: str) -> None: ...
        def current_row(self) -> int: ...
        def set_current_row(self, row: int) -> None: ...
        def selected_rows(self) -> list[OutputRow]: ...
        def _advance(self, decided: set[int]) -> None: ...
        def _move(self, step: int) -> None: ...
        def clear_filter(self) -> None: ...
else:
    ReviewSurface = object
