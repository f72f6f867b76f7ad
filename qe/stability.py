"""Data variance of the QE verdict (Xiang et al. 2022): does the ranking of QE systems survive a new sample?

The items of the suite (or of one category) are split at random into two halves, many times; on each split
the QE systems are ranked by accuracy on either half and the two rankings are compared:

- ``mean_tau``: mean Kendall tau (scipy's tau-b) between the halves' accuracies; 1 means the same order
  every time, around 0 means the order is noise;
- ``same_top``: share of splits whose halves agree on the best system;
- ``significant_flips``: over all splits, the pairs of systems whose order flips between the halves while
  BOTH halves find their difference significant. Plain flips are expected when two systems are close; a
  significant flip means a reader of either half alone would have drawn the opposite firm conclusion.

Significance inside a half uses a cluster-robust (items as clusters) z-test on the difference of the two
accuracies, the delta-method counterpart of the item bootstrap in :mod:`qe.statistics`: a bootstrap inside
each half of each split would multiply the work by the number of resamples for no gain in what this
diagnostic needs to show. All halves of all splits are computed at once from per-item sums as matrix
products, so thousands of splits are cheap.
"""
from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from qe.accuracy import TOO_FEW_MARK, item_sums, row_groups, row_name, too_few
from qe.pairs import PairTable
from suite.domain import Ties
from suite.errors import TsqeError
from suite.qe_scores import QEScores
from suite.significance import ALPHA
from suite.tables import Cell, Column, Table
from suite.tasks import TaskState, progress_of

_CELLS_PER_CHUNK = 1 << 21


@dataclass(frozen=True)
class StabilityRow:
    name: str
    category: str | None
    phenomenon: str | None
    items: int
    amount: int
    mean_tau: float
    same_top: float
    significant_flips: int
    splits_with_flip: float

    @property
    def too_few(self) -> bool:
        return too_few(self.amount, self.items)


