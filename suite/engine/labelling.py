"""Automatic labelling of a suite's distinct outputs, incremental and persistent.

An output is (re)labelled when it is new (its id is above what its item's last labelling covered), when
the fingerprint of its item's rules and known translations (``suite.engine.rules.item_fingerprint``) differs from
the one stored in ``label_fingerprints`` for the item's labels, or when its label is ``error`` (so that a
fixed pattern or a longer timeout is tried again). ``unknown`` is written as no row (see
``store.models.STORED_AUTO_LABELS``). Manual labels are never read or written here, only counted.

Work goes in chunks of whole items. Outputs are read and matched outside any write transaction; each chunk's
labels are then written in a short transaction of their own (with the other chunks ready at that moment),
together with its items' coverage (``label_fingerprints``), label counts and review counts. So the write lock
is held for moments, not for the run: a reviewer's decision made meanwhile waits for a chunk, not for a run
whose patterns time out on every output (one took six minutes). A run that is cancelled, fails or is killed
leaves every item either as it was or labelled, and every count exact: labelling again finishes the job.

An item whose outputs, labels or coverage another writer changed after the run planned it (its
``item_label_counts.stamp`` differs) is not written: its chunk is planned and labelled again, up to
``PASSES`` times, and what still changes is then labelled in one transaction, matching under the lock.

Large runs match in worker processes (``suite.engine.watched_pool``: started once per process and kept, by a fork
server when this process runs other threads, so labelling is safe from a worker thread of a GUI; a second run
starts no process and finds its patterns compiled). Each worker receives the plan (rules and known
translations) once a run, reads its chunks through its own connection and searches WITHOUT per-search
timeouts, which cost the regex package two system calls a search; a chunk that overruns a generous budget has
its worker killed and is redone item by item with per-search timeouts, so a slow search still ends as
``error`` with its reason. On PostgreSQL each write transaction holds the suite's coverage lock
(``store.locks``): an import that added outputs to an item while it was read has committed by then, and has
changed the item's stamp.
"""
from __future__ import annotations

import functools
import os
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from itertools import compress, repeat
from operator import is_not, itemgetter

from sqlalchemy import BindParameter, ScalarSelect, bindparam, delete, func, or_, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from store import Database
from store.bulk import insert_columns, insert_tuples, select_columns_each, select_tuples
from store.domain import Polarity, TranslationKind
from store.engine import make_engine
from store.locks import lock_outputs_of_suite
from store.models import (
    AutoLabel,
    ConstructedLabel,
    Item,
    ItemLabelCounts,
    KnownTranslation,
    LabelFingerprint,
    Output,
    Rule,
    Suite,
)
from suite.changes import ANYWHERE, Changes
from suite.engine.label_counts import (
    GroupCountsRow,
    alike,
    automatic_counts,
    lock_counts,
    recount_reviews,
    refresh_counts,
    store_counts,
    suite_counts,
)
from suite.engine.label_run import LabelRun
from suite.engine.labels import EFFECTIVE_LABELS
from suite.engine.output_policy import OutputPolicy, read_policy
from suite.engine.rules import (
    CONSTRUCTED,
    DEFAULT_TIMEOUT,
    UNKNOWN,
    Decision,
    ItemMatcher,
    ItemRule,
    KnownSpec,
    RuleSpec,
    item_fingerprint,
)
from suite.engine.watched_pool import WatchedRun, WorkerPool
from suite.suites import find_suite
from suite.tasks import Cancelled, CancelledPartway, TaskState, progress_of

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

CHUNKS_PER_TRANSACTION = 8
"""At most this many chunks that workers handed in are written in one transaction (400 items, or about 0.1 s of
writing in the million-output benchmark): fewer commits, and still a short hold of the lock."""

GATHER_SECONDS = 0.05
"""How long the writer gathers the chunks workers hand in before it writes them together. Workers hold their
next chunks meanwhile (``suite.engine.watched_pool.PREFETCH``) and keep matching; a transaction a chunk cost the writer
a third more time than one per eight (54 commits in the million-output benchmark)."""

