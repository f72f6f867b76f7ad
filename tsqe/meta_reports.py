"""Meta-evaluation across suites (``tsqe meta-eval``, Xiang et al. 2022): do the metrics' conclusions hold from
one dataset to the next?"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tsqe.reports import TableReport

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from filters.human_judgements import HumanTest
    from filters.meta_evaluation import MetaEvaluation as CoreMetaEvaluation
    from filters.metrics import MetricOptions
    from store import Database as StoreDatabase
    from suite.domain import Combine
    from suite.tables import Table
    from suite.tasks import TaskState


@dataclass(frozen=True)
class MetaEvaluation(TableReport):
    """Per suite and metric: the system pairs it orders unlike the human scores, and the metrics' significant
    ranks (``to_pandas()``: the ranks, the paper's Table 3 form); ``errors()`` and ``disagreement()`` the other
    two tables of ``tsqe meta-eval``."""

    result: CoreMetaEvaluation

    def table(self) -> Table:
        return self.result.ranks_table()

    def errors(self) -> pd.DataFrame:
        from suite.tables import frame

        return frame(self.result.errors_table())

    def disagreement(self) -> pd.DataFrame:
        from suite.tables import frame

        return frame(self.result.disagreement_table())

    def heat_map(self) -> Figure:
        return self.result.heat_map()

    def to_json(self) -> str:
        """``tsqe meta-eval --json``."""
        return self.result.to_json()


def meta_evaluation(store: StoreDatabase, suites: Sequence[str], metrics: Sequence[str], *,
                    significant_pairs_only: bool, human_test: HumanTest | None, resamples: int, seed: int,
                    refs: str | None, combine: Combine | str, options: MetricOptions | None, human: str | None,
                    task: TaskState | None) -> MetaEvaluation:
    """``Database.meta_evaluation``'s work, through ``filters.meta_evaluation`` as the command line does."""
    from filters.human_judgements import HUMAN_TESTS
    from filters.meta_evaluation import MetaOptions, meta_evaluate
    from store.domain import HumanScoreKind, parse
    from suite.errors import TsqeError
    from suite.references import RefChoice

    if human_test is not None and human_test not in HUMAN_TESTS:
        raise TsqeError(f"unknown human significance test {human_test!r} (choose one of: {', '.join(HUMAN_TESTS)})")
    meta = MetaOptions(suites=tuple(suites), metrics=tuple(metrics), significant_pairs_only=significant_pairs_only,
                       human_test=human_test, resamples=resamples, seed=seed, refs=RefChoice.parse(refs, combine),
                       metric_options=options,
                       human=None if human is None else parse(HumanScoreKind, human, "human score kind"))
    return MetaEvaluation(meta_evaluate(store, meta, task))