@dataclass(frozen=True)
class StabilityResult:
    by: str
    ties: Ties
    qe_systems: list[str]
    splits: int
    seed: int | None
    overall: StabilityRow
    rows: list[StabilityRow]
    alpha: float = ALPHA

    def to_dict(self) -> dict[str, Any]:
        def row(r: StabilityRow) -> dict[str, Any]:
            return {"category": r.category, "phenomenon": r.phenomenon, "items": r.items, "amount": r.amount,
                    "mean_tau": _number(r.mean_tau), "same_top": _number(r.same_top),
                    "significant_flips": r.significant_flips, "splits_with_flip": _number(r.splits_with_flip),
                    "too_few": r.too_few}

        return {"by": self.by, "ties": self.ties, "qe_systems": list(self.qe_systems), "splits": self.splits,
                "seed": self.seed, "alpha": self.alpha, "overall": row(self.overall),
                "rows": [row(r) for r in self.rows]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    def to_table(self) -> Table:
        columns = [Column(self.by, "text"), Column("items", "count"), Column("amount", "count"),
                   Column("mean tau", "number"), Column("same top", "fraction"),
                   Column("significant flips", "count"), Column("splits with a significant flip", "fraction"),
                   Column("too_few", "flag")]

        def cells(r: StabilityRow) -> list[Cell]:
            return [Cell(r.name), Cell(r.items), Cell(r.amount, mark=TOO_FEW_MARK if r.too_few else ""),
                    Cell(r.mean_tau), Cell(r.same_top), Cell(r.significant_flips), Cell(r.splits_with_flip),
                    Cell(r.too_few)]

        notes = [f"{self.splits} random splits of the items into halves (seed {self.seed}); QE systems: "
                 f"{', '.join(self.qe_systems)}; ties counted as {self.ties!r}.",
                 "mean tau: Kendall tau between the halves' accuracy rankings; same top (%): splits whose halves "
                 "agree on the best system; significant flips: system pairs whose order flips between halves "
                 f"with both differences significant (cluster-robust z-test over items, alpha {self.alpha}).",
                 ]
        if any(r.too_few for r in self.rows):
            notes.append(f"{TOO_FEW_MARK} too few pairs for a conclusion.")
        return Table(title=f"Stability of the QE ranking per {self.by}", columns=columns,
                     body=[cells(r) for r in self.rows], footer=[cells(self.overall)], notes=notes)


def ranking_stability(pairs: PairTable, systems: Sequence[QEScores], *, by: str = "category",
                      category: str | None = None, ties: Ties = Ties.HALF, tie_epsilon: float | None = None,
                      splits: int = 200, seed: int | None = None, task: TaskState | None = None) -> StabilityResult:
    """Split-half agreement of the QE systems' ranking, overall and per row; reads and writes no database.
    ``tie_epsilon`` is every system's tie margin (default: each system's own)."""
    task = progress_of(task)
    if len(systems) < 2:
        raise TsqeError("stability compares the ranking of QE systems: give at least two")
    if splits < 1:
        raise TsqeError(f"the number of random splits must be 1 or more, not {splits}")
    sums = item_sums(pairs, systems, ties, tie_epsilon)
    keys, groups = row_groups(pairs, by, category)
    by = "phenomenon" if category is not None else by
    rng = np.random.default_rng(seed)
    values = np.hstack([sums.credit, sums.counted])
    everything = np.concatenate(groups) if groups else np.zeros(0, dtype=np.intp)
    task.progress(0, len(groups) + 1, f"{splits:,} random splits overall")
    overall = _row("overall", None, None, everything, values, sums.pairs, splits, rng, len(systems))
    rows = []
    for number, ((cat, phen), members) in enumerate(zip(keys, groups), start=1):
        task.progress(number, len(groups) + 1, f"{splits:,} random splits of row {number:,} of {len(groups):,}")
        rows.append(_row(row_name(by, cat, phen), cat, phen, members, values,
                         sums.pairs, splits, rng, len(systems)))
    task.progress(len(groups) + 1, len(groups) + 1, "ranking stability computed")
    return StabilityResult(by=by, ties=ties, qe_systems=[s.name for s in systems], splits=splits, seed=seed,
                           overall=overall, rows=rows)


def _row(name: str, category: str | None, phenomenon: str | None, members: np.ndarray, values: np.ndarray,
         pairs_per_item: np.ndarray, splits: int, rng: np.random.Generator, k: int) -> StabilityRow:
    m = members.size
    amount = int(pairs_per_item[members].sum())
    if m < 2:
        return StabilityRow(name, category, phenomenon, m, amount, math.nan, math.nan, 0, math.nan)
    block = values[members]
    taus, same_top, flips = [], [], []
    chunk = max(1, _CELLS_PER_CHUNK // m)
    for start in range(0, splits, chunk):
        n = min(chunk, splits - start)
        order = np.argsort(rng.random((n, m)), axis=1)
        first = np.zeros((n, m))
        np.put_along_axis(first, order[:, : m // 2], 1.0, axis=1)
        with threadpool_limits(limits=1, user_api="blas"):  # narrow products: see qe.statistics
            (acc_a, z_a), (acc_b, z_b) = _half(first, block, k), _half(1.0 - first, block, k)
        for s in range(n):
            taus.append(_tau(acc_a[s], acc_b[s]))
            same_top.append(_same_top(acc_a[s], acc_b[s]))
        with np.errstate(invalid="ignore"):
            flipped = (np.sign(z_a) * np.sign(z_b) < 0) & (np.abs(z_a) > _Z) & (np.abs(z_b) > _Z)
        flips.append(flipped.sum(axis=1))
    flip_counts = np.concatenate(flips)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean_tau = float(np.nanmean(taus)) if not np.all(np.isnan(taus)) else math.nan
        top = np.array(same_top, dtype=float)
        share_top = float(np.nanmean(top)) if not np.all(np.isnan(top)) else math.nan
    return StabilityRow(name, category, phenomenon, m, amount, mean_tau, share_top, int(flip_counts.sum()),
                        float(np.mean(flip_counts > 0)))


_Z = NormalDist().inv_cdf(1 - ALPHA / 2)  # the standard library's: SciPy takes half a second to import


def _half(weights: np.ndarray, block: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Accuracies (splits x K) of one half and z statistics (splits x pairs) of all system differences."""
    sums = weights @ block  # (n, 2K)
    credit, counted = sums[:, :k], sums[:, k:]
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = credit / counted
    # Second moments of the per-item (credit, counted) vectors within the half, for the clustered variance.
    outer = (block[:, :, None] * block[:, None, :]).reshape(block.shape[0], -1)
    moments = (weights @ outer).reshape(-1, 2 * k, 2 * k)
    items = weights.sum(axis=1)
    i_idx, j_idx = np.triu_indices(k, 1)
    n = weights.shape[0]
    # Linearised difference per item: (c_i - a_i n_i)/N_i - (c_j - a_j n_j)/N_j = w . (credit, counted).
    w = np.zeros((n, i_idx.size, 2 * k))
    with np.errstate(invalid="ignore", divide="ignore"):
        rows = np.arange(i_idx.size)
        w[:, rows, i_idx] = 1.0 / counted[:, i_idx]
        w[:, rows, k + i_idx] = -acc[:, i_idx] / counted[:, i_idx]
        w[:, rows, j_idx] = -1.0 / counted[:, j_idx]
        w[:, rows, k + j_idx] = acc[:, j_idx] / counted[:, j_idx]
        variance = np.einsum("npa,nab,npb->np", w, moments, w) * (items / (items - 1))[:, None]
        z = (acc[:, i_idx] - acc[:, j_idx]) / np.sqrt(variance)
    return acc, z


def _tau(a: np.ndarray, b: np.ndarray) -> float:
    present = ~(np.isnan(a) | np.isnan(b))
    if present.sum() < 2:
        return math.nan
    from scipy import stats  # when a ranking is compared, not whenever a command starts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.kendalltau(a[present], b[present]).statistic)


def _same_top(a: np.ndarray, b: np.ndarray) -> float:
    if np.all(np.isnan(a)) or np.all(np.isnan(b)):
        return math.nan
    return float(np.nanargmax(a) == np.nanargmax(b))


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value