PASSES = 3
"""How often the items that another writer changed while they were labelled are planned and labelled again
before the rest is labelled in one transaction."""

_ID_CHUNK = 5_000
"""Ids per ``IN (...)`` list, well below every backend's limit on bound parameters."""

WORKER_NICENESS = 10
"""Workers yield the CPU to this process, whose writing is the run's critical path."""

_POOL = WorkerPool(WORKER_NICENESS)
"""This process's labelling workers, started by its first large run and kept."""

_LABEL_COLUMNS = ("output_id", "label", "rule_id", "reason")

CountsRow = tuple[int, int, int, int, int, int, int]
"""An item id and six counts (see ``_Labels.counts``)."""


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
    timed: bool = False
    """Whether every search is bounded by the timeout: a redo of a chunk whose untimed run overran."""


_RuleColumns = tuple[int, Polarity, str, bool, bool, str | None]
"""A rule as planning reads it: an ``ItemRule``'s id, its ``RuleSpec``'s fields, its validity and error."""
KnownRow = tuple[TranslationKind, str]
"""A known translation as planning reads it: the fields of a ``KnownSpec``."""


@dataclass
class _Plan:
    """What every chunk needs, prepared before the workers start and sent to each of them once a run.

    Rules and known translations travel as plain tuples: they pickle five times faster than the dataclasses,
    and as the keys of the workers' kept matchers they hash and compare in C (both on every run's critical
    path, before the first chunk's result).
    """

    rules: dict[int, tuple[_RuleColumns, ...]]
    known: dict[int, tuple[KnownRow, ...]]
    timeout: float
    policy: OutputPolicy = OutputPolicy()
    sources: dict[int, str] = field(default_factory=dict)
    """The items' sources, when the policy decides outputs identical to them (else empty)."""
    constructed: dict[int, Decision] = field(default_factory=dict)
    """Output -> its label by a challenge set's construction, which decides it whatever the rules say (written
    with the output itself, so an output that has one is always new to labelling when it gets it)."""

    def fingerprint(self, item_id: int) -> str:
        return _fingerprint(self.rules.get(item_id, ()), self.known.get(item_id, ()), self.policy,
                            self.sources.get(item_id, ""))

    def matcher(self, item_id: int) -> ItemMatcher:
        return _matcher(self.rules.get(item_id, ()), self.known.get(item_id, ()), self.timeout, self.policy,
                        self.sources.get(item_id, ""))


def _item_rule(rule: _RuleColumns) -> ItemRule:
    rule_id, polarity, pattern, ignore_case, valid, error = rule
    return ItemRule(rule_id, RuleSpec(polarity, pattern, ignore_case), valid, error)


@functools.lru_cache(maxsize=65_536)
def _fingerprint(rules: tuple[_RuleColumns, ...], known: tuple[KnownRow, ...], policy: OutputPolicy,
                 source: str) -> str:
    """An item's fingerprint, kept for the next run as its matcher is: hashing the 2,767 items of the DFKI suite
    cost a million-output run 36 ms of CPU in the workers on every run, and as much again in planning a run
    after the first, which compares every labelled item's fingerprint."""
    return item_fingerprint([_item_rule(rule) for rule in rules], [KnownSpec(*known) for known in known],
                            policy.fingerprint(source))


@functools.lru_cache(maxsize=65_536)
def _matcher(rules: tuple[_RuleColumns, ...], known: tuple[KnownRow, ...], timeout: float, policy: OutputPolicy,
             source: str) -> ItemMatcher:
    """An item's matcher, kept for the next run (in a worker, for the life of the process): building the
    2,767 matchers of the DFKI suite took a seventh of a million-output run's matching, even with every pattern
    compiled already. The suite's output policy is part of the key, with the item's source when the policy
    decides outputs identical to it."""
    return ItemMatcher([_item_rule(rule) for rule in rules], [KnownSpec(*known) for known in known], timeout,
                       policy.decisions(source))


