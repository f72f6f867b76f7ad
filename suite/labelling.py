"""Automatic labelling of a suite's distinct outputs, incremental and persistent.

An output is (re)labelled when it is new (its id is above what its item's last labelling covered), when
the fingerprint of its item's rules and known translations (``suite.rules.item_fingerprint``) differs from
the one stored in ``label_fingerprints`` for the item's labels, or when its label is ``error`` (so that a
fixed pattern or a longer timeout is tried again). ``unknown`` is written as no row (see
``store.models.STORED_AUTO_LABELS``). Manual labels are never read or written here.

Work goes in chunks of whole items. Large runs match in worker processes (``suite.watched_pool``: started
by a fork server, never forked from this process, so labelling is safe from a worker thread of a GUI), each
receiving the plan (rules and known translations) once, reading its chunks through its own connection and
searching WITHOUT per-search timeouts, which cost the regex package two system calls a search; a chunk that
overruns a generous budget is killed and redone here with per-search timeouts, so a slow search still ends
as ``error`` with its reason. This process writes each chunk's labels as they arrive. The whole run is one
transaction: a cancelled or failed run changes nothing. It holds the suite's coverage lock (``store.locks``),
so that on PostgreSQL no import adds outputs to the suite while it runs.

Workers switch the cyclic garbage collector off for their whole (short) life: they allocate millions of
tuples and lists that hold no reference cycles, which the collector would scan again and again (it doubled
their time). This process leaves the collector alone, as other threads of the process (a GUI) share it.
"""
from __future__ import annotations

import gc
import os
from collections import Counter, defaultdict
from collections.abc import Collection, Generator, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from itertools import compress
from operator import itemgetter

from sqlalchemy import BindParameter, ScalarSelect, bindparam, delete, func, null, or_, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from store import Database
from store.bulk import insert_tuples, select_tuples_each
from store.engine import make_engine
from store.locks import lock_outputs_of_suite
from store.models import (
    AutoLabel,
    ConstructedLabel,
    Item,
    KnownTranslation,
    LabelFingerprint,
    ManualLabel,
    Output,
    Rule,
    Suite,
)
from suite.engine.label_run import LabelRun
from suite.engine.output_policy import OutputPolicy, read_policy
from suite.label_counts import automatic_counts, refresh_counts, store_counts
from suite.labels import EFFECTIVE_LABELS, effective_label, join_labels
from suite.rules import (
    CONSTRUCTED,
    DEFAULT_TIMEOUT,
    UNKNOWN,
    Decision,
    ItemMatcher,
    KnownSpec,
    RuleSpec,
    item_fingerprint,
)
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of
from suite.watched_pool import run_watched, start_early

CHUNK = 50
"""Items per chunk of work (a DFKI chunk is 250 outputs, or 18,000 in the million-output benchmark); also how
often progress is reported. Chunks go by items, not outputs, so that planning reads no output."""

PARALLEL_THRESHOLD = 200
"""Fewer items to label than this are labelled in this process: starting workers would cost more than
compiling their rules (the larger part of labelling a small suite) in parallel saves."""

WATCHDOG_GRACE = 4.0
WATCHDOG_PER_ITEM = 0.1
"""A worker's chunk may take ``WATCHDOG_GRACE + timeout + WATCHDOG_PER_ITEM * items`` seconds (10 s for a chunk
of 50 items at the default timeout), still about a hundred times what a chunk of the million-output benchmark
needs (18,000 outputs in about 0.1 s), before it is killed and redone with per-search timeouts. It was 61 s:
one catastrophic pattern (``^(a|aa)+$``) then held a whole labelling run up for a minute before its chunk was
redone; a chunk killed by mistake on a loaded machine only costs the slower, timed redo."""

_ID_CHUNK = 5_000
"""Ids per ``IN (...)`` list, well below every backend's limit on bound parameters."""

WORKER_NICENESS = 10
"""Workers yield the CPU to this process, whose writing is the run's critical path."""

