"""The QE evaluation of a suite: pairs, pairwise accuracy with intervals and ranks, where rankings disagree, and
how stable they are (``tsqe pairs``, ``tsqe accuracy``, ``tsqe stability``), through ``qe.evaluation`` as the
command line and the window do."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tsqe.base import SuiteHandle
from tsqe.progress import ProgressArgument, task_of
from tsqe.reports import TableReport

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from qe.accuracy import AccuracyResult
    from qe.disagreement import RankingDisagreement
    from qe.evaluation import AccuracyOptions
    from qe.pairs import PairTable
    from qe.stability import StabilityResult
    from qe.training import TrainSummary
    from suite.domain import Ties
    from suite.tables import Table


def accuracy_options(*, by: str = "category", category: str | None = None, qe: Sequence[str] | None = None,
                     ties: Ties | str | None = None, tie_epsilon: float | None = None, bootstrap: int = 1000,
                     seed: int = 0) -> AccuracyOptions:
    """The core's options of an accuracy table; ``ties`` as text is parsed once here (an unknown one is refused
    with the accepted values)."""
    from qe.evaluation import AccuracyOptions
    from store.domain import parse
    from suite.domain import Ties
    from suite.errors import TsqeError

    try:
        chosen = None if ties is None else parse(Ties, ties, "ties")
    except ValueError as error:
        raise TsqeError(str(error)) from None
    return AccuracyOptions(by=by, category=category, qe=None if qe is None else tuple(qe), ties=chosen,
                           tie_epsilon=tie_epsilon, bootstrap=bootstrap, seed=seed)


@dataclass(frozen=True)
class Pairs:
    """``tsqe pairs``: every (passing, failing) output pair of each item under the effective labels."""

    result: PairTable

    def to_pandas(self) -> pd.DataFrame:
        """One row per pair, the columns of ``tsqe pairs``'s TSV."""
        return self.result.frame()

    def __len__(self) -> int:
        return len(self.result)


@dataclass(frozen=True)
class Disagreement(TableReport):
    """``tsqe accuracy --table disagreement``: between every two rows (or suites), on how many pairs of QE
    systems the ranking flips."""

    result: RankingDisagreement

    def table(self) -> Table:
        return self.result.to_table()

    def ranks(self) -> pd.DataFrame:
        """``--table ranks``: each QE system's significant rank on each row."""
        from suite.tables import frame

        return frame(self.result.ranks_table())

    def heat_map(self) -> Figure:
        """``--heat-map``: the counts of flips as a figure (save it with ``suite.figures.save_figure``)."""
        return self.result.heat_map()

    def to_json(self) -> str:
        return self.result.to_json()


@dataclass(frozen=True)
class Accuracy(TableReport):
    """``tsqe accuracy``: pairwise accuracy of each QE system per row (category or phenomenon), Total and
    weighed, with bootstrap intervals, the best systems, ranks and tie rates (Avramidis et al.'s Table 2)."""

    result: AccuracyResult

    def table(self) -> Table:
        return self.result.to_table()

    def to_json(self) -> str:
        """``tsqe accuracy --format json``: the result's own document (provenance, counted pairs, ranks)."""
        return self.result.to_json()

    def disagreement(self, *, count_too_few: bool = False) -> Disagreement:
        """Where the ranking flips between every two rows of this table."""
        from qe.disagreement import row_disagreement

        return Disagreement(row_disagreement(self.result, count_too_few=count_too_few))

    def ranks(self) -> pd.DataFrame:
        """``tsqe accuracy --table ranks``: each QE system's significant rank per row."""
        return self.disagreement().ranks()


@dataclass(frozen=True)
class Stability(TableReport):
    """``tsqe stability``: how often the QE systems' ranking agrees between random halves of the items."""

    result: StabilityResult

    def table(self) -> Table:
        return self.result.to_table()

    def to_json(self) -> str:
        return self.result.to_json()


class QEReports(SuiteHandle):
    """The QE evaluation's methods of ``tsqe.Suite``."""

    def train_qe(self, *, name: str, kind: str, data: Sequence[str] = (), target: str = "hter", folds: int = 5,
                 seed: int = 0, replace: bool = False, progress: ProgressArgument = None) -> TrainSummary:
        """``tsqe qe train``: a built-in QE model, features-svr (on QE ``data``) or pairwise-gb (on the suite's
        pairs, its scores of the suite out-of-fold), stored with its provenance and CV results."""
        from qe.training import train_qe_system

        return train_qe_system(self.store, name=name, kind=kind, data=data, target=target, folds=folds, seed=seed,
                               suite_name=self.name, replace=replace, task=task_of(progress))

    def predict_qe(self, name: str, *, progress: ProgressArgument = None) -> int:
        """``tsqe qe predict``: score every distinct output of the suite with a trained QE system; the count."""
        from qe.training import predict_qe_system

        return predict_qe_system(self.store, name, self.name, task_of(progress))

    def pairs(self) -> Pairs:
        """``tsqe pairs``."""
        from qe.pairs import build_pairs

        return Pairs(build_pairs(self.store, self.name))

    def accuracy(self, *, by: str = "category", category: str | None = None, qe: Sequence[str] | None = None,
                 ties: Ties | str | None = None, tie_epsilon: float | None = None, bootstrap: int = 1000,
                 seed: int = 0, progress: ProgressArgument = None) -> Accuracy:
        """``tsqe accuracy``: ``qe`` the systems (default: all, oldest first), ``ties`` half, wrong or drop (default:
        half, wrong for a challenge set), ``bootstrap`` item resamples for the intervals (0: none)."""
        from qe.evaluation import accuracy, read_inputs

        options = accuracy_options(by=by, category=category, qe=qe, ties=ties, tie_epsilon=tie_epsilon,
                                   bootstrap=bootstrap, seed=seed)
        return Accuracy(accuracy(read_inputs(self.store, self.name, options.qe), options, task_of(progress)))

    def stability(self, *, splits: int = 200, by: str = "category", category: str | None = None,
                  qe: Sequence[str] | None = None, ties: Ties | str | None = None, tie_epsilon: float | None = None,
                  seed: int = 0, progress: ProgressArgument = None) -> Stability:
        """``tsqe stability``."""
        from qe.evaluation import read_inputs, stability

        options = accuracy_options(by=by, category=category, qe=qe, ties=ties, tie_epsilon=tie_epsilon, seed=seed)
        return Stability(stability(read_inputs(self.store, self.name, options.qe), options, splits,
                                   task_of(progress)))