@dataclass(frozen=True)
class _Planned:
    """A planned run: the plan, its chunks, and what the writer checks and writes with them."""

    plan: _Plan
    chunks: list[_Chunk]
    through: dict[int, int]
    """Every item to label -> the largest output id its stored labels cover (0 for a stale item)."""
    stamps: dict[int, int]
    """Item -> its ``item_label_counts.stamp`` when planned (items without outputs are left out)."""

    @property
    def items(self) -> int:
        return len(self.through)


@dataclass
class _Labels:
    """One chunk's labels to store as parallel columns, which pickle and turn into rows far faster than row
    tuples; ``unknown`` decisions are only counted, as they are stored as no row."""

    ids: list[int]
    labels: list[str]
    rule_ids: list[int | None]
    reasons: dict[int, str]
    """Position in ``ids`` -> reason, for the rare decisions that have one."""
    relabelled: list[int]
    """Outputs that had a label row before, which has to be deleted first."""
    read_through: dict[int, int]
    """Item -> the largest id among the outputs read of it (items with none read are left out)."""
    counts: list[CountsRow]
    """Per item of a stale chunk with outputs: item id, its decisions pass, fail, conflict, unknown, error, and
    its outputs."""
    groups: list[GroupCountsRow]
    """Per item of a stale chunk with outputs and each label it has: item id, label, its groups of alike outputs
    with that label (``item_group_counts``), counted where the chunk was matched."""
    fingerprints: list[str]
    """The chunk's items' fingerprints, in its order: computed where the chunk was matched, off the writer's
    path (hashing 2,767 items' rules cost it 70 ms)."""

    def without_reason(self) -> tuple[list[int], list[str], list[int | None]]:
        """The columns (output id, label, rule id) of the labels without a reason, which are nearly all: binding
        the always-empty reason column would cost a sixth of the insert."""
        if not self.reasons:
            return self.ids, self.labels, self.rule_ids
        kept = [position not in self.reasons for position in range(len(self.ids))]
        return list(compress(self.ids, kept)), list(compress(self.labels, kept)), list(compress(self.rule_ids, kept))

    def with_reason(self) -> list[tuple[int, str, int | None, str]]:
        """(output id, label, rule id, reason) of the few labels that have a reason."""
        return [(self.ids[position], self.labels[position], self.rule_ids[position], reason)
                for position, reason in self.reasons.items()]


_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)
"""Columns of (output id, decision) pairs and of decisions (label, rule id, reason), taken in C."""

_to_relabel = or_(Output.id > LabelFingerprint.labelled_through, AutoLabel.label == "error")
"""Which outputs of a kept item (its fingerprint unchanged, joined with it and its labels) need labelling."""

_ITEM: BindParameter[int] = bindparam("item")
_OUTPUTS_OF_UNLABELLED_ITEM = select(Output.id, Output.text).where(Output.item_id == _ITEM)
_OUTPUTS_OF_STALE_ITEM = (select(Output.id, Output.text, AutoLabel.output_id)
                          .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
                          .where(Output.item_id == _ITEM))
_OUTPUTS_OF_KEPT_ITEM = (select(Output.id, Output.text, AutoLabel.output_id)
                         .join(LabelFingerprint, LabelFingerprint.item_id == Output.item_id)
                         .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
                         .where(Output.item_id == _ITEM, _to_relabel))
"""What to label of one item, and (but for a never labelled item) whether it has a label row to delete first."""
_ALIKE_IN_ITEM = select(Output.id, alike()).where(Output.item_id == _ITEM)
"""What each output of one item is alike by, to count a stale item's groups: a query of its own, which reads the
index on (item, group key) alone; reading the key beside the text read the table row of every output instead of
the index on (item, text): the workers' CPU in ``bench/label.py`` went from about 2.2 s to 4.2 s a run (one run,
load 11)."""