_LABEL_COLUMNS = ("output_id", "label", "rule_id", "reason")


def _chunks(values: Sequence[int], size: int) -> Iterator[Sequence[int]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


@dataclass(frozen=True)
class _Chunk:
    items: tuple[int, ...]
    stale: bool
    """Whether the items are all stale (every output relabelled) or all kept (only new and error outputs)."""
    unlabelled: bool = False
    """Whether the (stale) items have never been labelled, so that they have no label rows to replace."""


@dataclass
class _Plan:
    """What every chunk needs, prepared before the workers start and sent to each of them once."""

    rules: dict[int, list[RuleSpec]]
    known: dict[int, list[KnownSpec]]
    timeout: float
    policy: OutputPolicy = OutputPolicy()
    sources: dict[int, str] = field(default_factory=dict)
    """The items' sources, when the policy decides outputs identical to them (else empty)."""
    stale: frozenset[int] = frozenset()
    """Items whose every output is relabelled: their fingerprint changed or was never stored."""
    constructed: dict[int, Decision] = field(default_factory=dict)
    """Output -> its label by a challenge set's construction, which decides it whatever the rules say (written
    with the output itself, so an output that has one is always new to labelling when it gets it)."""
    matchers: dict[int, ItemMatcher] = field(default_factory=dict)

    def fingerprint(self, item_id: int) -> str:
        return item_fingerprint(self.rules.get(item_id, ()), self.known.get(item_id, ()),
                                self.policy.fingerprint(self.sources.get(item_id, "")))

    def matcher(self, item_id: int) -> ItemMatcher:
        matcher = self.matchers.get(item_id)
        if matcher is None:
            matcher = self.matchers[item_id] = ItemMatcher(self.rules.get(item_id, ()), self.known.get(item_id, ()),
                                                           self.timeout,
                                                           self.policy.decisions(self.sources.get(item_id, "")))
        return matcher


@dataclass
class _Labels:
    """One chunk's labels to store as parallel columns, which pickle and turn into rows far faster than row
    tuples; ``unknown`` decisions are only counted, as they are stored as no row."""

    ids: list[int]
    labels: list[str]
    rule_ids: list[int | None]
    reasons: dict[int, str]
    """Position in ``ids`` -> reason, for the rare decisions that have one."""
    unknown: int
    relabelled: list[int]
    """Outputs that had a label row before, which has to be deleted first."""
    read_through: dict[int, int]
    """Item -> the largest id among the outputs read of it (items with none read are left out)."""
    counts: list[tuple[int, int, int, int, int, int, int, int]] = field(default_factory=list)
    """A stale chunk's rows of ``item_label_counts``, counted from its decisions (``store_counts``)."""

    def rows(self) -> tuple[list[tuple[int, str, int | None]], list[tuple[int, str, int | None, str]]]:
        """(output id, label, rule id) of the labels without a reason, and the few with theirs: binding
        the always-empty reason column would cost a sixth of the insert."""
        rows = list(zip(self.ids, self.labels, self.rule_ids))
        if not self.reasons:
            return rows, []
        with_reason = [(*rows[position], reason) for position, reason in self.reasons.items()]
        return [row for position, row in enumerate(rows) if position not in self.reasons], with_reason


_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)
"""Columns of (output id, text, labelled before) rows and of decisions (label, rule id, reason), taken in C."""

_to_relabel = or_(Output.id > LabelFingerprint.labelled_through, AutoLabel.label == "error")
"""Which outputs of a kept item (its fingerprint unchanged, joined with it and its labels) need labelling."""

_ITEM: BindParameter[int] = bindparam("item")
_OUTPUTS_OF_UNLABELLED_ITEM = select(Output.id, Output.text, null()).where(Output.item_id == _ITEM)
_OUTPUTS_OF_STALE_ITEM = (select(Output.id, Output.text, AutoLabel.output_id)
                          .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
                          .where(Output.item_id == _ITEM))
