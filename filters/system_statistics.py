"""A metric's system-level scores as sums of per-segment statistics, so they can be recomputed on resamples.

A bootstrap over segments needs each system's score on every resample of the test set. Two kinds of metric:

- **corpus metrics** (BLEU, chrF, TER): sacrebleu's corpus score is a function of per-segment sufficient
  statistics summed over the corpus (``SacreBleuMetric.statistics``); the statistics of each distinct output are
  cached in ``metric_statistics`` (computing TER's anew took minutes per run), keyed by the metric's signature and
  checked against a hash of the item's references, so an edited reference is never served stale statistics;
- **segment metrics** (BERTScore, the pass/fail label, a QE system): the system score is the mean of its
  segment scores, i.e. the statistics are (score, 1) per scored segment and the score is their ratio.

Either way the full-corpus score equals what ``filters.correlation.system_level_scores`` reports (tested), and a
resample's score is the same function of the resampled sums. The items are those every chosen system translated
(and that have references, for a reference-based metric), as for the corpus scores of ``tsqe correlate``.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from filters.metrics import MetricOptions, get_metric, metric_spec
from filters.scoring import score_outputs
from store import Database
from store.models import Item, MetricStatistics, Output, System, SystemOutput
from suite.errors import TsqeError
from suite.references import RefChoice, references_of
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of

if TYPE_CHECKING:
    from filters.metrics.sacrebleu import SacreBleuMetric

STATISTICS_CHUNK = 2000


@dataclass(frozen=True)
class SystemStatistics:
    """Per system and item, the statistics a metric's system score is a function of, summed over items."""

    metric: str
    signature: str
    higher_is_better: bool
    tie_epsilon: float
    """System scores this close are a tie (the metric's ``tie_epsilon``: float noise of BERTScore)."""
    systems: list[str]
    items: list[str]
    """External ids, in suite order."""
    statistics: np.ndarray
    """(items, systems, d)."""
    score_of: Callable[[np.ndarray], float]
    """The system score of summed statistics (d,)."""

    def scores(self, weights: np.ndarray | None = None) -> np.ndarray:
        """System scores over all items (systems,), or over each resample of ``weights`` (resamples x items)
        as (resamples, systems)."""
        n_items, k, d = self.statistics.shape
        flat = self.statistics.reshape(n_items, k * d)
        summed = flat.sum(axis=0)[None, :] if weights is None else weights @ flat
        summed = summed.reshape(-1, k, d)
        values = np.array([[self.score_of(summed[b, j]) for j in range(k)] for b in range(summed.shape[0])])
        return values[0] if weights is None else values

    def on_items(self, items: list[str]) -> SystemStatistics:
        """The same statistics over ``items`` (a subset of this one's), in that order."""
        position = {item: i for i, item in enumerate(self.items)}
        return SystemStatistics(self.metric, self.signature, self.higher_is_better, self.tie_epsilon, self.systems,
                                items, self.statistics[[position[item] for item in items]], self.score_of)


def system_statistics(db: Database, metric: str, systems: Sequence[str], *, suite_name: str | None = None,
                      refs: RefChoice | None = None, options: MetricOptions | None = None,
                      task: TaskState | None = None) -> SystemStatistics:
    """The statistics of ``metric`` for ``systems`` over the items all of them translated."""
    spec = metric_spec(metric)
    refs = refs or RefChoice.default()
    if spec.level == "system":
        raise TsqeError(f"{metric} is a system-level score without segment scores to resample: choose a metric "
                        "with a score per output")
    if spec.corpus_form:
        from filters.metrics.sacrebleu import SacreBleuMetric

        scorer = get_metric(metric, options, db)
        assert isinstance(scorer, SacreBleuMetric)
        parts = [_corpus_statistics(db, scorer, systems, single, suite_name, progress_of(task))
                 for single in (refs.singles() if refs.combine != "multi" else [refs])]
        if len(parts) == 1:
            return parts[0]
        return _combined(parts, str(scorer.signature_for(refs)), refs.combine)
    scores = score_outputs(db, metric, suite_name=suite_name, systems=list(systems), refs=refs, options=options,
                           task=task)
    item_ids, values = scores.columns(systems)
    with db.session() as session:
        translated = _items_of_every_system(session, find_suite(session, suite_name).id, systems)
    rows = [i for i, item in enumerate(item_ids) if item in translated]
    chosen = values[rows]
    scored = ~np.isnan(chosen)
    statistics = np.stack([np.where(scored, chosen, 0.0), scored.astype(float)], axis=-1)
    return SystemStatistics(metric, str(scores.signature), scores.higher_is_better, spec.tie_epsilon, list(systems),
                            [item_ids[i] for i in rows], statistics, _mean_of)


def _mean_of(summed: np.ndarray) -> float:
    return float(summed[0] / summed[1]) if summed[1] else float("nan")


