"""Pairwise accuracy of QE systems per category or phenomenon (Avramidis et al., Tables 2-4).

A pair is correct for a QE system when the passing output gets the better score in that system's direction.

A tie is a pair whose two scores differ by at most the system's ``tie_epsilon`` (0 unless the scores come from
a metric whose registry entry says otherwise, or it is given: BERTScore's float noise makes sentences that
tokenise alike differ by less than 1e-6, a difference no one should read as a decision). Ties are counted by a
policy:

- ``half`` (the default for QE): a tie counts 0.5. A QE system that cannot tell two outputs apart does no
  better than a coin flip on that pair, and a coin flip is right half the time, so ``half`` neither rewards
  nor punishes indecision; a constant scorer lands at exactly 50 %, the chance level of the task.
- ``wrong``: a tie counts 0 (the strict reading: the system failed to prefer the passing output). This is how
  published challenge-set results count (DEMETR: the perturbed translation must score strictly lower; ACES's
  Kendall-like tau counts a tie as discordant), and the default for a suite imported as a challenge set.
- ``drop``: tied pairs leave that system's denominator. ``amount`` stays the number of pairs in the row
  (it describes the data, not a system); how many pairs each system was actually judged on is its
  ``counted`` figure, and a row where a system was judged on too few is flagged.

Every table shows each system's tie rate per row (tied pairs over the pairs it scored both sides of), so the
policy's effect can be read off whichever policy is used.

Pairs where a QE system has no score for one side are likewise left out of that system's denominator only;
``counted / amount`` is its coverage.

Rows partition the ITEMS (every item has one category and one phenomenon), which the statistics in
:mod:`qe.statistics` rely on: everything is computed from per-item sums, never from the pairs again.
``Total`` is the micro accuracy over all pairs; ``weighed`` (the paper's spelling) the unweighted mean of
the row accuracies, so small categories count as much as large ones.
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from qe.pairs import PairTable
from qe.statistics import CONFIDENCE, bootstrap_group_sums, percentile_interval
from suite.domain import Ties
from suite.errors import TsqeError
from suite.qe_scores import QEScores
from suite.significance import ALPHA, significance_ranks
from suite.tables import NO_CATEGORY, NO_PHENOMENON, Cell, Column, Table
from suite.tasks import TaskState, progress_of

TIES: tuple[Ties, ...] = tuple(Ties)
BY = ("category", "phenomenon")
MIN_PAIRS = 30
MIN_ITEMS = 5
TOO_FEW_MARK = "†"
TIES_COLUMN = "ties"
"""The tie-rate columns are named ``SYSTEM ties``."""
ACES_ROW = "ACES score"
ACES_NOTE = ("ACES's summary score (Amrhein et al. 2022): per phenomenon Kendall's tau-like (good scored above the "
             "incorrect translation minus not, over all pairs; a tie is discordant), averaged per top-level "
             "category and weighted 5 (addition, omission, mistranslation, overtranslation, undertranslation), "
             "1 (untranslated, do not translate, real-world knowledge, wrong language) and 0.1 (punctuation); "
             "categories without pairs are left out.")


def aligned_scores(pairs: PairTable, qe: QEScores) -> np.ndarray:
    """The QE system's score of every output of the pair table (NaN where it gave none)."""
    wanted = pairs.outputs.output_ids
    aligned = np.full(wanted.size, np.nan)
    if qe.output_ids.size == 0:
        return aligned
    order = np.argsort(qe.output_ids, kind="stable")
    ids = qe.output_ids[order]
    position = np.minimum(np.searchsorted(ids, wanted), ids.size - 1)
    hit = ids[position] == wanted
    aligned[hit] = qe.scores[order][position[hit]]
    return aligned