_OUTPUTS_OF_KEPT_ITEM = (select(Output.id, Output.text, AutoLabel.output_id)
                         .join(LabelFingerprint, LabelFingerprint.item_id == Output.item_id)
                         .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
                         .where(Output.item_id == _ITEM, _to_relabel))
"""What to label of one item, and whether it has a label row to delete first."""


def _label_chunk(connection: Connection, plan: _Plan, chunk: _Chunk, timed: bool) -> _Labels:
    """Read the chunk's outputs and decide those that need it; writes nothing, so a worker can run it.

    ``timed`` bounds every search by the plan's timeout; untimed is for workers under the watchdog.
    Outputs are read item by item, so each item's outputs go through its matcher in one ``map``.
    """
    query = _OUTPUTS_OF_KEPT_ITEM if not chunk.stale else \
        _OUTPUTS_OF_UNLABELLED_ITEM if chunk.unlabelled else _OUTPUTS_OF_STALE_ITEM
    decided: list[tuple[int, Decision]] = []
    counts: list[tuple[int, int, int, int, int, int, int, int]] = []
    relabelled: list[int] = []
    read_through: dict[int, int] = {}
    outputs = 0
    for item_id, rows in select_tuples_each(connection, query, _ITEM.key, chunk.items):
        if not rows:
            continue
        outputs += len(rows)
        read_through[item_id] = max(map(_FIRST, rows))
        texts = list(map(_SECOND, rows))
        if not chunk.unlabelled:
            relabelled.extend(filter(None, map(_THIRD, rows)))
        matcher = plan.matcher(item_id)
        decisions = list(map(matcher.decide, texts)) if timed else matcher.decide_all(texts)
        if plan.constructed:
            decisions = [plan.constructed.get(output_id, decision)
                         for output_id, decision in zip(map(_FIRST, rows), decisions)]
        if chunk.stale:
            counts.append(_item_counts(item_id, decisions))
        decided.extend(compress(zip(map(_FIRST, rows), decisions), map(UNKNOWN.__ne__, decisions)))
    # In output id order: inserting in the order of the table's primary key took a third less CPU. Sorting by
    # the id alone compares plain integers, three times faster than comparing the (id, decision) pairs.
    decided.sort(key=_FIRST)
    decisions = list(map(_SECOND, decided))
    reasons = {position: decision.reason for position, decision in enumerate(decisions) if decision.reason} \
        if any(map(_THIRD, decisions)) else {}
    return _Labels(list(map(_FIRST, decided)), list(map(_FIRST, decisions)), list(map(_SECOND, decisions)),
                   reasons, outputs - len(decided), relabelled, read_through, counts)


def _item_counts(item_id: int, decisions: list[Decision]) -> tuple[int, int, int, int, int, int, int, int]:
    """The ``item_label_counts`` row of an item whose every output was just decided."""
    labels = Counter(map(_FIRST, decisions))
    return (item_id, labels["pass"], labels["fail"], labels["conflict"], labels["unknown"], labels["error"], 0,
            len(decisions))


