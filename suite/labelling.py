"""Automatic labelling of a suite's distinct outputs, incremental and persistent.

An output is (re)labelled when it has no automatic label, when the fingerprint of its item's rules and known
translations (``suite.rules.item_fingerprint``) differs from the one stored in ``label_fingerprints`` for
the item's labels, or when its label is ``error`` (so that a fixed pattern or a longer timeout is tried
again). Manual labels are never read or written here.

Work goes in chunks of whole items. Large runs match in forked worker processes (``suite.watched_pool``),
each reading its chunk through its own connection and searching WITHOUT per-search timeouts, which cost the
regex package two system calls a search; a chunk that overruns a generous budget is killed and redone here
with per-search timeouts, so a slow search still ends as ``error`` with its reason. This process writes
each chunk's labels as they arrive. The whole run is one transaction: a cancelled or failed run changes
nothing.
"""
from __future__ import annotations

import os
from array import array
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field

from sqlalchemy import delete, func, or_, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from store import Database
from store.bulk import insert_tuples
from store.models import AUTO_LABELS, AutoLabel, Item, KnownTranslation, LabelFingerprint, ManualLabel, Output, Rule
from suite.labels import EFFECTIVE_LABELS
from suite.rules import DEFAULT_TIMEOUT, ItemMatcher, KnownSpec, RuleSpec, item_fingerprint
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of
from suite.watched_pool import run_watched

CHUNK = 20_000
"""Outputs per chunk (whole items, so a chunk may be larger); also how often progress is reported."""

PARALLEL_THRESHOLD = 20_000
"""Fewer outputs to label than this are labelled in this process: forking workers would cost more."""

WATCHDOG_GRACE = 10.0
WATCHDOG_PER_OUTPUT = 0.002
"""A worker's chunk may take ``WATCHDOG_GRACE + timeout + WATCHDOG_PER_OUTPUT * outputs`` seconds, a
thousand times what a DFKI chunk needs, before it is killed and redone with per-search timeouts."""

_ID_CHUNK = 5_000
"""Ids per ``IN (...)`` list, well below every backend's limit on bound parameters."""

_LABEL_COLUMNS = ("output_id", "label", "rule_id", "reason")
_CODES = {label: code for code, label in enumerate(AUTO_LABELS)}