def _label_chunk(connection: Connection, plan: _Plan, chunk: _Chunk, timed: bool,
                 check: Callable[[], None] = lambda: None) -> _Labels:
    """Read the chunk's outputs and decide those that need it; writes nothing, so a worker can run it.

    ``timed`` bounds every search by the plan's timeout; untimed is for workers under the watchdog. ``check``
    is called before each timed decision, which may take the timeout for each rule, and may raise (a cancel).
    Outputs are read item by item, as columns (ids, texts), so each item's texts go through its matcher in one
    ``map``.
    """
    query = _OUTPUTS_OF_KEPT_ITEM if not chunk.stale else \
        _OUTPUTS_OF_UNLABELLED_ITEM if chunk.unlabelled else _OUTPUTS_OF_STALE_ITEM
    decided: list[tuple[int, Decision]] = []
    counts: list[CountsRow] = []
    groups: list[GroupCountsRow] = []
    alike_by = {item_id: (columns[0], columns[1]) for item_id, columns in
                select_columns_each(connection, _ALIKE_IN_ITEM, _ITEM.key, chunk.items)} if chunk.stale else {}
    relabelled: list[int] = []
    read_through: dict[int, int] = {}
    for item_id, columns in select_columns_each(connection, query, _ITEM.key, chunk.items):
        ids, texts = columns[0], columns[1]
        if not ids:
            continue
        read_through[item_id] = max(ids)
        if not chunk.unlabelled:
            relabelled.extend(filter(None, columns[2]))
        matcher = plan.matcher(item_id)
        decisions = _decide_each(matcher, texts, check) if timed else matcher.decide_all(texts)
        if plan.constructed:
            decisions = [plan.constructed.get(output_id, decision) for output_id, decision in zip(ids, decisions)]
        if chunk.stale:
            counts.append(_item_counts(item_id, decisions))
            groups.extend(_item_groups(item_id, ids, decisions, alike_by.get(item_id, ([], []))))
        decided.extend(compress(zip(ids, decisions), map(is_not, decisions, repeat(UNKNOWN))))
    # In output id order: inserting in the order of the table's primary key took a third less CPU. Sorting by
    # the id alone compares plain integers, three times faster than comparing the (id, decision) pairs.
    decided.sort(key=_FIRST)
    decisions = list(map(_SECOND, decided))
    reasons = {position: decision.reason for position, decision in enumerate(decisions) if decision.reason} \
        if any(map(_THIRD, decisions)) else {}
    return _Labels(list(map(_FIRST, decided)), list(map(_FIRST, decisions)), list(map(_SECOND, decisions)),
                   reasons, relabelled, read_through, counts, groups, list(map(plan.fingerprint, chunk.items)))


def _decide_each(matcher: ItemMatcher, texts: list[str], check: Callable[[], None]) -> list[Decision]:
    decisions = []
    for text in texts:
        check()
        decisions.append(matcher.decide(text))
    return decisions


def _item_counts(item_id: int, decisions: list[Decision]) -> CountsRow:
    """A stale item's ``_Labels.counts`` row."""
    labels = Counter(map(_FIRST, decisions))
    return (item_id, labels["pass"], labels["fail"], labels["conflict"], labels["unknown"], labels["error"],
            len(decisions))


def _item_groups(item_id: int, ids: list[int], decisions: list[Decision],
                 alike_by: tuple[list[int], list[str]]) -> list[GroupCountsRow]:
    """A stale item's ``_Labels.groups`` rows: its distinct (what outputs are alike by, label) counted by label.
    An output in one read and not the other was added or removed between them: that changed the item's stamp, so
    the writer will not write these counts."""
    label_of = dict(zip(ids, map(_FIRST, decisions), strict=True))
    key_ids, keys = alike_by
    groups = Counter(label for _, label in {(key, label_of.get(output_id)) for output_id, key in zip(key_ids, keys)}
                     if label is not None)
    return [(item_id, label, n) for label, n in sorted(groups.items())]