def _plan(session: Session, suite_id: int, timeout: float, only: Collection[int] | None = None
          ) -> tuple[_Plan, dict[int, int], list[_Chunk]]:
    """The items' rules, which items are stale, the chunks to label, and for every item to be labelled the
    largest output id its stored labels cover (0 for a stale item); over the suite's items, or ``only`` those.

    Only items that have a stored fingerprint get theirs computed here, to compare: the others are stale
    anyway, and their fingerprints are computed as their labels are written, while workers match.
    """
    in_suite_query = select(Item.id).where(Item.suite_id == suite_id)
    if only is not None:
        in_suite_query = in_suite_query.where(Item.id.in_(list(only)))
    in_suite = in_suite_query.scalar_subquery()
    connection = session.connection()
    rules: dict[int, list[RuleSpec]] = defaultdict(list)
    for item_id, rule_id, polarity, pattern, ignore_case, valid, error in connection.execute(
            select(Rule.item_id, Rule.id, Rule.polarity, Rule.pattern, Rule.ignore_case, Rule.valid, Rule.error)
            .where(Rule.item_id.in_(in_suite)).order_by(Rule.item_id, Rule.position, Rule.id)):
        rules[item_id].append(RuleSpec(rule_id, polarity, pattern, ignore_case, valid, error))
    known: dict[int, list[KnownSpec]] = defaultdict(list)
    for item_id, kind, text in connection.execute(
            select(KnownTranslation.item_id, KnownTranslation.kind, KnownTranslation.text)
            .where(KnownTranslation.item_id.in_(in_suite))):
        known[item_id].append(KnownSpec(kind, text))
    policy = read_policy(session, suite_id)
    sources: dict[int, str] = {}
    if policy.untranslated_output != "unknown":
        sources = {item_id: source for item_id, source in connection.execute(
            select(Item.id, Item.source).where(Item.id.in_(in_suite)))}
    plan = _Plan(rules, known, timeout, policy, sources,
                 constructed=_constructed(connection, suite_id, in_suite))
    item_ids = connection.scalars(in_suite_query.order_by(Item.id)).all()
    stored = {item_id: (fingerprint, through) for item_id, fingerprint, through in connection.execute(
        select(LabelFingerprint.item_id, LabelFingerprint.fingerprint, LabelFingerprint.labelled_through)
        .where(LabelFingerprint.item_id.in_(in_suite)))}
    # An item without a fingerprint has no label rows either: labelling writes both, and deleting an item
    # deletes both.
    unlabelled = [item_id for item_id in item_ids if item_id not in stored]
    changed = [item_id for item_id, (fingerprint, _) in sorted(stored.items())
               if fingerprint != plan.fingerprint(item_id)]
    kept: list[int] = []
    if len(unlabelled) + len(changed) < len(item_ids):  # kept items with new or error outputs
        stale = set(changed)
        kept = [item_id for item_id in connection.scalars(
            select(Output.item_id).distinct()
            .join(LabelFingerprint, LabelFingerprint.item_id == Output.item_id)
            .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
            .where(Output.item_id.in_(in_suite), _to_relabel).order_by(Output.item_id)) if item_id not in stale]
    chunks = [_Chunk(tuple(items), True, True) for items in _chunks(unlabelled, CHUNK)]
    chunks += [_Chunk(tuple(items), True) for items in _chunks(changed, CHUNK)]
    chunks += [_Chunk(tuple(items), False) for items in _chunks(kept, CHUNK)]
    plan.stale = frozenset(unlabelled + changed)
    return plan, {**dict.fromkeys(plan.stale, 0), **{item_id: stored[item_id][1] for item_id in kept}}, chunks


def _constructed(connection: Connection, suite_id: int, in_suite: ScalarSelect[int]) -> dict[int, Decision]:
    """The labels by construction of the suite's outputs; only a challenge suite has any, and only its are read
    (the join would visit every output of another suite to find none)."""
    if connection.scalar(select(Suite.challenge).where(Suite.id == suite_id)) is None:
        return {}
    return {output_id: CONSTRUCTED[label] for output_id, label in connection.execute(
        select(ConstructedLabel.output_id, ConstructedLabel.label)
        .join(Output, Output.id == ConstructedLabel.output_id).where(Output.item_id.in_(in_suite)))}


@dataclass
class _WorkerLabeller:
    """A worker process's labelling of chunks: pickled once into each worker, where it opens its own
    connection to the database on its first chunk."""

    url: str
    plan: _Plan
    connection: Connection | None = None

    def __call__(self, chunk: _Chunk) -> _Labels:
        if self.connection is None:
            gc.disable()  # only in this worker process, which ends with the run (see the module docstring)
            if hasattr(os, "nice"):
                os.nice(WORKER_NICENESS)
            self.connection = make_engine(self.url).connect()
        return _label_chunk(self.connection, self.plan, chunk, False)