def check_ties(ties: str, tie_epsilon: float | None = None) -> Ties:
    """``ties`` as a tie rule, or the error that names the rules; and the margin checked."""
    if ties not in TIES:
        raise TsqeError(f"unknown ties policy {ties!r} (choose one of: {', '.join(TIES)})")
    if tie_epsilon is not None and not tie_epsilon >= 0:
        raise TsqeError(f"a tie margin is 0 or more, not {tie_epsilon}")
    return Ties(ties)


class Verdict(StrEnum):
    """What a QE system made of one pair, whatever a tie then earns."""

    CORRECT = "correct"
    WRONG = "wrong"
    TIE = "tie"
    UNSCORED = "unscored"


@dataclass(frozen=True)
class PairOutcome:
    """Per pair, for one QE system: how much it prefers the passing output (NaN where it scored a side not),
    and which pairs are ties (scores at most the tie margin apart). The one place a pair is judged: the accuracy
    table's credit and the pairs shown behind a cell both come from it."""

    better: np.ndarray
    scored: np.ndarray
    tie: np.ndarray

    def verdict(self, pair: int) -> Verdict:
        if not self.scored[pair]:
            return Verdict.UNSCORED
        return Verdict.TIE if self.tie[pair] else Verdict.CORRECT if self.better[pair] > 0 else Verdict.WRONG


def pair_outcome(pairs: PairTable, qe: QEScores, tie_epsilon: float | None = None) -> PairOutcome:
    """How the QE system judges each pair; a tie is a difference of at most ``tie_epsilon`` (default: the
    system's own)."""
    epsilon = qe.tie_epsilon if tie_epsilon is None else tie_epsilon
    scores = aligned_scores(pairs, qe)
    better = scores[pairs.pass_index] - scores[pairs.fail_index]
    if not qe.higher_is_better:
        better = -better
    scored = ~np.isnan(better)
    return PairOutcome(better, scored, scored & (np.abs(better) <= epsilon))


@dataclass(frozen=True)
class PairCredit:
    """Per pair, for one QE system: the credit earned (1, 0.5 or 0), whether the pair counts, whether both sides
    were scored, and whether it is a tie."""

    credit: np.ndarray
    counted: np.ndarray
    scored: np.ndarray
    tie: np.ndarray


def pair_credit(pairs: PairTable, qe: QEScores, ties: Ties = Ties.HALF,
                tie_epsilon: float | None = None) -> PairCredit:
    """What the QE system earns on each pair under the tie rule ``ties``."""
    check_ties(ties, tie_epsilon)
    outcome = pair_outcome(pairs, qe, tie_epsilon)
    tie = outcome.tie
    credit = ((outcome.better > 0) & ~tie).astype(np.float64)
    counted = outcome.scored.copy()
    if ties == Ties.HALF:
        credit[tie] = 0.5
    elif ties == Ties.DROP:
        counted &= ~tie
    credit[~counted] = 0.0
    return PairCredit(credit, counted, outcome.scored, tie)


@dataclass(frozen=True)
class ItemSums:
    """Per item (rows) and QE system (columns): earned credit, counted, scored and tied pairs; plus all pairs per
    item."""

    credit: np.ndarray  # (n_items, K) float
    counted: np.ndarray  # (n_items, K) float
    pairs: np.ndarray  # (n_items,) int
    scored: np.ndarray  # (n_items, K) float
    ties: np.ndarray  # (n_items, K) float


def item_sums(pairs: PairTable, systems: Sequence[QEScores], ties: Ties = Ties.HALF,
              tie_epsilon: float | None = None) -> ItemSums:
    n_items = pairs.outputs.item_ids.size
    sums = {name: np.zeros((n_items, len(systems))) for name in ("credit", "counted", "scored", "tie")}
    for k, qe in enumerate(systems):
        per_pair = pair_credit(pairs, qe, ties, tie_epsilon)
        for name, values in sums.items():
            values[:, k] = np.bincount(pairs.pair_item, weights=getattr(per_pair, name), minlength=n_items)
    return ItemSums(sums["credit"], sums["counted"], np.bincount(pairs.pair_item, minlength=n_items),
                    sums["scored"], sums["tie"])