def _plan(connection: Connection, suite_id: int, timeout: float, only: Collection[int] | None = None) -> _Planned:
    """The items' rules, which items are stale, the chunks to label, coverage and stamps; over the suite's
    items, or ``only`` those.

    The stamps are read first: a writer that changes an item after that (a rule edit, which relabels it)
    changes its stamp, so labels planned from what was read before are not written over its own.
    Only items that have a stored fingerprint get theirs computed here, to compare: the others are stale
    anyway, and their fingerprints are computed with their labels, by the workers.
    """
    in_suite_query = select(Item.id).where(Item.suite_id == suite_id)
    if only is not None:
        in_suite_query = in_suite_query.where(Item.id.in_(list(only)))
    in_suite = in_suite_query.scalar_subquery()
    # Read as the driver's tuples: planning is the part of a run that no worker shares (a tenth of a second of
    # the million-output benchmark's 1.5 s went on SQLAlchemy's rows).
    stamps = dict(select_tuples(connection, select(ItemLabelCounts.item_id, ItemLabelCounts.stamp)
                                .where(ItemLabelCounts.item_id.in_(in_suite))))
    plan = _read_plan(connection, suite_id, timeout, in_suite)
    item_ids = [item_id for item_id, in select_tuples(connection, in_suite_query.order_by(Item.id))]
    stored = _stored_fingerprints(connection, in_suite)
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
    through = {**dict.fromkeys(unlabelled + changed, 0), **{item_id: stored[item_id][1] for item_id in kept}}
    return _Planned(plan, chunks, through, stamps)


def _read_plan(connection: Connection, suite_id: int, timeout: float, in_suite: ScalarSelect[int]) -> _Plan:
    """The rules, known translations, policy (and the sources it needs) and constructed labels of the items."""
    rules: dict[int, list[_RuleColumns]] = defaultdict(list)
    for item_id, rule_id, polarity, pattern, ignore_case, valid, error in select_tuples(connection, (
            select(Rule.item_id, Rule.id, Rule.polarity, Rule.pattern, Rule.ignore_case, Rule.valid, Rule.error)
            .where(Rule.item_id.in_(in_suite)).order_by(Rule.item_id, Rule.position, Rule.id))):
        rules[item_id].append((rule_id, polarity, pattern, bool(ignore_case), bool(valid), error))
    known: dict[int, list[KnownRow]] = defaultdict(list)
    for item_id, kind, text in select_tuples(connection, (
            select(KnownTranslation.item_id, KnownTranslation.kind, KnownTranslation.text)
            .where(KnownTranslation.item_id.in_(in_suite)))):
        known[item_id].append((kind, text))
    policy = read_policy(connection, suite_id)
    sources: dict[int, str] = {}
    if policy.untranslated_output != "unknown":
        sources = dict(select_tuples(connection, select(Item.id, Item.source).where(Item.id.in_(in_suite))))
    return _Plan({item_id: tuple(rows) for item_id, rows in rules.items()},
                 {item_id: tuple(rows) for item_id, rows in known.items()}, timeout, policy, sources,
                 constructed=_constructed(connection, suite_id, in_suite))


def _stored_fingerprints(connection: Connection, in_suite: ScalarSelect[int]) -> dict[int, tuple[str, int]]:
    return {item_id: (fingerprint, through) for item_id, fingerprint, through in connection.execute(
        select(LabelFingerprint.item_id, LabelFingerprint.fingerprint, LabelFingerprint.labelled_through)
        .where(LabelFingerprint.item_id.in_(in_suite)))}


