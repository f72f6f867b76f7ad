"""The QE tab's small forms: import a score file, train a built-in model, store a metric as a QE proxy.

Each form only gathers the arguments of one core call (``import_qe_scores``, ``train_qe_system``,
``store_metric_as_qe``) into a typed request; the tab runs the call as a background write.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from filters.qe_proxy import proxy_metrics
from qe.datasets import TARGETS


@dataclass(frozen=True)
class ImportRequest:
    path: str
    name: str
    lower_is_better: bool


@dataclass(frozen=True)
class TrainRequest:
    name: str
    kind: str
    data: tuple[str, ...]
    target: str
    folds: int
    seed: int


@dataclass(frozen=True)
class MetricRequest:
    metric: str
    name: str
    refs: str = ""
    """The reference entry as typed: blank for the default, a set (``wmt.p``), sets joined by ``+``."""


class _Form(QDialog):
    def __init__(self, title: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"tsqe — {title}")
        self.form = QFormLayout()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(self.form)
        layout.addWidget(self.buttons)
        self.setMinimumWidth(460)


class ImportScoresDialog(_Form):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("import QE scores", parent)
        self.path = QLineEdit()
        self.path.setPlaceholderText("TSV: item_id, system, score  (or item_id, output, score)")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._choose)
        row = QHBoxLayout()
        row.addWidget(self.path)
        row.addWidget(browse)
        self.name = QLineEdit()
        self.lower_is_better = QCheckBox("lower scores are better (e.g. HTER)")
        self.form.addRow("Score file", row)
        self.form.addRow("QE system name", self.name)
        self.form.addRow("", self.lower_is_better)

    def _choose(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "QE scores", "", "Tables (*.tsv *.csv *.txt);;All files (*)")
        if path:
            self.path.setText(path)
            if not self.name.text():
                self.name.setText(path.rsplit("/", 1)[-1].rsplit(".", 1)[0])

    def request(self) -> ImportRequest:
        return ImportRequest(self.path.text().strip(), self.name.text().strip(), self.lower_is_better.isChecked())


class TrainDialog(_Form):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("train a QE system", parent)
        self.name = QLineEdit()
        self.kind = QComboBox()
        self.kind.addItem("features-svr: SVR on 31 black-box features, trained on QE data", "features-svr")
        self.kind.addItem("pairwise-gb: gradient boosting on this suite's pass/fail pairs", "pairwise-gb")
        self.data = QListWidget()
        self.data.setToolTip("MLQE-PE data: a prefix such as DIR/train (train.src, train.mt, train.hter), a "
                             "directory (its train files) or a DA table *.df.short.tsv")
        self.data.setMaximumHeight(90)
        add_files = QPushButton("Add files…")
        add_files.clicked.connect(self._add_files)
        add_dir = QPushButton("Add folder…")
        add_dir.clicked.connect(self._add_folder)
        clear = QPushButton("Clear")
        clear.clicked.connect(self.data.clear)
        data_buttons = QHBoxLayout()
        for button in (add_files, add_dir, clear):
            data_buttons.addWidget(button)
        self.target = QComboBox()
        self.target.addItems(list(TARGETS))
        self.folds = QSpinBox()
        self.folds.setRange(2, 20)
        self.folds.setValue(5)
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.form.addRow("Name", self.name)
        self.form.addRow("Kind", self.kind)
        self.form.addRow("QE data", self.data)
        self.form.addRow("", data_buttons)
        self.form.addRow("Target", self.target)
        self.form.addRow("CV folds", self.folds)
        self.form.addRow("Seed", self.seed)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self._kind_changed()

    def _kind_changed(self) -> None:
        needs_data = self.kind.currentData() == "features-svr"
        for widget in (self.data, self.target):
            widget.setEnabled(needs_data)

    def _add_files(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "QE data files")
        for path in paths:
            # MLQE-PE comes as train.src/train.mt/train.hter: the core takes the shared prefix.
            prefix = path.rsplit(".", 1)[0] if path.rsplit(".", 1)[-1] in ("src", "mt", "hter", "pe") else path
            if not self.data.findItems(prefix, Qt.MatchFlag.MatchExactly):
                self.data.addItem(prefix)

    def _add_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "QE data folder")
        if path:
            self.data.addItem(path)

    def request(self) -> TrainRequest:
        data = tuple(self.data.item(i).text() for i in range(self.data.count()))
        return TrainRequest(self.name.text().strip(), self.kind.currentData(),
                            data if self.kind.currentData() == "features-svr" else (), self.target.currentText(),
                            self.folds.value(), self.seed.value())


class MetricDialog(_Form):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("a metric as QE proxy", parent)
        self.metric_name = QComboBox()
        self.metric_name.addItems(proxy_metrics())
        self.name = QLineEdit()
        self.name.setPlaceholderText("default: the metric's name")
        self.refs = QLineEdit()
        self.refs.setPlaceholderText("default: every standard reference")
        self.refs.setToolTip("A reference set (wmt.p), sets joined by + (ar+wmt), or known-good (the items' known "
                             "good translations)")
        self.form.addRow("Metric (against the items' references)", self.metric_name)
        self.form.addRow("References", self.refs)
        self.form.addRow("QE system name", self.name)

    def request(self) -> MetricRequest:
        return MetricRequest(self.metric_name.currentText(), self.name.text().strip() or self.metric_name.currentText(),
                             self.refs.text().strip())
