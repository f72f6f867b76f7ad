"""The QE tab's Adversarial validation page: can a classifier tell the database's suites apart (Xiang et al. 2022,
§4.2 and Table 5; ``filters.adversarial``, as ``tsqe adversarial``)?

Beside the Disagreement page because both ask whether what one set of items says carries over to another: that
page between the rows of one suite, this one between suites. The matrix is the core's table, its cells shaded
from white (50 %, chance) to dark blue (100 %) with the heat map's colours; the Export menu saves the figure
``tsqe adversarial --heat-map`` draws. Training the classifiers takes seconds a pair of suites, so it runs in the
background when asked (the Run button), never on every change of a control.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from filters.adversarial import AdversarialOptions, AdversarialValidation, adversarial_validation
from gui.elided_label import ElidedLabel
from gui.operations import Operations
from gui.reports.export import ExportButton
from gui.reports.tab import note_label, with_notes
from gui.reports.table_model import TableModel, report_view
from gui.state import AppState
from suite.errors import TsqeError
from suite.figures import count_colours
from suite.reading.names import suite_names
from suite.tables import Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_Index = QModelIndex | QPersistentModelIndex
SUITES_READ, ADVERSARIAL_READ = "reports/qe/adversarial-suites", "reports/qe/adversarial"


class SeparationModel(TableModel):
    """The accuracy matrix, each cell shaded by how far above chance it is."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.values: np.ndarray | None = None

    def set_validation(self, validation: AdversarialValidation | None) -> None:
        self.values = None if validation is None else validation.matrix()[1]
        self.set_table(None if validation is None else validation.to_table())

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        values = self.values
        column = index.column() - 1  # the first column names the suite
        if values is None or not index.isValid() or column < 0 or np.isnan(values[index.row(), column]):
            return super().data(index, role)
        share = float(np.clip((values[index.row(), column] - 0.5) / 0.5, 0.0, 1.0))
        if role == Qt.ItemDataRole.BackgroundRole:
            red, green, blue, _ = count_colours()(share)
            return QColor.fromRgbF(red, green, blue)
        if role == Qt.ItemDataRole.ForegroundRole:
            return QColor("white") if share > 0.6 else QColor("#1a1a1a")
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignCenter)
        return super().data(index, role)


class AdversarialPage(QWidget):
    """The suites to compare on the left, the matrix and its notes on the right."""

    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state, self._ops = state, ops
        self.validation: AdversarialValidation | None = None
        self.suites = QListWidget()
        self.suites.setToolTip("The suites to tell apart, every pair of them and each with itself (two halves)")
        self.with_outputs = QCheckBox("with outputs")
        self.with_outputs.setToolTip("Each example is the item's source and one of its outputs (Table 5b), "
                                     "else the source alone (Table 5a)")
        self.seeds = QSpinBox()
        self.seeds.setRange(1, 100)
        self.seeds.setValue(5)
        self.seeds.setPrefix("seeds ")
        self.run = QPushButton("Run")
        self.run.setToolTip("Train the classifiers (seconds a pair of suites) in the background")
        self.run.clicked.connect(self.compute)
        self.status = ElidedLabel()
        self.status.setStyleSheet("color: #555")
        self.export = ExportButton("adversarial validation table", self.table, self.figure, self,
                                   document=self.document)
        controls = QHBoxLayout()
        question = ElidedLabel("Can a classifier tell the suites apart? 50 % is chance.")
        controls.addWidget(question, 1)
        for widget in (self.with_outputs, self.seeds, self.run, self.status, self.export):
            controls.addWidget(widget)
        self.model = SeparationModel(self)
        self.view = report_view(self.model)
        self.notes = note_label()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.suites)
        self.splitter.addWidget(with_notes(self.view, self.notes))
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([220, 900])
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.splitter, 1)

    def table(self) -> Table | None:
        return self.model.table

    def figure(self) -> Figure | None:
        return None if self.validation is None else self.validation.heat_map()

    def document(self) -> str | None:
        return None if self.validation is None else self.validation.to_json() + "\n"

    def refresh(self) -> None:
        """List the database's suites, the open one checked (kept checks survive a refresh)."""
        db = self._state.db
        if db is not None:
            self._ops.read(lambda task: suite_names(db), self._suites_loaded, key=SUITES_READ)

    def checked(self) -> list[str]:
        return [self.suites.item(i).text() for i in range(self.suites.count())
                if self.suites.item(i).checkState() == Qt.CheckState.Checked]

    def set_checked(self, names: list[str]) -> None:
        for i in range(self.suites.count()):
            item = self.suites.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked)

    def options(self) -> AdversarialOptions:
        return AdversarialOptions(tuple(self.checked()), self.with_outputs.isChecked(), self.seeds.value())

    def compute(self) -> None:
        db = self._state.db
        if db is None:
            return
        options = self.options()
        self.status.setText("training the classifiers…")
        self._ops.read(lambda task: adversarial_validation(db, options, task), self.show_validation,
                       key=ADVERSARIAL_READ, on_failure=self._failed)

    def show_validation(self, validation: AdversarialValidation) -> None:
        self.validation = validation
        self.model.set_validation(validation)
        self.view.resizeColumnsToContents()
        table = self.model.table
        self.notes.setText("  ".join(table.display_notes()) if table is not None else "")
        pairs = len(validation.separations)
        self.status.setText(f"{pairs} pair{'s' if pairs != 1 else ''} of suites, {validation.options.seeds} seeds")

    def reset(self) -> None:
        """Another database: its suites are listed when the page is next shown, nothing computed is kept."""
        self.suites.clear()
        self.validation = None
        self.model.set_validation(None)
        self.notes.setText("")
        self.status.setText("")

    def _suites_loaded(self, names: list[str]) -> None:
        before = set(self.checked()) if self.suites.count() else {self._state.suite_name}
        self.suites.clear()
        for name in names:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in before else Qt.CheckState.Unchecked)
            self.suites.addItem(item)
        if not self.checked() and names:
            self.suites.item(0).setCheckState(Qt.CheckState.Checked)

    def _failed(self, error: Exception) -> bool:
        if not isinstance(error, TsqeError):
            return False
        self.validation = None
        self.model.set_validation(None)
        self.notes.setText("")
        self.status.setText(str(error))
        return True