def stale_items(connection: Connection, suite_id: int) -> list[int]:
    """The suite's items labelled under rules, known translations or an output policy that have changed since
    (their stored fingerprint is not their current one): their labels are out of date until the next labelling.
    Items never labelled are not among them (their outputs count as not labelled in ``item_label_counts``)."""
    in_suite = select(Item.id).where(Item.suite_id == suite_id).scalar_subquery()
    plan = _read_plan(connection, suite_id, 0.0, in_suite)
    return [item_id for item_id, (fingerprint, _) in sorted(_stored_fingerprints(connection, in_suite).items())
            if fingerprint != plan.fingerprint(item_id)]


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
    """A worker process's labelling of chunks: pickled once a run into each worker, where it opens its own
    connection to the database on its first chunk and closes it when the run ends."""

    url: str
    plan: _Plan
    connection: Connection | None = None

    def __call__(self, chunk: _Chunk) -> _Labels:
        if self.connection is None:
            self.connection = make_engine(self.url).connect()
        try:
            return _label_chunk(self.connection, self.plan, chunk, chunk.timed)
        finally:
            self.connection.rollback()  # PostgreSQL: no transaction left open between chunks

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection.engine.dispose()
            self.connection = None


def _write(connection: Connection, planned: _Planned, batch: Sequence[tuple[_Chunk, _Labels]]) -> None:
    """Write chunks' labels, their items' coverage and counts, in the caller's transaction (which has locked
    the items' counts with ``lock_counts``), a statement of each kind for all of them: a statement a chunk cost
    the writer a tenth more in the million-output benchmark."""
    relabelled = [output_id for _, labels in batch for output_id in labels.relabelled]
    for ids in _chunks(relabelled, _ID_CHUNK):
        connection.execute(delete(AutoLabel).where(AutoLabel.output_id.in_(list(ids))))
    output_ids: list[int] = []
    label_values: list[str] = []
    rule_ids: list[int | None] = []
    with_reason: list[tuple[int, str, int | None, str]] = []
    for _, decided in batch:
        chunk_ids, chunk_labels, chunk_rule_ids = decided.without_reason()
        output_ids += chunk_ids
        label_values += chunk_labels
        rule_ids += chunk_rule_ids
        with_reason += decided.with_reason()
    insert_columns(connection, AutoLabel, _LABEL_COLUMNS[:3], (output_ids, label_values, rule_ids))
    insert_tuples(connection, AutoLabel, _LABEL_COLUMNS, with_reason)
    items = [item_id for chunk, _ in batch for item_id in chunk.items]
    for ids in _chunks(items, _ID_CHUNK):
        connection.execute(delete(LabelFingerprint).where(LabelFingerprint.item_id.in_(list(ids))))
    insert_tuples(connection, LabelFingerprint, ("item_id", "fingerprint", "labelled_through"),
                  [(item_id, fingerprint, max(planned.through[item_id], labels.read_through.get(item_id, 0)))
                   for chunk, labels in batch
                   for item_id, fingerprint in zip(chunk.items, labels.fingerprints, strict=True)],
                  {"labelled_at": func.now()})
    stale = [item_id for chunk, _ in batch if chunk.stale for item_id in chunk.items]
    # Every output of a stale item was decided: its counts are the decisions; its reviews' automatic labels may
    # have changed. A kept item had a few new or error outputs: recounted.
    store_counts(connection, stale, [(item_id, passed, failed, conflict, unknown, error, 0, read)
                                     for chunk, labels in batch if chunk.stale
                                     for item_id, passed, failed, conflict, unknown, error, read in labels.counts],
                 [row for chunk, labels in batch if chunk.stale for row in labels.groups])
    recount_reviews(connection, stale)
    refresh_counts(connection, [item_id for chunk, _ in batch if not chunk.stale for item_id in chunk.items])