def row_groups(pairs: PairTable, by: str = "category",
               category: str | None = None) -> tuple[list[tuple[str | None, str | None]], list[np.ndarray]]:
    """Row keys (category, phenomenon) in suite order and, per row, the items with at least one pair.

    Suite order is the order in which categories, and phenomena within a category, first appear by item
    position (the items of a ``PairTable`` are in position order), as in every table of the project.

    Items without pairs take no part in a row: they neither add pairs nor should they be drawn by the
    bootstrap. With ``category`` the rows are that category's phenomena.
    """
    if by not in BY:
        raise TsqeError(f"unknown grouping {by!r} (choose one of: {', '.join(BY)})")
    outputs = pairs.outputs
    has_pairs = np.bincount(pairs.pair_item, minlength=outputs.item_ids.size) > 0
    if category is not None:
        known = outputs.categories()
        if category not in known:
            raise TsqeError(f"no category named {category!r} (categories: {', '.join(known) or 'none'})")
        by = "phenomenon"
        has_pairs &= outputs.item_categories == category
    members: dict[tuple[str | None, str | None], list[int]] = {}
    for i in np.flatnonzero(has_pairs):
        key = (outputs.item_categories[i], outputs.item_phenomena[i] if by == "phenomenon" else None)
        members.setdefault(key, []).append(int(i))
    first: dict[tuple[str | None, str | None], int] = {}  # over all items, those without pairs too
    for position, (cat, phen) in enumerate(zip(outputs.item_categories, outputs.item_phenomena)):
        first.setdefault((cat, None), position)
        first.setdefault((cat, phen), position)
    keys = sorted(members, key=lambda k: (first[k[0], None], first[k]))
    return keys, [np.array(members[k], dtype=np.intp) for k in keys]


def row_name(by: str, category: str | None, phenomenon: str | None) -> str:
    """The label of a row in tables, with the one naming of the project for items without a category."""
    if by == "phenomenon":
        return phenomenon or NO_PHENOMENON
    return category or NO_CATEGORY


@dataclass(frozen=True)
class AccuracyRow:
    """One line of the table: a category/phenomenon, or the ``Total`` or ``weighed`` summary.

    ``accuracy`` is NaN for a system that was judged on no pair of the row; ``ci`` is empty without bootstrap.
    ``amount`` and ``items`` are None for ``weighed``, which is a mean of rows rather than a set of pairs, and
    ``tie_rate`` is empty there; elsewhere it is NaN for a system that scored both sides of no pair of the row.
    """

    name: str
    category: str | None
    phenomenon: str | None
    amount: int | None
    items: int | None
    accuracy: dict[str, float]
    counted: dict[str, int]
    ci: dict[str, tuple[float, float]]
    best: list[str]
    """The systems of rank 1."""
    ranks: dict[str, int | None]
    """Significant ranks with shared places (:mod:`qe.statistics`); None for a system without an accuracy."""
    tie_rate: dict[str, float] = field(default_factory=dict)

    @property
    def too_few(self) -> bool:
        """Too little data for a conclusion (see :func:`too_few`): the row's pairs and items, or the pairs a
        system was judged on (ties dropped, pairs it did not score), which may be none at all."""
        if self.amount is None:
            return False
        judged = min(self.counted.values(), default=self.amount)
        return too_few(min(self.amount, judged), self.items or 0)


def too_few(amount: int, items: int) -> bool:
    """Fewer than 30 pairs or fewer than 5 items.

    With 30 pairs the 95 % interval of an accuracy near 50 % is still about ±18 points, wider than the gaps
    between QE systems one hopes to see; and since pairs of one item are correlated, a row drawn from
    fewer than 5 items says more about those items than about the phenomenon (its item bootstrap can only
    recombine a handful of values).
    """
    return amount < MIN_PAIRS or items < MIN_ITEMS


