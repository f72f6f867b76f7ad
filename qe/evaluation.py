"""What ``tsqe accuracy``, ``tsqe stability`` and ``tsqe plot accuracy`` evaluate, read once and shared.

The command line reads the pairs and the scores for one table; the desktop application keeps them while only
the options change (a new seed, tie policy or grouping needs none of the reads again: the pairs are most of the
time of a table, 1.7 s of 1.9 s on DFKI de-en). Both read and choose the QE systems here, so they refuse the
same things in the same words.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from qe.accuracy import AccuracyResult, pairwise_accuracy
from qe.pairs import PairTable, build_pairs
from store import Database
from suite.errors import TsqeError
from suite.qe_scores import QEScores, read_qe_scores
from suite.tasks import TaskState


@dataclass(frozen=True)
class EvaluationInputs:
    """The suite's pass/fail pairs and the scores of the QE systems read, by name in the order read."""

    pairs: PairTable
    systems: dict[str, QEScores]

    def chosen(self, names: Sequence[str] | None) -> list[QEScores]:
        """The named systems in that order; None: every system read (creation order)."""
        wanted = list(self.systems) if names is None else list(names)
        unknown = [name for name in wanted if name not in self.systems]
        if unknown:
            raise TsqeError(f"no QE system named {', '.join(map(repr, unknown))} "
                            f"(known: {', '.join(self.systems)})")
        return [self.systems[name] for name in wanted]


@dataclass(frozen=True)
class AccuracyOptions:
    """The options of ``tsqe accuracy``."""

    by: str = "category"
    category: str | None = None
    qe: tuple[str, ...] | None = None  # None: every QE system, oldest first
    ties: str = "half"
    bootstrap: int = 1000
    seed: int = 0


def read_inputs(db: Database, suite_name: str | None, names: Sequence[str] | None = None) -> EvaluationInputs:
    """The named QE systems' scores on the suite (every system's when None), then the suite's pairs."""
    systems = read_qe_scores(db, suite_name, names)
    pairs = build_pairs(db, suite_name)
    if len(pairs) == 0:
        raise TsqeError("the suite has no pass/fail pairs under its current labels: import outputs and run the "
                        "labelling first (an item needs a passing and a failing output)")
    return EvaluationInputs(pairs, {s.name: s for s in systems})


def accuracy(inputs: EvaluationInputs, options: AccuracyOptions, task: TaskState | None = None) -> AccuracyResult:
    """The accuracy table of the chosen systems under these options."""
    return pairwise_accuracy(inputs.pairs, inputs.chosen(options.qe), by=options.by, category=options.category,
                             ties=options.ties, bootstrap=options.bootstrap, seed=options.seed, task=task)