def _labelled_chunks(db: Database, connection: Connection, plan: _Plan, chunks: list[_Chunk], task: TaskState,
                     workers: int) -> Generator[tuple[_Chunk, _Labels], None, None]:
    """Every chunk's labels, from worker processes when it pays, in the order they are ready."""
    if workers < 1 or sum(len(chunk.items) for chunk in chunks) < PARALLEL_THRESHOLD or not db.shareable:
        for chunk in chunks:
            yield chunk, _label_chunk(connection, plan, chunk, True)
        return

    def budget(chunk: _Chunk) -> float:
        return WATCHDOG_GRACE + plan.timeout + WATCHDOG_PER_ITEM * len(chunk.items)

    work = _WorkerLabeller(db.engine.url.render_as_string(hide_password=False), plan)
    with closing(run_watched(chunks, work, budget, workers, task.raise_if_cancelled)) as results:
        for index, labels in results:
            yield chunks[index], labels if labels is not None else _label_chunk(connection, plan, chunks[index],
                                                                               True)


def relabel(db: Database, suite_name: str | None = None, task: TaskState | None = None,
            timeout: float = DEFAULT_TIMEOUT, workers: int | None = None) -> dict[str, int]:
    """Label every output that needs it and return the suite's effective label counts (see ``label_counts``).

    ``timeout`` bounds each regex search in seconds; an output whose search runs longer is labelled ``error``.
    ``workers`` is how many worker processes match a large run (default: one per CPU; 0 matches in this
    process). Safe to call from any thread.
    """
    return label_suite(db, suite_name, task, timeout, workers).counts


def label_suite(db: Database, suite_name: str | None = None, task: TaskState | None = None,
                timeout: float = DEFAULT_TIMEOUT, workers: int | None = None) -> LabelRun:
    """``relabel``, saying what the run changed (``LabelRun``): what the window tells when labelling ends."""
    task = progress_of(task)
    workers = os.cpu_count() or 1 if workers is None else workers
    if workers > 0 and db.shareable:
        start_early(__name__)
    with db.derived_rows_transaction() as session:
        suite = find_suite(session, suite_name)
        lock_outputs_of_suite(session, suite.id, labelling=True)
        plan, through, chunks = _plan(session, suite.id, timeout)
        connection = session.connection()
        before = automatic_counts(connection, select(Item.id).where(Item.suite_id == suite.id))
        with closing(_labelled_chunks(db, connection, plan, chunks, task, workers)) as results:
            stale_counts = _store(connection, plan, through, results, task)
        return LabelRun(_counts_after(connection, suite.id, plan.stale, stale_counts), before,
                        automatic_counts(connection, select(Item.id).where(Item.suite_id == suite.id)))


def relabel_items(session: Session, suite_id: int, item_ids: Collection[int],
                  timeout: float = DEFAULT_TIMEOUT, task: TaskState | None = None) -> None:
    """Label what needs it among the outputs of ``item_ids``, in this process and inside the caller's
    transaction: an edit (or an import) and the labels it implies are committed together or not at all."""
    lock_outputs_of_suite(session, suite_id, labelling=True)
    session.flush()
    plan, through, chunks = _plan(session, suite_id, timeout, item_ids)
    connection = session.connection()
    _store(connection, plan, through, ((chunk, _label_chunk(connection, plan, chunk, True)) for chunk in chunks),
           progress_of(task))