class _ChunkWriter:
    """Writes a run's chunks, those ready together in one short transaction, each after checking that no
    other writer changed its items since they were planned; reports progress after every commit."""

    def __init__(self, db: Database, suite_id: int, planned: _Planned, task: TaskState, done: int, total: int):
        self.db, self.suite_id, self.planned, self.task = db, suite_id, planned, task
        self.done, self.total = done, total
        self.changed: set[int] = set()
        """Items another writer changed since they were planned: their chunks were not written."""

    def write(self, ready: list[tuple[_Chunk, _Labels]]) -> None:
        self.task.raise_if_cancelled()
        if not ready:
            return
        with self.db.derived_rows_transaction() as session:
            lock_outputs_of_suite(session, self.suite_id, labelling=True)
            connection = session.connection()
            items = sorted(item_id for chunk, _ in ready for item_id in chunk.items)
            existing: set[int] = set()
            for ids in _chunks(items, _ID_CHUNK):
                existing.update(connection.scalars(select(Item.id).where(Item.id.in_(list(ids)))
                                                   .order_by(Item.id).with_for_update(key_share=True)))
            stamps = lock_counts(connection, items)
            unchanged = []
            for chunk, labels in ready:
                if any(item_id not in existing or stamps.get(item_id) != self.planned.stamps.get(item_id)
                       for item_id in chunk.items):
                    self.changed.update(item_id for item_id in chunk.items if item_id in existing)
                else:
                    unchanged.append((chunk, labels))
            _write(connection, self.planned, unchanged)
        self.done += sum(len(chunk.items) for chunk, _ in ready)
        self.task.progress(self.done, self.total, f"labelling item {self.done:,} of {self.total:,}")


def _budget(planned: _Planned, chunk: _Chunk) -> float | None:
    """How long a worker may take for a chunk before the watchdog stops it; none for a timed chunk, whose
    every search has its own limit."""
    return None if chunk.timed else WATCHDOG_GRACE + planned.plan.timeout + WATCHDOG_PER_ITEM * len(chunk.items)


def _label_in_workers(db: Database, planned: _Planned, writer: _ChunkWriter, task: TaskState, workers: int,
                      reader: Connection) -> None:
    """Match in the pool's workers and write what they hand in, as it comes; a chunk whose untimed run failed is
    redone item by item with per-search timeouts, and a timed one that failed too here (raising its error)."""
    work = _WorkerLabeller(db.engine.url.render_as_string(hide_password=False), planned.plan)
    run: WatchedRun[_Chunk, _Labels]
    _POOL.start(workers, __name__)
    with _POOL.run(work, workers, task.raise_if_cancelled) as run:
        for chunk in planned.chunks:
            run.submit(chunk, _budget(planned, chunk))
        while run.pending:
            ready: list[tuple[_Chunk, _Labels]] = []
            gathering = time.monotonic() + GATHER_SECONDS
            while run.pending and len(ready) < CHUNKS_PER_TRANSACTION and (not ready or time.monotonic() < gathering):
                for chunk, labels in run.results(timeout=max(0.0, gathering - time.monotonic()) if ready else None):
                    if labels is not None:
                        ready.append((chunk, labels))
                    elif not chunk.timed:
                        for item_id in chunk.items:
                            timed = replace(chunk, items=(item_id,), timed=True)
                            run.submit(timed, _budget(planned, timed))
                    else:
                        ready.append((chunk, _read(reader, planned.plan, chunk, task)))
            for start in range(0, len(ready), CHUNKS_PER_TRANSACTION):
                writer.write(ready[start:start + CHUNKS_PER_TRANSACTION])


def _read(reader: Connection, plan: _Plan, chunk: _Chunk, task: TaskState) -> _Labels:
    """A chunk labelled in this process with per-search timeouts, read outside any write transaction."""
    try:
        return _label_chunk(reader, plan, chunk, True, task.raise_if_cancelled)
    finally:
        reader.rollback()


def relabel(db: Database, suite_name: str | None = None, task: TaskState | None = None,
            timeout: float = DEFAULT_TIMEOUT, workers: int | None = None) -> dict[str, int]:
    """Label every output that needs it and return the suite's effective label counts (see ``label_counts``).

    ``timeout`` bounds each regex search in seconds; an output whose search runs longer is labelled ``error``.
    ``workers`` is how many worker processes match a large run (default: one per CPU; 0 matches in this
    process). Safe to call from any thread. Cancelling (or a failure) stops between two chunk transactions:
    what was written stays, every item labelled or as it was (``CancelledPartway`` says how many).
    """
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
    _label(db, suite_id, progress_of(task), timeout, workers)
    return label_counts(db, suite_id=suite_id)


