"""Automatic labelling of a suite's distinct outputs, incremental and persistent.

An output is (re)labelled when it has no automatic label, when its item's fingerprint (rules and known
translations, see ``suite.rules.item_fingerprint``) differs from the one stored with its label, or when its
label is ``error`` (so that a fixed pattern or a longer timeout is tried again). Manual labels are never
read or written here. The whole run is one transaction: a cancelled or failed run changes nothing.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence

from sqlalchemy import delete, func, or_, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from store import Database
from store.bulk import insert_tuples
from store.models import AutoLabel, Item, KnownTranslation, ManualLabel, Output, Rule
from suite.labels import EFFECTIVE_LABELS
from suite.rules import DEFAULT_TIMEOUT, ItemMatcher, KnownSpec, RuleSpec, item_fingerprint
from suite.suites import find_suite
from suite.tasks import TaskState, progress_of

CHUNK = 20_000
"""Outputs fetched, labelled and written per step; also how often progress is reported and cancel checked."""

_ID_CHUNK = 5_000
"""Ids per ``IN (...)`` list, well below every backend's limit on bound parameters."""

_LABEL_COLUMNS = ("output_id", "label", "rule_id", "decided_by", "rules_hash")


def _chunks(values: Sequence[int], size: int) -> Iterator[Sequence[int]]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


def _item_definitions(session: Session, suite_id: int) -> tuple[dict[int, list[RuleSpec]],
                                                                 dict[int, list[KnownSpec]]]:
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
    return rules, known


def _stale_items(connection: Connection, suite_id: int, fingerprints: dict[int, str]) -> list[int]:
    """Items with at least one label made under a different fingerprint than the item's current one."""
    stored = connection.execute(
        select(Output.item_id, AutoLabel.rules_hash).distinct()
        .join(AutoLabel, AutoLabel.output_id == Output.id)
        .join(Item, Item.id == Output.item_id).where(Item.suite_id == suite_id))
    return sorted({item_id for item_id, rules_hash in stored if fingerprints.get(item_id) != rules_hash})


def _outputs_to_label(connection: Connection, suite_id: int, stale: list[int]) -> list[tuple[int, int, str, bool]]:
    """(output id, item id, text, has a stored label) of every output to (re)label, in output id order.

    Output id order makes the label inserts appends to the table's primary key. Read through the Core
    connection: the ORM's result machinery costs seconds per million rows.
    """
    base = (select(Output.id, Output.item_id, Output.text, AutoLabel.output_id.is_not(None))
            .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
            .join(Item, Item.id == Output.item_id).where(Item.suite_id == suite_id).order_by(Output.id))
    todo = connection.execute(base.where(or_(AutoLabel.output_id.is_(None), AutoLabel.label == "error"))).all()
    if stale:
        labelled = base.where(AutoLabel.output_id.is_not(None), AutoLabel.label != "error")
        for chunk in _chunks(stale, _ID_CHUNK):
            todo.extend(connection.execute(labelled.where(Output.item_id.in_(chunk))).all())
        todo.sort()
    return todo


def relabel(db: Database, suite_name: str | None = None, task: TaskState | None = None,
            timeout: float = DEFAULT_TIMEOUT) -> dict[str, int]:
    """Label every output that needs it and return the suite's effective label counts (see ``label_counts``).

    ``timeout`` bounds each regex search in seconds; an output whose search runs longer is labelled ``error``.
    """
    task = progress_of(task)
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        rules, known = _item_definitions(session, suite.id)
        item_ids = session.scalars(select(Item.id).where(Item.suite_id == suite.id)).all()
        fingerprints = {item_id: item_fingerprint(rules.get(item_id, ()), known.get(item_id, ()))
                        for item_id in item_ids}
        connection = session.connection()
        todo = _outputs_to_label(connection, suite.id, _stale_items(connection, suite.id, fingerprints))
        matchers: dict[int, ItemMatcher] = {}
        task.progress(0, len(todo), "outputs")
        for start in range(0, len(todo), CHUNK):
            chunk = todo[start:start + CHUNK]
            relabelled = [row[0] for row in chunk if row[3]]
            for ids in _chunks(relabelled, _ID_CHUNK):
                connection.execute(delete(AutoLabel).where(AutoLabel.output_id.in_(ids)))
            rows = []
            for output_id, item_id, text, _ in chunk:
                matcher = matchers.get(item_id)
                if matcher is None:
                    matcher = matchers[item_id] = ItemMatcher(rules.get(item_id, ()), known.get(item_id, ()),
                                                              timeout)
                rows.append((output_id, *matcher.decide(text), fingerprints[item_id]))
            insert_tuples(connection, AutoLabel.__table__, _LABEL_COLUMNS, rows,
                          {"labelled_at": func.now()})
            task.progress(start + len(chunk), len(todo), "outputs")
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
