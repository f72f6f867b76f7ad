"""A metric's per-segment statistics over a suite's items, to recompute system scores on resamples of segments,
with sacrebleu's statistics cached per output.

The statistics are the metric registry's own (:mod:`filters.metrics.statistics`): a corpus BLEU, chrF or TER is
sacrebleu's score of summed per-segment statistics (``SacreBleuMetric.segment_statistics``), a mean of segment
scores the ratio of summed ``[score, 1]``. Two things are added here for a meta-evaluation that resamples several
datasets and metrics at once:

- **a cache**: computing TER's statistics for the 71,000 outputs of three WMT test sets takes most of an hour on
  the project machine, every time ``tsqe correlate`` or ``tsqe meta-eval`` runs. ``metric_statistics`` keeps each
  distinct output's statistics under the metric's signature (with its reference choice) and a hash of its item's
  references, so an edited reference is never served stale statistics;
- **one unit of segments**: every :class:`SystemMetricStatistics` is over item database ids, so the metrics of a dataset
  (and its segment-level human scores) are resampled on the same segments.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from filters.metrics import MetricOptions, get_metric, metric_spec
from filters.metrics.statistics import CombinedStatistics, Resamplable, SegmentStatistics, mean_statistics
from filters.scoring import score_outputs
from store import Database
from store.models import Item, Output, System, SystemOutput
from store.models import MetricStatistics as CachedStatistics
from suite.errors import TsqeError
from suite.references import RefChoice, references_of
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of

if TYPE_CHECKING:
    from filters.metrics.sacrebleu import SacreBleuMetric

STATISTICS_CHUNK = 2000


@dataclass(frozen=True)
class SystemMetricStatistics:
    """A metric's resamplable statistics for some systems, over item database ids."""

    metric: str
    signature: str
    higher_is_better: bool
    tie_epsilon: float
    """System scores this close are a tie (the metric's registry entry: float noise of BERTScore)."""
    statistics: Resamplable

    @property
    def items(self) -> list[int]:
        return self.statistics.items

    def scores(self, systems: Sequence[str], weights: np.ndarray) -> np.ndarray:
        """(resamples, systems) scores, ``weights`` (resamples x :attr:`items`) saying how often each item is drawn."""
        scores = self.statistics.scores(weights)
        return np.column_stack([scores[system] for system in systems])


def metric_statistics(db: Database, metric: str, systems: Sequence[str], *, suite_name: str | None = None,
                      refs: RefChoice | None = None, options: MetricOptions | None = None,
                      task: TaskState | None = None) -> SystemMetricStatistics:
    """The statistics of ``metric`` for ``systems`` over the items all of them translated (and the references
    cover, for a reference-based metric)."""
    spec = metric_spec(metric)
    refs = refs or RefChoice.default()
    if spec.level == "system":
        raise TsqeError(f"{metric} is a system-level score without segment scores to resample: choose a metric "
                        "with a score per output")
    if spec.corpus_form:
        from filters.metrics.sacrebleu import SacreBleuMetric

        scorer = get_metric(metric, options, db)
        assert isinstance(scorer, SacreBleuMetric)
        singles = refs.scored()
        parts = [_corpus_statistics(db, scorer, systems, single, suite_name, progress_of(task)) for single in singles]
        statistics: Resamplable = parts[0] if len(parts) == 1 else \
            CombinedStatistics(parts, refs.combine, scorer.higher_is_better)
        return SystemMetricStatistics(metric, str(scorer.signature_for(refs)), scorer.higher_is_better,
                                      spec.tie_epsilon, statistics)
    scores = score_outputs(db, metric, suite_name=suite_name, systems=list(systems), refs=refs, options=options,
                           task=task)
    external_ids, values = scores.columns(systems)
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        item_ids = dict(session.execute(select(Item.external_id, Item.id).where(Item.suite_id == suite_id)).all())
        translated = _items_of_every_system(session, suite_id, systems)
    rows = [i for i, item in enumerate(external_ids) if item_ids[item] in translated]
    statistics = mean_statistics([item_ids[external_ids[i]] for i in rows],
                                 {system: values[rows, j] for j, system in enumerate(systems)})
    return SystemMetricStatistics(metric, str(scores.signature), scores.higher_is_better, spec.tie_epsilon, statistics)


