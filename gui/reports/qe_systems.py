"""The QE accuracy tab's upper pane: the database's QE systems (checked ones are compared) and what can be done
with them: import scores, train, predict, store a metric as QE, remove; each a background write with progress.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
)

from gui.operations import qe as qe_ops
from gui.reports.qe_dialogs import (
    ImportScoresDialog,
    MetricDialog,
    MetricRequest,
    TrainDialog,
    TrainRequest,
)
from gui.reports.qe_surface import QESurface
from gui.reports.table_model import report_view
from gui.review.column_fit import FittedColumns
from gui.row_table_model import SELECTABLE, ModelIndex, RowColumn, RowListModel
from suite.qe_scores import QESystemInfo

if TYPE_CHECKING:
    pass

class QESystemsModel(RowListModel[QESystemInfo]):
    """The database's QE systems; the check box says whether a system takes part in the table."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__((RowColumn("QE system", flags=SELECTABLE | Qt.ItemFlag.ItemIsUserCheckable),
                          RowColumn("kind"), RowColumn("direction"), RowColumn("scores", numeric=True)), parent)
        self._unchecked: set[str] = set()

    @property
    def systems(self) -> list[QESystemInfo]:
        return self.rows()

    def set_systems(self, systems: list[QESystemInfo]) -> None:
        self.set_rows(sorted(systems, key=lambda s: s.id))  # creation order, as the CLI's default columns

    def checked(self) -> list[str]:
        return [s.name for s in self.systems if s.name not in self._unchecked]

    def set_checked(self, names: list[str]) -> None:
        self._unchecked = {s.name for s in self.systems if s.name not in names}
        if self.systems:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.systems) - 1, 0))

    def cell(self, row: QESystemInfo, number: int, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return (row.name, row.kind, row.direction, f"{row.scores:,}")[column]
        if role == Qt.ItemDataRole.CheckStateRole and column == 0:
            return Qt.CheckState.Unchecked if row.name in self._unchecked else Qt.CheckState.Checked
        if role == Qt.ItemDataRole.ToolTipRole:
            return ", ".join(f"{k}: {v}" for k, v in row.meta.items()) or row.kind
        return None

    def setData(self, index: ModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.CheckStateRole or index.column() != 0:
            return False
        name = self.systems[index.row()].name
        if Qt.CheckState(value) == Qt.CheckState.Checked:
            self._unchecked.discard(name)
        else:
            self._unchecked.add(name)
        self.dataChanged.emit(index, index)
        return True


class QESystemsPane(QESurface):
    """The QE systems' list, its buttons and the writes they start."""

    def _build_systems(self) -> QGroupBox:
        self.systems_model = QESystemsModel(self)
        self.systems_view = report_view(self.systems_model, whole_rows=True)
        self.systems_columns = FittedColumns.of_contents(self.systems_view)
        self.import_button = QPushButton("Import scores…")
        self.train_button = QPushButton("Train…")
        self.predict_button = QPushButton("Predict")
        self.metric_button = QPushButton("Metric as QE…")
        self.remove_button = QPushButton("Remove")
        self.predict_button.setToolTip("Score every output of the suite with the selected trained QE system")
        self.metric_button.setToolTip("Store a reference-based metric (chrF, BLEU, TER) as a QE proxy")
        buttons = QHBoxLayout()
        for button in (self.import_button, self.train_button, self.predict_button, self.metric_button,
                       self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        systems_box = QGroupBox("QE systems (checked ones are compared)")
        systems_layout = QVBoxLayout(systems_box)
        systems_layout.addWidget(self.systems_view)
        systems_layout.addLayout(buttons)

        self.import_button.clicked.connect(self._import_scores)
        self.train_button.clicked.connect(self._train)
        self.predict_button.clicked.connect(self._predict)
        self.metric_button.clicked.connect(self._metric)
        self.remove_button.clicked.connect(self._remove)
        return systems_box

    def _selected_system(self) -> QESystemInfo | None:
        rows = self.systems_view.selectionModel().selectedRows()
        return self.systems_model.systems[rows[0].row()] if rows else None

    def _import_scores(self) -> None:
        dialog = ImportScoresDialog(self)
        dialog.accepted.connect(lambda: self.import_scores(**vars(dialog.request())))
        dialog.open()

    def import_scores(self, path: str, name: str, lower_is_better: bool) -> None:
        db, suite = self._state.db, self._state.suite_name
        assert db is not None
        qe_ops.import_scores(db, suite, path, name, lower_is_better).run(self._ops)

    def _train(self) -> None:
        dialog = TrainDialog(self)
        dialog.accepted.connect(lambda: self.train(dialog.request()))
        dialog.open()

    def train(self, request: TrainRequest) -> None:
        """Train in the background; Cancel stops it and nothing is stored (the model is saved last)."""
        db, suite = self._state.db, self._state.suite_name
        assert db is not None
        qe_ops.train(db, suite, request.name, request.kind, list(request.data), request.target, request.folds,
                     request.seed).run(self._ops)

    def _predict(self) -> None:
        system = self._selected_system()
        if system is None:
            self.status.setText("select a trained QE system to predict with")
            return
        self.predict(system.name)

    def predict(self, name: str) -> None:
        db, suite = self._state.db, self._state.suite_name
        assert db is not None
        qe_ops.predict(db, suite, name).run(self._ops)

    def _metric(self) -> None:
        dialog = MetricDialog(self)
        dialog.accepted.connect(lambda: self.metric_as_qe(dialog.request()))
        dialog.open()

    def metric_as_qe(self, request: MetricRequest) -> None:
        db, suite = self._state.db, self._state.suite_name
        assert db is not None
        qe_ops.metric_as_qe(db, suite, request.metric, request.name, request.refs).run(self._ops)

    def _remove(self) -> None:
        system = self._selected_system()
        if system is None:
            self.status.setText("select the QE system to remove")
            return
        box = QMessageBox(QMessageBox.Icon.Question, "tsqe — remove QE system",
                          f"Remove the QE system {system.name!r} and its {system.scores:,} scores?",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.accepted.connect(lambda: self.remove(system.name))
        box.open()

    def remove(self, name: str) -> None:
        db = self._state.db
        assert db is not None
        qe_ops.remove(db, name).run(self._ops)
