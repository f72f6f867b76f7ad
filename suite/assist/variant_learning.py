"""Learning a suite's label-keeping changes (``VariantStats``) in a worker process when the suite is large.

Reading a million-output suite's evidence and comparing its outputs is about 26 s of pure Python. In a thread of
the window it held the interpreter's lock against every repaint while the reviewer worked: on a million outputs
the review table's filter took 1.0 s instead of 0.39 s, paging 2,000 rows 1.45 s instead of 0.63 s
(``bench/gui.py``). A worker process reads the suite from the database itself and sends back only the counts, so
the window's thread just waits. A small suite is learned in the calling thread: on DFKI de-en (13,985 outputs)
that takes half a second, less than a worker's round trip with its own connection.
"""
from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import func, select

from store import Database, open_database
from store.models import Item, Output
from suite.assist.evidence import suite_evidence
from suite.assist.variants import VariantStats
from suite.engine.watched_pool import WorkerPool

APART_FROM_OUTPUTS = 50_000
"""A suite with at least this many outputs is learned in a worker process."""

_POOL = WorkerPool(niceness=5)
"""One worker, kept: suggestions are background work, so the window's other reads come first."""


class _Learner:
    """The worker's work: the task names the database (its URL, password included: the worker connects itself)
    and the suite."""

    def __call__(self, task: tuple[str, int]) -> VariantStats:
        url, suite_id = task
        db = open_database(url)
        try:
            return _learn(db, suite_id)
        finally:
            db.close()


def _learn(db: Database, suite_id: int) -> VariantStats:
    with db.session() as session:
        return VariantStats.of(suite_evidence(session, suite_id))


def learn_variants(db: Database, suite_id: int, check: Callable[[], None] = lambda: None,
                   apart: bool | None = None) -> VariantStats:
    """The suite's ``VariantStats``; ``apart``: in a worker process (None: when the suite is large and its database
    one a worker can open, not an in-memory one). ``check`` may raise to stop (a cancel) while the worker learns."""
    url = db.engine.url
    if apart is None:
        with db.session() as session:
            outputs = session.scalar(select(func.count(Output.id)).join(Item, Item.id == Output.item_id)
                                     .where(Item.suite_id == suite_id)) or 0
        apart = outputs >= APART_FROM_OUTPUTS and url.database not in (None, "", ":memory:")
    if not apart:
        return _learn(db, suite_id)
    with _POOL.run(_Learner(), 1, check) as run:
        run.submit((url.render_as_string(hide_password=False), suite_id), None)
        [(_, stats)] = run.results()
    return stats if stats is not None else _learn(db, suite_id)  # the worker failed: learn here, raising its error
