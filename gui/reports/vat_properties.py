"""The Discriminative tab's "What the selection keeps" page, beside the ranking: the kept items against the
removed ones by sentence-length third and word-frequency group, the edit distance to a second reference set and,
when asked for, the English side's parts of speech (Zhan et al. 2021 §4.4, Figures 5-7 and Table 4;
``filters.selection_properties``, as ``tsqe vat-properties`` on the selection the ranking's Save writes).
Tagging is off until asked for: the tagger's first use imports NLTK, about 5 s.

It follows the drop slider: each new selection supersedes the read still going, and nothing is read while the
page is hidden (the item's page is shown instead), so dragging the slider costs no reads.
"""
from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QVBoxLayout, QWidget

from filters.selection_properties import SelectionProperties, positions_of_items, selection_properties
from gui.elided_label import ElidedLabel
from gui.operations import Operations
from gui.reports.export import ExportButton
from gui.reports.tab import note_label, with_notes
from gui.reports.table_model import TableModel, report_view
from gui.state import AppState
from suite.errors import TsqeError
from suite.references import RefChoice, ReferenceChoices
from suite.tables import Table
from suite.tasks import TaskState

PROPERTIES_READ = "reports/discriminative/properties"
NO_SELECTION = "Rank the items by a metric: this page shows what the kept items are like against the removed."


class VATPropertiesPane(QWidget):
    """The second reference set to measure edit distances to, the table of shares and its notes."""

    def __init__(self, state: AppState, ops: Operations, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._state, self._ops = state, ops
        self.properties: SelectionProperties | None = None
        self._selection: tuple[list[str], RefChoice | None] | None = None
        self.paraphrase = QComboBox()
        self.paraphrase.setToolTip("A reference set whose word edit distance to the ranking's references is "
                                   "compared, kept against removed (the paper's Table 4)")
        self.paraphrase.addItem("edit distance: none", None)
        self.parts_of_speech = QCheckBox("parts of speech")
        self.parts_of_speech.setToolTip("The share of each part-of-speech tag among the English side's tokens, kept "
                                        "against removed (the paper's Figure 7; tagged offline by textblob)")
        self.status = ElidedLabel(NO_SELECTION)
        self.status.setStyleSheet("color: #555")
        self.export = ExportButton("selection properties table", self.table, None, self, document=self.document)
        controls = QHBoxLayout()
        controls.addWidget(self.status, 1)
        controls.addWidget(self.paraphrase)
        controls.addWidget(self.parts_of_speech)
        controls.addWidget(self.export)
        self.model = TableModel(self)
        self.view = report_view(self.model, whole_rows=True)
        self.notes = note_label()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(with_notes(self.view, self.notes), 1)
        self.paraphrase.currentIndexChanged.connect(self.compute)
        self.parts_of_speech.toggled.connect(self.compute)

    def table(self) -> Table | None:
        return self.model.table

    def document(self) -> str | None:
        return None if self.properties is None else self.properties.to_json() + "\n"

    def set_choices(self, choices: ReferenceChoices) -> None:
        """The suite's reference sets, each a choice of the second set; the choice kept where it still exists."""
        current = self.paraphrase.currentData()
        self.paraphrase.blockSignals(True)
        self.paraphrase.clear()
        self.paraphrase.addItem("edit distance: none", None)
        for reference_set in choices.sets:
            self.paraphrase.addItem(f"edit distance to {reference_set.name}", reference_set.name)
        self.paraphrase.setCurrentIndex(max(self.paraphrase.findData(current), 0))
        self.paraphrase.blockSignals(False)

    def set_selection(self, kept: list[str], refs: RefChoice | None) -> None:
        """The ranking's kept items (external ids) and the references it was scored against."""
        self._selection = (kept, refs)
        if self.isVisible():
            self.compute()

    def clear(self) -> None:
        self._selection = None
        self.properties = None
        self.model.set_table(None)
        self.notes.setText("")
        self.status.setText(NO_SELECTION)

    def compute(self) -> None:
        db, suite, selection = self._state.db, self._state.suite_name, self._selection
        if db is None or selection is None:
            return
        kept, refs = selection
        paraphrase, tagged = self.paraphrase.currentData(), self.parts_of_speech.isChecked()
        self.status.setText("tagging…" if tagged else "reading…")

        def work(task: TaskState) -> SelectionProperties:
            return selection_properties(db, positions_of_items(db, kept, suite), suite_name=suite, refs=refs,
                                        paraphrase=paraphrase, parts_of_speech=tagged)

        self._ops.read(work, self._show, key=PROPERTIES_READ, on_failure=self._failed)

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self.compute()

    def _show(self, properties: SelectionProperties) -> None:
        self.properties = properties
        table = properties.to_table()
        self.model.set_table(table)
        self.view.resizeColumnsToContents()
        self.notes.setText("  ".join(table.display_notes()[1:]))
        self.status.setText(f"{properties.kept:,} of {properties.items:,} items kept")

    def _failed(self, error: Exception) -> bool:
        if not isinstance(error, TsqeError):
            return False
        self.properties = None
        self.model.set_table(None)
        self.status.setText(str(error))
        return True
