"""The lock that keeps label coverage exact when outputs are imported while a suite is labelled.

An item's labels cover its outputs up to ``LabelFingerprint.labelled_through``, the largest output id its last
labelling read: an output at or below it without a label row counts as ``unknown``. That needs every output
with a smaller id to be visible when labelling reads the item. On PostgreSQL it is not so by itself: a
sequence hands out ids as transactions ask, and they commit in any order, so an import holding id 100 may
still be open when another's id 101 is committed and labelled; output 100 would then never be labelled and
would read as ``unknown`` whatever its rules say.

So the transactions that add outputs to a suite's existing items take this lock shared, from before their
first output gets its id until they commit, and labelling takes it exclusive before its first read. Labelling
thus waits for open imports to commit, and no output gets an id while it runs: every id an import takes later
is larger than all it read (a PostgreSQL sequence only grows). Imports into one suite still run side by side,
and other suites are not held up, as the lock is keyed by the suite. This relies on PostgreSQL's default READ
COMMITTED isolation, under which every statement after the lock sees what committed before it.

SQLite needs nothing: a writer holds the database's one write lock from its first write until it commits, and
labelling takes that lock before it reads (``Database.derived_rows_transaction``); an output can only get an id
below another committed one by reusing a removed output's, which ``suite.importers.outputs`` accounts for.
A new suite (``tsqe import suite``, ``tsqe import wmt``) needs no lock either: no one labels it before it commits.
"""
from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

_OUTPUTS_OF_SUITE = 0x7473_7165
"""The first key of the two-integer advisory lock ("tsqe"); the second is the suite's id."""


def lock_outputs_of_suite(session: Session, suite_id: int, *, labelling: bool) -> None:
    """Hold the suite's coverage lock until the session's transaction ends: exclusive to label the suite's
    outputs, shared to add outputs to it. Nothing on SQLite."""
    if session.get_bind().dialect.name != "postgresql":
        return
    lock = func.pg_advisory_xact_lock if labelling else func.pg_advisory_xact_lock_shared
    session.execute(select(lock(_OUTPUTS_OF_SUITE, suite_id)))