@dataclass(frozen=True)
class AccuracyResult:
    by: str
    category: str | None
    ties: Ties
    qe_systems: list[str]
    higher_is_better: dict[str, bool]
    bootstrap: int
    seed: int | None
    rows: list[AccuracyRow]
    total: AccuracyRow
    weighed: AccuracyRow
    confidence: float = CONFIDENCE
    alpha: float = ALPHA
    tie_epsilon: dict[str, float] = field(default_factory=dict)
    """Each system's tie margin: a pair whose scores differ by at most it is a tie."""
    challenge: str | None = None
    """The challenge-set layout the suite was imported from (``store.models.CHALLENGE_FORMATS``), None for any
    other suite: it decides the default ties policy, which the notes then name."""
    ties_chosen: bool = True
    """Whether ``ties`` was asked for (False: the suite's default)."""
    aces_score: dict[str, float] | None = None
    """ACES's severity-weighted summary score per system, for an ACES suite's whole-suite table
    (``qe.aces_score``); None for any other."""

    @property
    def table_rows(self) -> list[AccuracyRow]:
        """The rows as the table and the chart show them: the body, then Total and weighed."""
        return [*self.rows, self.total, self.weighed]

    def to_dict(self) -> dict[str, Any]:
        """The JSON schema of the issue (accuracies as fractions), plus provenance and counted/too_few."""
        def estimate(r: AccuracyRow) -> dict[str, Any]:
            return {"accuracy": {q: _number(r.accuracy[q]) for q in self.qe_systems},
                    "ci": {q: _interval(r.ci.get(q)) for q in self.qe_systems}, "best": list(r.best),
                    "rank": {q: r.ranks.get(q) for q in self.qe_systems}}

        def counts(r: AccuracyRow) -> dict[str, Any]:
            return {"amount": r.amount, "items": r.items, "counted": dict(r.counted),
                    "tie_rate": {q: _number(r.tie_rate[q]) for q in self.qe_systems}}

        return {
            "by": self.by, "category": self.category, "ties": self.ties, "ties_default": not self.ties_chosen,
            "tie_epsilon": dict(self.tie_epsilon), "challenge": self.challenge, "qe_systems": list(self.qe_systems),
            "higher_is_better": dict(self.higher_is_better), "bootstrap": self.bootstrap, "seed": self.seed,
            "confidence": self.confidence, "alpha": self.alpha,
            "rows": [{"category": r.category, "phenomenon": r.phenomenon, **counts(r), **estimate(r),
                      "too_few": r.too_few} for r in self.rows],
            "total": {**counts(self.total), **estimate(self.total)},
            "weighed": estimate(self.weighed),
            "aces_score": None if self.aces_score is None else {q: _number(v) for q, v in self.aces_score.items()},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def to_table(self) -> Table:
        """The Table-2 layout: rows with amount, one column per QE system, then ``Total`` and ``weighed``."""
        if self.category is not None:
            label_names = ["phenomenon"]
        elif self.by == "category":
            label_names = ["category"]
        else:
            label_names = ["category", "phenomenon"]
        label_columns = [Column(name, "text") for name in label_names]
        columns = [*label_columns, Column("amount", "count"),
                   *(Column(q, "fraction") for q in self.qe_systems),
                   *(Column(f"{q} {TIES_COLUMN}", "fraction", shaded=False) for q in self.qe_systems),
                   Column("too_few", "flag")]

        def cells(r: AccuracyRow, labels: list[str | None]) -> list[Cell]:
            mark = TOO_FEW_MARK if r.too_few else ""
            return [*(Cell(v) for v in labels), Cell(r.amount, mark=mark),
                    *(Cell(r.accuracy[q], ci=r.ci.get(q), bold=q in r.best) for q in self.qe_systems),
                    *(Cell(r.tie_rate.get(q)) for q in self.qe_systems),
                    Cell(r.too_few if r.amount is not None else None)]

        body = [cells(r, [getattr(r, name) or (NO_CATEGORY if name == "category" else NO_PHENOMENON)
                          for name in label_names]) for r in self.rows]
        pad: list[str | None] = [None] * (len(label_columns) - 1)
        footer = [cells(self.total, ["Total", *pad]), cells(self.weighed, ["weighed", *pad])]
        if self.aces_score is not None:
            footer.append([Cell(ACES_ROW), *(Cell(None) for _ in pad), Cell(None),
                           *(Cell(self.aces_score.get(q), kind="number") for q in self.qe_systems),
                           *(Cell(None) for _ in self.qe_systems), Cell(None)])
        where = f" in category {self.category}" if self.category else f" per {self.by}"
        notes = [f"Pairwise accuracy (%){where}; {self._ties_note()}",
                 f"{TIES_COLUMN}: the share of the row's pairs a system scored on both sides that are ties "
                 f"({self._epsilon_note()})."]
        if self.bootstrap:
            notes.append(f"[low, high]: {self.confidence:.0%} bootstrap interval over items "
                         f"({self.bootstrap} resamples, seed {self.seed}).")
            bold = (f"rank 1 of the row: the best system and those not significantly worse "
                    f"(paired bootstrap over items, one-sided, alpha {self.alpha}).")
        else:
            bold = "highest accuracy of the row (no bootstrap, so no significance test)."
        if any(r.too_few for r in self.rows):
            notes.append(f"{TOO_FEW_MARK} too few pairs for a conclusion (fewer than {MIN_PAIRS} pairs or "
                         f"{MIN_ITEMS} items, or a system judged on fewer than {MIN_PAIRS} pairs of the row).")
        if self.aces_score is not None:
            notes.append(f"{ACES_ROW}: {ACES_NOTE}")
        return Table(title=f"QE pairwise accuracy{where}", columns=columns, body=body, footer=footer,
                     notes=notes, bold_note=bold)


    def _ties_note(self) -> str:
        counted = {"half": "counted half (0.5: a coin flip, the chance level of QE)",
                   "wrong": "counted as wrong (0: the published convention of challenge sets, DEMETR's and "
                            "ACES's)",
                   "drop": "left out of each system's pairs"}[self.ties]
        if self.ties_chosen:
            why = ""
        elif self.challenge is not None:
            why = f"; the default for a suite imported as a challenge set ({self.challenge})"
        else:
            why = "; the default for QE"
        return f"ties {counted}{why}."

    def _epsilon_note(self) -> str:
        margins = {value for value in self.tie_epsilon.values()}
        if not margins or margins == {0.0}:
            return "a tie: both scores equal"
        if len(margins) == 1:
            return f"a tie: scores at most {margins.pop():g} apart"
        return "a tie: scores at most ε apart, ε = " + ", ".join(f"{self.tie_epsilon[q]:g} for {q}"
                                                                 for q in self.qe_systems)


def pairwise_accuracy(pairs: PairTable, systems: Sequence[QEScores], *, by: str = "category",
                      category: str | None = None, ties: Ties = Ties.HALF, tie_epsilon: float | None = None,
                      bootstrap: int = 1000, seed: int | None = None,
                      task: TaskState | None = None) -> AccuracyResult:
    """Accuracy per row, Total and weighed, with bootstrap intervals, best-system marks and tie rates.

    ``bootstrap`` resamples items within each row (see :mod:`qe.statistics`); 0 skips intervals and
    significance, marking only the highest accuracy as best. ``tie_epsilon`` is every system's tie margin
    (default: each system's own). Reads and writes no database, so a cancel (``task``) only stops the
    computation.
    """
    task = progress_of(task)
    if not systems:
        raise TsqeError("no QE system to evaluate")
    if bootstrap < 0:
        raise TsqeError(f"the number of bootstrap resamples must be 0 or more, not {bootstrap}")
    names = [s.name for s in systems]
    if len(set(names)) != len(names):
        raise TsqeError(f"a QE system is named twice: {', '.join(names)}")
    sums = item_sums(pairs, systems, ties, tie_epsilon)
    keys, groups = row_groups(pairs, by, category)
    by = "phenomenon" if category is not None else by
    k = len(systems)
    values = np.hstack([sums.credit, sums.counted])
    point = np.array([values[g].sum(axis=0) for g in groups]).reshape(len(groups), 2 * k)
    amounts = [int(sums.pairs[g].sum()) for g in groups]
    tied = np.array([np.hstack([sums.ties[g].sum(axis=0), sums.scored[g].sum(axis=0)])
                     for g in groups]).reshape(len(groups), 2 * k)

    samples = None
    task.progress(0, 2, f"{bootstrap:,} bootstrap resamples of {len(groups):,} rows")
    if bootstrap:
        rng = np.random.default_rng(seed)
        samples = bootstrap_group_sums(values, groups, bootstrap, rng)  # (G, B, 2K)

    def accuracy_of(s: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(s[..., :k] / s[..., k:])

    row_point = accuracy_of(point)  # (G, K)
    row_boot = accuracy_of(samples) if samples is not None else None  # (G, B, K)

    def make_row(name: str, cat: str | None, phen: str | None, amount: int | None, n_items: int | None,
                 acc: np.ndarray, boot: np.ndarray | None, counted: np.ndarray | None,
                 ties: np.ndarray | None) -> AccuracyRow:
        ci = {} if boot is None else {q: percentile_interval(boot[:, j]) for j, q in enumerate(names)}
        ranks = significance_ranks(acc, boot, ALPHA)
        return AccuracyRow(
            name=name, category=cat, phenomenon=phen, amount=amount, items=n_items,
            accuracy={q: float(acc[j]) for j, q in enumerate(names)},
            counted={} if counted is None else {q: int(counted[j]) for j, q in enumerate(names)},
            ci=ci, best=[q for q, rank in zip(names, ranks) if rank == 1], ranks=dict(zip(names, ranks)),
            tie_rate={} if ties is None else {q: float(rate) for q, rate in zip(names, accuracy_of(ties))},
        )

    task.progress(1, 2, "significance per row")
    rows = []
    for g, ((cat, phen), members) in enumerate(zip(keys, groups)):
        rows.append(make_row(row_name(by, cat, phen), cat, phen, amounts[g],
                             int(members.size), row_point[g], None if row_boot is None else row_boot[g],
                             point[g, k:], tied[g]))
    total_point = point.sum(axis=0) if groups else np.zeros(2 * k)
    total = make_row("Total", None, None, int(sum(amounts)), int(sum(g.size for g in groups)),
                     accuracy_of(total_point), None if samples is None else accuracy_of(samples.sum(axis=0)),
                     total_point[k:], tied.sum(axis=0))
    with np.errstate(invalid="ignore"):
        weighed_point = _nanmean(row_point, axis=0) if groups else np.full(k, np.nan)
        weighed_boot = None if row_boot is None else _nanmean(row_boot, axis=0)
    weighed = make_row("weighed", None, None, None, None, weighed_point, weighed_boot, None, None)
    task.progress(2, 2, "accuracy computed")
    return AccuracyResult(
        by=by, category=category, ties=ties, qe_systems=names,
        higher_is_better={s.name: s.higher_is_better for s in systems}, bootstrap=bootstrap, seed=seed,
        rows=rows, total=total, weighed=weighed,
        tie_epsilon={s.name: s.tie_epsilon if tie_epsilon is None else tie_epsilon for s in systems},
    )


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    """Mean ignoring NaN, NaN (without a warning) where everything is NaN."""
    present = ~np.isnan(values)
    count = present.sum(axis=axis)
    total = np.where(present, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(total / count)


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def _interval(ci: tuple[float, float] | None) -> list[float | None] | None:
    return None if ci is None else [_number(ci[0]), _number(ci[1])]
