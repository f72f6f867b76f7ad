"""The same code on PostgreSQL as on SQLite, database to database: the demo's labels, report and labels export,
labelling again in workers, removing replaced outputs.

Runs against the server ``TSQE_TEST_POSTGRESQL`` names (``make test`` starts a throw-away one); each test works in
a scratch database of its own (the ``pg`` fixture of conftest.py), dropped afterwards. Most other tests of the
store, labelling, reviews and editing run on both databases through the ``any_db`` fixture.
"""
from __future__ import annotations

import csv
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from import_helpers import small_suite, write
from sqlalchemy import select, update

from store import Database
from store.errors import DatabaseBusyError
from store.models import Item, LabelFingerprint
from suite.demo import create_demo
from suite.engine.labelling import label_counts, relabel
from suite.exporters.labels_tsv import export_labels
from suite.importers import import_outputs
from suite.reading.report import systems_report
from suite.tables import render


def exported(database: Database, path: Path) -> list[list[str]]:
    """The labels export without its review times, which differ between two databases made one after the other."""
    export_labels(database, path)
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.reader(file, dialect="excel-tab"))
    at = rows[0].index("reviewed_at")
    return [row[:at] + row[at + 1:] for row in rows]


def test_demo_labels_report_and_export_as_on_sqlite(pg: Database, db: Database, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for database in (db, pg):
        create_demo(database)
    assert label_counts(pg) == label_counts(db)
    assert exported(pg, tmp_path / "pg.tsv") == exported(db, tmp_path / "sqlite.tsv")
    assert render(systems_report(pg).to_table(), "csv") == render(systems_report(db).to_table(), "csv")
    with pg.transaction() as session:  # every item's fingerprint changes: everything is labelled again
        session.execute(update(LabelFingerprint).values(fingerprint="outdated"))
    monkeypatch.setattr("suite.engine.labelling.PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr("suite.engine.labelling.CHUNK", 10)
    assert relabel(pg) == label_counts(db)
    assert exported(pg, tmp_path / "pg.tsv") == exported(db, tmp_path / "sqlite.tsv")


def test_replaced_outputs_are_removed_and_new_ones_labelled(pg: Database, tmp_path: Path) -> None:
    small_suite(pg, tmp_path, outputs=False)
    tsv = "item_id\tsystem\toutput\n"
    import_outputs(pg, write(tmp_path / "a.tsv", tsv + "1\tA\tHer husband came.\n1\tB\tHer dog came.\n"))
    assert relabel(pg)["unknown"] == 1
    import_outputs(pg, write(tmp_path / "b.tsv", tsv + "1\tB\tHer husband came.\n"))  # "Her dog came." goes
    assert label_counts(pg) == {"pass": 1, "fail": 0, "conflict": 0, "unknown": 0, "error": 0}
    import_outputs(pg, write(tmp_path / "c.tsv", tsv + "1\tC\tHer husband, a man, came.\n"))
    assert relabel(pg) == {"pass": 1, "fail": 0, "conflict": 1, "unknown": 0, "error": 0}


def test_a_deadlock_between_two_writers_is_a_retry_message_and_changes_nothing(pg: Database) -> None:
    """Two writers that change the same rows in the other order: PostgreSQL stops one of them. That one is told
    to try again, in words, and nothing of it is stored; the other commits."""
    create_demo(pg)
    with pg.session() as session:
        first, second = session.scalars(select(Item.id).order_by(Item.id).limit(2)).all()
    both_hold_one = threading.Barrier(2, timeout=30)

    def comment_on(items: tuple[int, int], comment: str) -> str:
        try:
            with pg.transaction() as session:
                for number, item_id in enumerate(items):
                    session.execute(update(Item).where(Item.id == item_id).values(comment=comment))
                    if number == 0:
                        both_hold_one.wait()
        except DatabaseBusyError as stopped:
            return str(stopped)
        return "stored"

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(comment_on, [(first, second), (second, first)], ["ann", "bob"]))
    assert outcomes[1] == "stored" and outcomes[0] == (
        "another writer changed the same rows at the same moment and the database stopped this change (a deadlock); "
        "nothing was changed: try again")
    with pg.session() as session:
        assert len(set(session.scalars(select(Item.comment).where(Item.id.in_([first, second]))))) == 1
