"""``tsqe.open``: a database, its suites, and what creates a suite (an import, the demo)."""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from tsqe.progress import ProgressArgument, task_of
from tsqe.suite import Suite

if TYPE_CHECKING:
    from filters.human_judgements import HumanTest
    from filters.metrics import MetricOptions
    from store import Database as StoreDatabase
    from suite.domain import Combine, Ties
    from suite.importers import ImportResult
    from suite.importers.challenge import ChallengeImport
    from tsqe.meta_reports import MetaEvaluation
    from tsqe.qe_reports import Disagreement

PathLike = str | os.PathLike[str]


def open(db: PathLike | None = None, *, create: bool = True) -> Database:  # noqa: A001 - tsqe.open(path), as named
    """Open (and migrate if needed) the database at a file path or SQLAlchemy URL; None: the user's default
    database, or ``TSQE_DB``. A file that is not there is created, as ``tsqe init`` creates it; with
    ``create=False`` it is refused instead (``TsqeError``: "there is no database at …"), nothing created."""
    from store import open_database

    return Database(open_database(db, create=create))


class Database:
    """An open tsqe database: SQLite file or PostgreSQL server. Close it (or use ``with``) when done."""

    def __init__(self, store: StoreDatabase) -> None:
        self.store = store
        """The core's ``store.Database``, for what the API does not wrap yet."""

    def __enter__(self) -> Database:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"tsqe.Database({self.store.name_in_messages!r})"

    def close(self) -> None:
        self.store.close()

    def suites(self) -> list[str]:
        """The names of the suites the database holds, sorted."""
        from suite.reading.names import suite_names

        return suite_names(self.store)

    def suite(self, name: str | None = None) -> Suite:
        """The suite called ``name``, or the only one (an error names the suites when there are several)."""
        from suite.suites import suite_info

        return Suite(self.store, suite_info(self.store, name).name)

    def create_demo(self, name: str | None = None, *, progress: ProgressArgument = None) -> Suite:
        """``tsqe demo``: the bundled German→English demo suite, labelled (refused when the name is taken)."""
        from suite.demo import DEMO_SUITE, create_demo

        summary = create_demo(self.store, name=name or DEMO_SUITE, task=task_of(progress))
        return Suite(self.store, summary.suite)

    def import_suite(self, path: PathLike, *, name: str | None = None, source_lang: str | None = None,
                     target_lang: str | None = None, update: bool = False, remove_missing: bool = False,
                     strict: bool = False, progress: ProgressArgument = None) -> ImportResult:
        """``tsqe import suite``: a DFKI JSON file or a TSV/CSV/XLSX table; the whole file is checked first, a
        file with any problem changes nothing (``InputFileError`` lists every problem)."""
        from suite.importers import import_suite

        return import_suite(self.store, path, name=name, source_lang=source_lang, target_lang=target_lang,
                            update=update, remove_missing=remove_missing, strict=strict, task=task_of(progress))

    def import_challenge(self, path: PathLike, format: str, *, name: str | None = None,
                         include_unchecked: bool = False, progress: ProgressArgument = None) -> ChallengeImport:
        """``tsqe import challenge``: a contrastive challenge set (demetr, aces, contrastive-tsv) as a suite."""
        from suite.importers.challenge import import_challenge

        return import_challenge(self.store, path, format, name=name, include_unchecked=include_unchecked,
                                task=task_of(progress))

    def import_wmt(self, *, name: str, src: PathLike | None = None, refs: Sequence[PathLike] = (),
                   systems: Sequence[PathLike] = (), ref_names: Sequence[str] = (), xml: Sequence[PathLike] = (),
                   testsuite: str | None = None, source_lang: str | None = None, target_lang: str | None = None,
                   progress: ProgressArgument = None) -> ImportResult:
        """``tsqe import wmt``: a WMT test set as a suite, from plain-text files (``src``, ``refs``, ``systems``)
        or from WMT XML (``xml``, optionally one ``testsuite``'s documents)."""
        from suite.errors import TsqeError
        from suite.importers import import_wmt
        from suite.importers.wmt import import_wmt_xml

        task = task_of(progress)
        if xml:
            if src is not None or refs or systems or ref_names:
                raise TsqeError("a WMT test set is either XML or the plain-text source, references and systems")
            return import_wmt_xml(self.store, [Path(p) for p in xml], name=name, testsuite=testsuite,
                                  source_lang=source_lang, target_lang=target_lang, task=task)
        if src is None or not refs or not systems:
            raise TsqeError("a plain-text WMT test set needs its source, references and systems files")
        return import_wmt(self.store, src=Path(src), refs=[Path(p) for p in refs], systems=[Path(p) for p in systems],
                          name=name, ref_names=ref_names, source_lang=source_lang, target_lang=target_lang, task=task)

    def accuracy_disagreement(self, suites: Sequence[str], *, qe: Sequence[str] | None = None,
                              ties: Ties | str | None = None, tie_epsilon: float | None = None, bootstrap: int = 1000,
                              seed: int = 0, progress: ProgressArgument = None) -> Disagreement:
        """``tsqe accuracy --table disagreement --suites A,B``: where the QE systems' ranking flips between
        suites, on their shared categories."""
        from qe.disagreement import suite_disagreement
        from qe.evaluation import AccuracyOptions, suites_accuracy
        from tsqe.qe_reports import Disagreement, accuracy_options

        options: AccuracyOptions = accuracy_options(qe=qe, ties=ties, tie_epsilon=tie_epsilon, bootstrap=bootstrap,
                                                    seed=seed)
        return Disagreement(suite_disagreement(suites_accuracy(self.store, list(suites), options,
                                                               task_of(progress))))

    def meta_evaluation(self, suites: Sequence[str], metrics: Sequence[str], *, significant_pairs_only: bool = False,
                        human_test: HumanTest | None = None, resamples: int = 1000, seed: int = 0,
                        refs: str | None = None, combine: Combine | str = "multi",
                        options: MetricOptions | None = None, human: str | None = None,
                        progress: ProgressArgument = None) -> MetaEvaluation:
        """``tsqe meta-eval``: the metrics' errors on system pairs against the human scores of each suite, their
        significant ranks per suite, and the disagreement between suites (Xiang et al. 2022); ``human`` the kind
        of human scores (da, z, esa, mqm; None: each suite's only kind)."""
        from tsqe.meta_reports import meta_evaluation

        return meta_evaluation(self.store, suites, metrics, significant_pairs_only=significant_pairs_only,
                               human_test=human_test, resamples=resamples, seed=seed, refs=refs, combine=combine,
                               options=options, human=human, task=task_of(progress))