def _store(connection: Connection, plan: _Plan, through: dict[int, int],
           results: Iterable[tuple[_Chunk, _Labels]], task: TaskState) -> Counter[str]:
    """Write every chunk's labels and the labelled items' fingerprints; the automatic label counts of the
    stale items (whose every output was just labelled)."""
    total = len(through)
    done = 0
    stale_counts: Counter[str] = Counter()
    fingerprints: list[tuple[int, str, int]] = []
    kept: list[int] = []
    counted: list[tuple[int, int, int, int, int, int, int, int]] = []
    task.progress(done, total, f"labelling item {done:,} of {total:,}")
    for chunk, labels in results:
        if chunk.stale:
            stale_counts.update(labels.labels)
            stale_counts["unknown"] += labels.unknown
            counted += labels.counts
        else:
            kept += chunk.items
        for ids in _chunks(labels.relabelled, _ID_CHUNK):
            connection.execute(delete(AutoLabel).where(AutoLabel.output_id.in_(list(ids))))
        rows, with_reason = labels.rows()
        insert_tuples(connection, AutoLabel, _LABEL_COLUMNS[:3], rows)
        insert_tuples(connection, AutoLabel, _LABEL_COLUMNS, with_reason)
        fingerprints += [(item_id, plan.fingerprint(item_id),
                          max(through[item_id], labels.read_through.get(item_id, 0)))
                         for item_id in chunk.items]
        done += len(chunk.items)
        task.progress(done, total, f"labelling item {done:,} of {total:,}")
    for ids in _chunks(sorted(through), _ID_CHUNK):
        connection.execute(delete(LabelFingerprint).where(LabelFingerprint.item_id.in_(ids)))
    insert_tuples(connection, LabelFingerprint, ("item_id", "fingerprint", "labelled_through"),
                  sorted(fingerprints), {"labelled_at": func.now()})
    store_counts(connection, plan.stale, counted)  # at once: a statement per chunk cost the writer a tenth more
    refresh_counts(connection, kept)  # after the fingerprints: their coverage tells unknown from unlabelled
    return stale_counts


def _counts_after(connection: Connection, suite_id: int, stale: frozenset[int],
                  stale_counts: Counter[str]) -> dict[str, int]:
    """``_counts`` without recounting the stale items' outputs, whose automatic labels were all just written
    (``stale_counts``); their reviewed outputs are moved from the automatic to the manual label.

    Counting a million labels back out of the database costs as long as matching them.
    """
    if not stale:
        return _counts(connection, suite_id)
    counts = stale_counts
    # Every reviewed output, whatever its suite: driving the query from the reviews rather than from the
    # suite's outputs keeps it from visiting a million outputs to find a few hundred reviews.
    reviewed = connection.execute(
        select(Output.item_id, ManualLabel.label, func.coalesce(AutoLabel.label, "unknown"))
        .select_from(ManualLabel)
        .join(Output, Output.id == ManualLabel.output_id)
        .outerjoin(AutoLabel, AutoLabel.output_id == ManualLabel.output_id))
    for item_id, manual, automatic in reviewed:
        if item_id in stale:  # just labelled in full, so an output of it without a label row is unknown
            counts[automatic] -= 1
            counts[manual] += 1
    kept = [item_id for item_id in connection.scalars(select(Item.id).where(Item.suite_id == suite_id))
            if item_id not in stale]
    for items in _chunks(kept, _ID_CHUNK):
        counts.update(_counts(connection, suite_id, items))
    return {label: counts[label] for label in EFFECTIVE_LABELS}


def _counts(connection: Connection, suite_id: int, items: Sequence[int] | None = None) -> dict[str, int]:
    """Effective label counts over the suite's outputs, or over those of ``items`` only."""
    effective = effective_label(Output.id)
    query = (join_labels(select(effective, func.count()).select_from(Output).join(Item, Item.id == Output.item_id),
                         Output.id, Output.item_id)
             .where(Item.suite_id == suite_id, effective.is_not(None))
             .group_by(effective))
    if items is not None:
        query = query.where(Output.item_id.in_(items))
    counts = dict.fromkeys(EFFECTIVE_LABELS, 0)
    counts.update({label: n for label, n in connection.execute(query)})
    return counts


def label_counts(db: Database, suite_name: str | None = None) -> dict[str, int]:
    """Effective labels (manual, else automatic) over the suite's distinct outputs.

    Exactly the keys pass, fail, conflict, unknown and error; an output that has been neither labelled
    automatically nor reviewed is not counted (``relabel`` labels every output, so this only happens
    between importing outputs and labelling them).
    """
    with db.session() as session:
        return _counts(session.connection(), find_suite(session, suite_name).id)
