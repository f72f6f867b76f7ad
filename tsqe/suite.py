"""``db.suite()``: one suite, its imports and labelling; the reports are mixed in from their own modules
(``tsqe.qe_reports``, ``tsqe.metric_reports``), so a new group of reports is a new module and one base here."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast, get_args

from tsqe.base import SuiteHandle
from tsqe.metric_reports import MetricReports
from tsqe.progress import ProgressArgument, task_of
from tsqe.qe_reports import QEReports
from tsqe.reports import TableReport

if TYPE_CHECKING:
    import pandas as pd

    from suite.importers import ImportResult
    from suite.reading.report import SystemsReport as CoreSystemsReport
    from suite.suites import SuiteInfo
    from suite.tables import Table

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class SystemsReport(TableReport):
    """``tsqe report systems``: each MT system's pass rate per category (or phenomenon) over effective labels,
    the best cluster marked (one-sided two-proportion z-test)."""

    result: CoreSystemsReport

    def table(self) -> Table:
        return self.result.to_table()

    def to_json(self) -> str:
        """``tsqe report systems --format json``: every cell with all its label counts."""
        return self.result.to_json()


@dataclass(frozen=True)
class Labels:
    """The suite's effective labels (a reviewer's, else the automatic one) counted over distinct outputs, as
    ``tsqe label`` prints them."""

    counts: dict[str, int]

    def to_pandas(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame({"label": [str(label) for label in self.counts], "outputs": list(self.counts.values())})


class Suite(QEReports, MetricReports, SuiteHandle):
    """A suite of the database: import into it, label it, and ask for its reports."""

    def info(self) -> SuiteInfo:
        """Its name and languages."""
        from suite.suites import suite_info

        return suite_info(self.store, self.name)

    def status(self) -> dict[str, Any]:
        """``tsqe status --json``: counts of items, categories, phenomena, rules, systems, outputs and labels."""
        from suite.reading.status import suite_status

        return suite_status(self.store, self.name)

    def import_outputs(self, path: PathLike, *, system: str | None = None, source: PathLike | None = None,
                       submission_map: PathLike | None = None, label: bool = False,
                       progress: ProgressArgument = None) -> ImportResult:
        """``tsqe import outputs``: a TSV (item_id, system, output), one system's plain-text file (``system``), or
        translations returned for a test-suite submission (``submission_map``); ``label`` labels them in the
        same transaction."""
        from suite.importers import import_outputs

        return import_outputs(self.store, Path(path), suite_name=self.name, system=system,
                              source=None if source is None else Path(source),
                              submission_map=None if submission_map is None else Path(submission_map), label=label,
                              task=task_of(progress))

    def import_qe(self, path: PathLike, *, name: str, lower_is_better: bool = False,
                  tie_epsilon: float | None = None, progress: ProgressArgument = None) -> ImportResult:
        """``tsqe import qe``: a QE system's segment scores (item_id, system, score or item_id, output, score)."""
        from suite.importers import import_qe_scores

        return import_qe_scores(self.store, Path(path), name=name, lower_is_better=lower_is_better,
                                tie_epsilon=tie_epsilon, suite_name=self.name, task=task_of(progress))

    def import_references(self, path: PathLike, *, name: str, kind: str = "standard",
                          progress: ProgressArgument = None) -> ImportResult:
        """``tsqe import references``: a named reference set, one line per item or a table item_id, text."""
        from suite.importers.references import import_references

        return import_references(self.store, Path(path), name=name, kind=kind, suite_name=self.name,
                                 task=task_of(progress))

    def import_human_scores(self, path: PathLike | None = None, *, lp: str | None = None,
                            segments: PathLike | None = None, significance: PathLike | None = None,
                            renames: Mapping[str, str] | None = None, kind: str = "z",
                            progress: ProgressArgument = None) -> ImportResult:
        """``tsqe import human-scores``: official system-level (and segment-level) human scores and WMT's
        significance results, checked together and written together; ``kind`` says what they are (z, da, esa,
        mqm): a kind the suite holds is replaced system by system, another added beside it."""
        from store.domain import HumanScoreKind, parse
        from suite.importers import import_human_scores

        return import_human_scores(self.store, None if path is None else Path(path), lp=lp,
                                   segments=None if segments is None else Path(segments),
                                   significance=None if significance is None else Path(significance),
                                   renames=renames, suite_name=self.name,
                                   kind=parse(HumanScoreKind, kind, "human score kind"), task=task_of(progress))

    def import_labels(self, path: PathLike, *, progress: ProgressArgument = None) -> ImportResult:
        """``tsqe import labels``: reviewed labels (item_id, system, label, reviewer[, comment])."""
        from suite.importers import import_reviews

        return import_reviews(self.store, Path(path), suite_name=self.name, task=task_of(progress))

    def label(self, *, timeout: float | None = None, workers: int | None = None,
              progress: ProgressArgument = None) -> Labels:
        """``tsqe label``: label every new or changed output with the suite's rules (in worker processes, as the
        command does); reviewers' labels stay. Cancelled, the items labelled so far stay, each whole
        (``CancelledPartway``)."""
        from suite.engine.labelling import relabel
        from suite.engine.rules import DEFAULT_TIMEOUT

        return Labels(relabel(self.store, self.name, task_of(progress),
                              timeout=DEFAULT_TIMEOUT if timeout is None else timeout, workers=workers))

    def systems_report(self, *, by: str = "category", alpha: float = 0.05) -> SystemsReport:
        """``tsqe report systems``."""
        from suite.errors import TsqeError
        from suite.reading.report import ReportBy, systems_report

        if by not in get_args(ReportBy):
            raise TsqeError(f"a systems report has a row per {' or per '.join(get_args(ReportBy))}, not per {by!r}")
        return SystemsReport(systems_report(self.store, self.name, by=cast("ReportBy", by), alpha=alpha))