def _chunks(values: Sequence[int], size: int) -> Iterator[Sequence[int]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


@dataclass(frozen=True)
class _Chunk:
    items: tuple[int, ...]
    outputs: int
    """How many of the items' outputs are to be labelled."""


@dataclass
class _Plan:
    """What every chunk needs, prepared before the workers fork so that they inherit it."""

    rules: dict[int, list[RuleSpec]]
    known: dict[int, list[KnownSpec]]
    stale: frozenset[int]
    """Items whose every output is relabelled: their fingerprint changed or was never stored."""
    matchers: dict[int, ItemMatcher] = field(default_factory=dict)

    def matcher(self, item_id: int, timeout: float | None) -> ItemMatcher:
        matcher = self.matchers.get(item_id)
        if matcher is None or matcher.timeout != timeout:
            matcher = self.matchers[item_id] = ItemMatcher(self.rules.get(item_id, ()), self.known.get(item_id, ()),
                                                           timeout)
        return matcher


@dataclass
class _Labels:
    """One chunk's labels in a form that pickles in microseconds: parallel arrays and the rare reasons."""

    ids: array  # type: ignore[type-arg]
    codes: bytes
    rule_ids: array  # type: ignore[type-arg]  # 0 where no rule decided
    reasons: dict[int, str]
    """Position in ``ids`` -> reason."""
    relabelled: array  # type: ignore[type-arg]
    """Outputs that had a label before, which has to be deleted first."""

    def rows(self) -> list[tuple[int, str, int | None, str | None]]:
        labels = [AUTO_LABELS[code] for code in self.codes]
        rule_ids = [rule_id or None for rule_id in self.rule_ids]
        reasons: list[str | None] = [None] * len(self.ids)
        for position, reason in self.reasons.items():
            reasons[position] = reason
        return list(zip(self.ids, labels, rule_ids, reasons))


def _label_chunk(connection: Connection, plan: _Plan, chunk: _Chunk, timeout: float | None) -> _Labels:
    """Read the chunk's outputs and decide those that need it; writes nothing, so a worker can run it."""
    rows = connection.execute(
        select(Output.id, Output.item_id, Output.text, AutoLabel.label)
        .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
        .where(Output.item_id.in_(chunk.items)).order_by(Output.id))
    stale = plan.stale
    ids: list[int] = []
    decisions = []
    relabelled: list[int] = []
    matchers: dict[int, ItemMatcher] = {}
    for output_id, item_id, text, stored in rows:
        if stored is not None:
            if stored != "error" and item_id not in stale:
                continue
            relabelled.append(output_id)
        matcher = matchers.get(item_id)
        if matcher is None:
            matcher = matchers[item_id] = plan.matcher(item_id, timeout)
        ids.append(output_id)
        decisions.append(matcher.decide(text))
    return _Labels(array("q", ids), bytes([_CODES[d.label] for d in decisions]),
                   array("q", [d.rule_id or 0 for d in decisions]),
                   {position: d.reason for position, d in enumerate(decisions) if d.reason},
                   array("q", relabelled))


def _plan(session: Session, suite_id: int) -> tuple[_Plan, dict[int, str], list[_Chunk]]:
    """The items' rules, which items are stale, their current fingerprints, and the chunks to label."""
    in_suite = select(Item.id).where(Item.suite_id == suite_id).scalar_subquery()
    rules: dict[int, list[RuleSpec]] = defaultdict(list)
    for row in session.execute(
            select(Rule.item_id, Rule.id, Rule.polarity, Rule.pattern, Rule.ignore_case, Rule.valid, Rule.error)
            .where(Rule.item_id.in_(in_suite)).order_by(Rule.item_id, Rule.position, Rule.id)):
        rules[row.item_id].append(RuleSpec(row.id, row.polarity, row.pattern, row.ignore_case, row.valid,
                                           row.error))
    known: dict[int, list[KnownSpec]] = defaultdict(list)
    for row in session.execute(select(KnownTranslation.item_id, KnownTranslation.kind, KnownTranslation.text)
                               .where(KnownTranslation.item_id.in_(in_suite))):
        known[row.item_id].append(KnownSpec(row.kind, row.text))
    item_ids = session.scalars(select(Item.id).where(Item.suite_id == suite_id).order_by(Item.id)).all()
    fingerprints = {item_id: item_fingerprint(rules.get(item_id, ()), known.get(item_id, ()))
                    for item_id in item_ids}
    stored = dict(session.execute(select(LabelFingerprint.item_id, LabelFingerprint.fingerprint)
                                  .where(LabelFingerprint.item_id.in_(in_suite))).all())
    stale = frozenset(item_id for item_id in item_ids if stored.get(item_id) != fingerprints[item_id])
    connection = session.connection()
    todo: dict[int, int] = {}
    if stale:  # stale items: all their outputs
        todo.update((item_id, n) for item_id, n in connection.execute(
            select(Output.item_id, func.count()).where(Output.item_id.in_(in_suite)).group_by(Output.item_id))
            if item_id in stale)
    if len(stale) < len(item_ids):  # kept items: only their new and error outputs
        todo.update((item_id, n) for item_id, n in connection.execute(
            select(Output.item_id, func.count())
            .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
            .where(Output.item_id.in_(in_suite), or_(AutoLabel.output_id.is_(None), AutoLabel.label == "error"))
            .group_by(Output.item_id)) if item_id not in stale)
    chunks: list[_Chunk] = []
    items: list[int] = []
    outputs = 0
    for item_id in item_ids:
        if todo.get(item_id):
            items.append(item_id)
            outputs += todo[item_id]
            if outputs >= CHUNK or len(items) >= _ID_CHUNK:
                chunks.append(_Chunk(tuple(items), outputs))
                items, outputs = [], 0
    if items:
        chunks.append(_Chunk(tuple(items), outputs))
    return _Plan(rules, known, stale), {i: fingerprints[i] for i in stale}, chunks


def _labelled_chunks(db: Database, connection: Connection, plan: _Plan, chunks: list[_Chunk],
                     timeout: float) -> Iterator[_Labels]:
    """Every chunk's labels, from forked workers when it pays, in the order they are ready."""
    if sum(chunk.outputs for chunk in chunks) < PARALLEL_THRESHOLD or not db.shareable:
        for chunk in chunks:
            yield _label_chunk(connection, plan, chunk, timeout)
        return
    worker: dict[str, Connection] = {}

    def work(chunk: _Chunk) -> _Labels:
        if not worker:  # first chunk in this forked process: its own engine, never the parent's connections
            worker["connection"] = db.reopen().engine.connect()
        return _label_chunk(worker["connection"], plan, chunk, None)

    def budget(chunk: _Chunk) -> float:
        return WATCHDOG_GRACE + timeout + WATCHDOG_PER_OUTPUT * chunk.outputs

    with closing(run_watched(chunks, work, budget, os.cpu_count() or 1)) as results:
        for index, labels in results:
            yield labels if labels is not None else _label_chunk(connection, plan, chunks[index], timeout)


def relabel(db: Database, suite_name: str | None = None, task: TaskState | None = None,
            timeout: float = DEFAULT_TIMEOUT) -> dict[str, int]:
    """Label every output that needs it and return the suite's effective label counts (see ``label_counts``).

    ``timeout`` bounds each regex search in seconds; an output whose search runs longer is labelled ``error``.
    """
    task = progress_of(task)
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        plan, fingerprints, chunks = _plan(session, suite.id)
        connection = session.connection()
        total = sum(chunk.outputs for chunk in chunks)
        done = 0
        task.progress(done, total, "outputs")
        with closing(_labelled_chunks(db, connection, plan, chunks, timeout)) as results:
            for labels in results:
                for ids in _chunks(labels.relabelled, _ID_CHUNK):
                    connection.execute(delete(AutoLabel).where(AutoLabel.output_id.in_(list(ids))))
                insert_tuples(connection, AutoLabel.__table__, _LABEL_COLUMNS, labels.rows())
                done += len(labels.ids)
                task.progress(done, total, "outputs")
        stale = sorted(fingerprints)
        for ids in _chunks(stale, _ID_CHUNK):
            connection.execute(delete(LabelFingerprint).where(LabelFingerprint.item_id.in_(ids)))
        insert_tuples(connection, LabelFingerprint.__table__, ("item_id", "fingerprint"),
                      [(item_id, fingerprints[item_id]) for item_id in stale], {"labelled_at": func.now()})
        return _counts(connection, suite.id)


def _counts(connection: Connection, suite_id: int) -> dict[str, int]:
    effective = func.coalesce(ManualLabel.label, AutoLabel.label)
    rows = connection.execute(
        select(effective, func.count())
        .select_from(Output).join(Item, Item.id == Output.item_id)
        .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
        .outerjoin(ManualLabel, ManualLabel.output_id == Output.id)
        .where(Item.suite_id == suite_id, effective.is_not(None))
        .group_by(effective))
    counts = dict.fromkeys(EFFECTIVE_LABELS, 0)
    counts.update({label: n for label, n in rows})
    return counts


def label_counts(db: Database, suite_name: str | None = None) -> dict[str, int]:
    """Effective labels (manual, else automatic) over the suite's distinct outputs.

    Exactly the keys pass, fail, conflict, unknown and error; an output that has been neither labelled
    automatically nor reviewed is not counted (``relabel`` labels every output, so this only happens
    between importing outputs and labelling them).
    """
    with db.session() as session:
        return _counts(session.connection(), find_suite(session, suite_name).id)