def _items_of_every_system(session: Session, suite_id: int, systems: Sequence[str]) -> set[int]:
    seen: dict[int, set[str]] = {}
    for item, system in session.execute(select(SystemOutput.item_id, System.name)
                                        .join(System, System.id == SystemOutput.system_id)
                                        .where(System.suite_id == suite_id, System.name.in_(systems))):
        seen.setdefault(item, set()).add(system)
    return {item for item, names in seen.items() if len(names) == len(set(systems))}


def references_hash(references: Sequence[str]) -> str:
    """What a cached row of statistics was computed against: the item's references in their order."""
    return hashlib.sha1("\x00".join(references).encode("utf-8")).hexdigest()


def _corpus_statistics(db: Database, metric: SacreBleuMetric, systems: Sequence[str], refs: RefChoice,
                       suite_name: str | None, task: TaskState) -> SegmentStatistics:
    """sacrebleu's statistics of each system's outputs over the items every system translated and ``refs`` covers,
    from the cache where it has them; the ones computed now are cached in one transaction."""
    signature = str(metric.signature_for(refs))
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        links = session.execute(
            select(Item.id, System.name, SystemOutput.output_id, Output.text)
            .join(SystemOutput, SystemOutput.item_id == Item.id).join(System, System.id == SystemOutput.system_id)
            .join(Output, Output.id == SystemOutput.output_id)
            .where(Item.suite_id == suite_id, System.name.in_(systems)).order_by(Item.position, Item.id)).all()
        try:
            references = references_of(session, suite_id, refs)
        except TsqeError as error:
            raise TsqeError(f"{metric.name} {metric.spec.compares}, and {error}") from error
        cached = {output: (refs_hash, np.frombuffer(values)) for output, refs_hash, values in session.execute(
            select(CachedStatistics.output_id, CachedStatistics.references, CachedStatistics.statistics)
            .join(Output, Output.id == CachedStatistics.output_id).join(Item, Item.id == Output.item_id)
            .where(Item.suite_id == suite_id, CachedStatistics.signature == signature))}
    by_item: dict[int, dict[str, int]] = {}
    texts: dict[int, tuple[str, int]] = {}
    for item_id, system, output_id, text in links:
        by_item.setdefault(item_id, {})[system] = output_id
        texts[output_id] = (text, item_id)
    items = [item for item, outputs in by_item.items() if len(outputs) == len(set(systems)) and item in references]
    if not items:
        raise TsqeError(f"no item has a reference ({refs.describe()}) and an output of every chosen system")
    hashes = {item: references_hash(references[item]) for item in items}
    wanted = sorted({by_item[item][system] for item in items for system in systems})
    found = {o: v for o, (refs_hash, v) in cached.items() if o in texts and refs_hash == hashes.get(texts[o][1])}
    todo = [o for o in wanted if o not in found]
    computed: dict[int, np.ndarray] = {}
    for start in range(0, len(todo), STATISTICS_CHUNK):
        task.progress(start, len(todo), f"{metric.name} statistics of output {start:,} of {len(todo):,}")
        chunk = todo[start:start + STATISTICS_CHUNK]
        rows = metric.segment_statistics({"": [texts[o][0] for o in chunk]}, [references[texts[o][1]] for o in chunk])
        computed.update(zip(chunk, rows[""]))
    if computed:
        with db.transaction() as session:  # a cancel at the last report (before the commit) stores nothing
            ids = list(computed)
            for start in range(0, len(ids), 500):
                session.execute(delete(CachedStatistics).where(CachedStatistics.signature == signature,
                                                               CachedStatistics.output_id.in_(ids[start:start + 500])))
            session.execute(insert(CachedStatistics), [
                {"signature": signature, "output_id": o, "references": hashes[texts[o][1]],
                 "statistics": np.ascontiguousarray(v, dtype=np.float64).tobytes()} for o, v in computed.items()])
            task.progress(len(todo), len(todo), f"{metric.name} statistics of {len(todo):,} outputs computed")
    found.update(computed)
    stats = {system: np.stack([found[by_item[item][system]] for item in items]) for system in systems}
    # sacrebleu's score of summed statistics, as SacreBleuMetric.system_scores finishes its own
    return SegmentStatistics(items, stats, metric._finish)
