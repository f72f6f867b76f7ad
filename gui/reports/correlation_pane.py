"""The Discriminative tab's correlation pane: which metrics agree with the human scores, over the references
checked (``filters.correlation``, as ``tsqe correlate``), a background write since scoring fills the caches."""
from __future__ import annotations

from PySide6.QtCore import Qt

from filters.correlation_table import CorrelationTable
from gui.operations import scores as scores_ops
from gui.reports.discriminative_surface import DiscriminativeSurface
from suite.errors import TsqeError
from suite.references import KNOWN_GOOD, RefChoice, parse_ref_entries
from suite.tables import Table


class CorrelationPane(DiscriminativeSurface):
    """The correlation table's metrics and references, and the run that fills it."""

    def correlation_table(self) -> Table | None:
        return self.correlation_model.table

    def correlate(self, *, asked: bool = True) -> None:
        db, suite = self._state.db, self._state.suite_name
        if db is None:
            return
        metrics = [self.correlation_metrics.item(i).data(Qt.ItemDataRole.UserRole)
                   for i in range(self.correlation_metrics.count())
                   if self.correlation_metrics.item(i).checkState() == Qt.CheckState.Checked]
        if not metrics:
            self.correlation_status.setText("check at least one metric")
            return
        try:
            entries = self.correlation_entries()
        except TsqeError as error:
            self.correlation_status.setText(str(error))
            return
        top = self.top.value() or None
        self.correlation_status.setText("correlating…")
        scores_ops.correlate(db, suite, metrics, entries, top, quiet=not asked).success(
            self._while_current(db, suite, self._correlated)).failure(
            self._correlation_failed if asked else self._correlation_told).run(self._ops)

    def correlation_entries(self) -> list[RefChoice]:
        """The checked reference entries and the joined ones typed beside them (the default when none)."""
        checked = [self.correlation_refs.item(i).data(Qt.ItemDataRole.UserRole)
                   for i in range(self.correlation_refs.count())
                   if self.correlation_refs.item(i).checkState() == Qt.CheckState.Checked]
        typed = parse_ref_entries(self.joined_refs.text()) if self.joined_refs.text().strip() else []
        return list(dict.fromkeys([*checked, *typed])) or [RefChoice.default()]

    def set_correlation_refs(self, entries: list[str]) -> None:
        wanted = [RefChoice.parse(entry) for entry in entries]
        for i in range(self.correlation_refs.count()):
            item = self.correlation_refs.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole) in wanted
                               else Qt.CheckState.Unchecked)

    def use_known_good(self) -> None:
        """The next step on a suite without references: rank against the items' known good translations."""
        index = self.refs_choice.findData(RefChoice((KNOWN_GOOD,)))
        if index >= 0:
            self.refs_choice.setCurrentIndex(index)
            self.rank()

    def set_correlation_metrics(self, metrics: list[str]) -> None:
        for i in range(self.correlation_metrics.count()):
            item = self.correlation_metrics.item(i)
            checked = item.data(Qt.ItemDataRole.UserRole) in metrics
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def _correlated(self, table: CorrelationTable) -> None:
        self.correlation = table
        self.correlation_model.set_table(table.to_table())
        self.correlation_view.resizeColumnsToContents()
        metrics = len({row.metric for row in table.rows})
        entries = len({row.refs for row in table.rows if row.refs is not None})
        self.correlation_status.setText(f"{metrics} metrics"
                                        + (f" × {entries} reference entries" if entries > 1 else ""))

    def _correlation_failed(self, error: Exception) -> bool:
        self.correlation_status.setText(str(error))
        return False

    def _correlation_told(self, error: Exception) -> bool:
        self.correlation_status.setText(str(error))
        return True