def _combined(parts: list[SystemStatistics], signature: str, combine: str) -> SystemStatistics:
    """Joined reference sets scored ``max`` or ``mean``: the best or the mean of the single-set corpus scores,
    over the items every set has a reference for (so each resample draws the same segments for every set)."""
    items = [item for item in parts[0].items if all(item in set(part.items) for part in parts[1:])]
    parts = [part.on_items(items) for part in parts]
    widths = np.cumsum([0, *(part.statistics.shape[2] for part in parts)])
    higher = parts[0].higher_is_better
    best = max if higher else min

    def score_of(summed: np.ndarray) -> float:
        values = [part.score_of(summed[widths[k]:widths[k + 1]]) for k, part in enumerate(parts)]
        return float(best(values)) if combine == "max" else float(np.mean(values))

    return SystemStatistics(parts[0].metric, signature, higher, parts[0].tie_epsilon, parts[0].systems, items,
                            np.concatenate([part.statistics for part in parts], axis=2), score_of)


def _items_of_every_system(session: Session, suite_id: int, systems: Sequence[str]) -> set[str]:
    rows = session.execute(select(Item.external_id, System.name)
                           .join(SystemOutput, SystemOutput.item_id == Item.id)
                           .join(System, System.id == SystemOutput.system_id)
                           .where(Item.suite_id == suite_id, System.name.in_(systems)))
    seen: dict[str, set[str]] = {}
    for item, system in rows:
        seen.setdefault(item, set()).add(system)
    return {item for item, names in seen.items() if len(names) == len(set(systems))}


def references_hash(references: Sequence[str]) -> str:
    """What a cached row of statistics was computed against: the item's references in their order."""
    return hashlib.sha1("\x00".join(references).encode("utf-8")).hexdigest()


def _corpus_statistics(db: Database, metric: SacreBleuMetric, systems: Sequence[str], refs: RefChoice,
                       suite_name: str | None, task: TaskState) -> SystemStatistics:
    signature = str(metric.signature_for(refs))
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        links = session.execute(
            select(Item.id, Item.external_id, System.name, SystemOutput.output_id, Output.text)
            .join(SystemOutput, SystemOutput.item_id == Item.id).join(System, System.id == SystemOutput.system_id)
            .join(Output, Output.id == SystemOutput.output_id)
            .where(Item.suite_id == suite_id, System.name.in_(systems)).order_by(Item.position, Item.id)).all()
        try:
            references = references_of(session, suite_id, refs)
        except TsqeError as error:
            raise TsqeError(f"{metric.name} {metric.spec.compares}, and {error}") from error
        cached = {output: (refs_hash, np.frombuffer(values)) for output, refs_hash, values in session.execute(
            select(MetricStatistics.output_id, MetricStatistics.references, MetricStatistics.statistics)
            .join(Output, Output.id == MetricStatistics.output_id).join(Item, Item.id == Output.item_id)
            .where(Item.suite_id == suite_id, MetricStatistics.signature == signature))}
    by_item: dict[int, dict[str, int]] = {}
    external: dict[int, str] = {}
    texts: dict[int, tuple[str, int]] = {}
    for item_id, external_id, system, output_id, text in links:
        by_item.setdefault(item_id, {})[system] = output_id
        external[item_id] = external_id
        texts[output_id] = (text, item_id)
    items = [item for item, outputs in by_item.items() if len(outputs) == len(set(systems)) and item in references]
    if not items:
        raise TsqeError(f"no item has a reference ({refs.describe()}) and an output of every chosen system")
    hashes = {item: references_hash(references[item]) for item in items}
    wanted = sorted({by_item[item][system] for item in items for system in systems})
    fresh = {o: v for o, (refs, v) in cached.items() if o in texts and refs == hashes[texts[o][1]]}
    todo = [o for o in wanted if o not in fresh]
    computed: dict[int, np.ndarray] = {}
    for start in range(0, len(todo), STATISTICS_CHUNK):
        task.progress(start, len(todo), f"{metric.name} statistics of output {start:,} of {len(todo):,}")
        chunk = todo[start:start + STATISTICS_CHUNK]
        rows = metric.statistics([texts[o][0] for o in chunk], [references[texts[o][1]] for o in chunk])
        computed.update(zip(chunk, rows))
    if computed:
        with db.transaction() as session:  # a cancel at the last report (before the commit) stores nothing
            ids = list(computed)
            for start in range(0, len(ids), 500):
                session.execute(delete(MetricStatistics).where(MetricStatistics.signature == signature,
                                                               MetricStatistics.output_id.in_(ids[start:start + 500])))
            session.execute(insert(MetricStatistics), [
                {"signature": signature, "output_id": o, "references": hashes[texts[o][1]],
                 "statistics": np.ascontiguousarray(v, dtype=np.float64).tobytes()} for o, v in computed.items()])
            task.progress(len(todo), len(todo), f"{metric.name} statistics of {len(todo):,} outputs computed")
    fresh.update(computed)
    statistics = np.stack([np.stack([fresh[by_item[item][system]] for system in systems]) for item in items])
    return SystemStatistics(metric.name, signature, metric.higher_is_better, metric.spec.tie_epsilon, list(systems),
                            [external[item] for item in items], statistics, metric.score_of_statistics)