def label_suite(db: Database, suite_name: str | None = None, task: TaskState | None = None,
                timeout: float = DEFAULT_TIMEOUT, workers: int | None = None) -> LabelRun:
    """``relabel``, saying what the run changed (``LabelRun``): what the window tells when labelling ends."""
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        in_suite = select(Item.id).where(Item.suite_id == suite_id)
        before = automatic_counts(session.connection(), in_suite)
    _label(db, suite_id, progress_of(task), timeout, workers)
    with db.session() as session:
        return LabelRun(label_counts(db, suite_id=suite_id), before, automatic_counts(session.connection(), in_suite))


def _label(db: Database, suite_id: int, task: TaskState, timeout: float, workers: int | None) -> None:
    """Label what needs it, chunk by chunk: planned, matched, written, and what other writers changed meanwhile
    planned and labelled again."""
    workers = os.cpu_count() or 1 if workers is None else workers
    only: set[int] | None = None
    writer: _ChunkWriter | None = None
    with closing(db.engine.connect()) as reader:
        try:
            for _ in range(PASSES):
                planned = _plan(reader, suite_id, timeout, only)
                reader.rollback()
                done, total = (0, 0) if writer is None else (writer.done, writer.total)
                writer = _ChunkWriter(db, suite_id, planned, task, done, total + planned.items)
                task.progress(writer.done, writer.total, f"labelling item {writer.done:,} of {writer.total:,}")
                if workers > 0 and db.shareable and planned.items >= PARALLEL_THRESHOLD:
                    _label_in_workers(db, planned, writer, task, workers, reader)
                else:
                    for chunk in planned.chunks:
                        writer.write([(chunk, _read(reader, planned.plan, chunk, task))])
                only = writer.changed
                if not writer.changed:
                    break
            else:
                with db.derived_rows_transaction() as session:
                    relabel_items(session, suite_id, only or (), timeout)
        except Cancelled as stopped:
            if writer is None or not writer.done:
                raise
            raise CancelledPartway(f"{writer.done:,} of {writer.total:,} items were labelled and are kept, the "
                                   f"others are as they were: label again to finish",
                                   Changes(labels=ANYWHERE)) from stopped


def relabel_items(session: Session, suite_id: int, item_ids: Collection[int],
                  timeout: float = DEFAULT_TIMEOUT, task: TaskState | None = None) -> None:
    """Label what needs it among the outputs of ``item_ids``, in this process and inside the caller's
    transaction: an edit (or an import) and the labels it implies are committed together or not at all."""
    task = progress_of(task)
    lock_outputs_of_suite(session, suite_id, labelling=True)
    session.flush()
    connection = session.connection()
    planned = _plan(connection, suite_id, timeout, item_ids)
    lock_counts(connection, planned.through)
    done = 0
    task.progress(done, planned.items, f"labelling item {done:,} of {planned.items:,}")
    for chunk in planned.chunks:
        _write(connection, planned, [(chunk, _label_chunk(connection, planned.plan, chunk, True,
                                                          task.raise_if_cancelled))])
        done += len(chunk.items)
        task.progress(done, planned.items, f"labelling item {done:,} of {planned.items:,}")


def label_counts(db: Database, suite_name: str | None = None, *, suite_id: int | None = None) -> dict[str, int]:
    """Effective labels (manual, else automatic) over the suite's distinct outputs, from the per-item counts.

    Exactly the keys pass, fail, conflict, unknown and error; an output that has been neither labelled
    automatically nor reviewed is not counted (``relabel`` labels every output, so this only happens
    between importing outputs and labelling them).
    """
    with db.session() as session:
        if suite_id is None:
            suite_id = find_suite(session, suite_name).id
        total = suite_counts(session.connection(), suite_id)
    return {label: total.of(label) for label in EFFECTIVE_LABELS}
