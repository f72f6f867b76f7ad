"""What the Discriminative tab's correlation pane uses of the tab, declared once for mypy.

At run time ``DiscriminativeSurface`` is ``object`` and the pane is a plain mixin of
``gui.reports.discriminative.DiscriminativeTab``, which builds every attribute named here; for mypy it is a
``ReportTab`` with them, so the pane is checked.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox, QLineEdit, QListWidget, QSpinBox, QTableView

    from filters.correlation_table import CorrelationTable
    from gui.elided_label import ElidedLabel
    from gui.reports.tab import ReportTab
    from gui.reports.table_model import TableModel
    from suite.references import ReferenceChoices

    class DiscriminativeSurface(ReportTab):
        correlation: CorrelationTable | None
        choices: ReferenceChoices | None
        correlation_metrics: QListWidget
        correlation_refs: QListWidget
        correlation_status: ElidedLabel
        correlation_model: TableModel
        correlation_view: QTableView
        joined_refs: QLineEdit
        refs_choice: QComboBox
        top: QSpinBox

        def rank(self, *, asked: bool = True) -> None: ...
else:
    DiscriminativeSurface = object
