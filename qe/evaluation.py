"""What ``tsqe accuracy``, ``tsqe stability`` and ``tsqe plot accuracy`` evaluate, read once and shared.

The command line reads the pairs and the scores for one table; the desktop application keeps them while only
the options change (a new seed, tie policy or grouping needs none of the reads again: the pairs are most of the
time of a table, 1.7 s of 1.9 s on DFKI de-en). Both read and choose the QE systems here, so they refuse the
same things in the same words.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from qe.accuracy import AccuracyResult, check_ties, pairwise_accuracy
from qe.aces_score import aces_scores
from qe.pairs import PairTable, build_pairs
from store import Database
from suite.domain import Ties
from suite.errors import TsqeError
from suite.qe_scores import QEScores, read_qe_scores
from suite.suites import find_suite
from suite.tasks import TaskState

QE_TIES = Ties.HALF
CHALLENGE_TIES = Ties.WRONG
"""The default ties policies: half for QE (a coin flip, its chance level), wrong for a suite imported as a
challenge set (the field's published convention: the incorrect translation must score strictly lower)."""


def default_ties(challenge: str | None) -> Ties:
    """The ties policy of a suite's tables when none is asked for (see ``qe.accuracy``)."""
    return QE_TIES if challenge is None else CHALLENGE_TIES


@dataclass(frozen=True)
class EvaluationInputs:
    """The suite's pass/fail pairs and the scores of the QE systems read, by name in the order read."""

    pairs: PairTable
    systems: dict[str, QEScores]
    challenge: str | None = None
    """The challenge-set layout the suite was imported from, None for any other suite."""

    def ties(self, asked: str | None) -> Ties:
        """The ties policy asked for, else the suite's default."""
        return default_ties(self.challenge) if asked is None else check_ties(asked)

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
    ties: str | None = None  # None: the suite's default (``default_ties``)
    tie_epsilon: float | None = None  # None: each system's own tie margin
    bootstrap: int = 1000
    seed: int = 0


def read_inputs(db: Database, suite_name: str | None, names: Sequence[str] | None = None) -> EvaluationInputs:
    """The named QE systems' scores on the suite (every system's when None), then the suite's pairs."""
    systems = read_qe_scores(db, suite_name, names)
    pairs = build_pairs(db, suite_name)
    if len(pairs) == 0:
        raise TsqeError("the suite has no pass/fail pairs under its current labels: import outputs and run the "
                        "labelling first (an item needs a passing and a failing output)")
    with db.session() as session:
        challenge = find_suite(session, suite_name).challenge
    return EvaluationInputs(pairs, {s.name: s for s in systems}, challenge)


def accuracy(inputs: EvaluationInputs, options: AccuracyOptions, task: TaskState | None = None) -> AccuracyResult:
    """The accuracy table of the chosen systems under these options; for an ACES suite's whole-suite table
    with ACES's summary score as one more row."""
    ties = inputs.ties(options.ties)
    check_ties(ties, options.tie_epsilon)
    systems = inputs.chosen(options.qe)
    result = pairwise_accuracy(inputs.pairs, systems, by=options.by, category=options.category, ties=ties,
                               tie_epsilon=options.tie_epsilon, bootstrap=options.bootstrap, seed=options.seed,
                               task=task)
    aces = aces_scores(inputs.pairs, systems, options.tie_epsilon) \
        if inputs.challenge == "aces" and options.category is None else None
    return replace(result, challenge=inputs.challenge, ties_chosen=options.ties is not None, aces_score=aces)
