"""The same code on PostgreSQL as on SQLite: migrations, the demo, labelling in this process and in workers,
removing replaced outputs, the report and the labels export.

Runs when ``TSQE_TEST_POSTGRESQL`` names a server through an account that may create databases, such as
``postgresql+psycopg://tsqe:tsqe@localhost/postgres`` (needs the ``postgres`` extra); each test works in a
scratch database of its own, dropped afterwards. Skipped otherwise, as in CI.
"""
from __future__ import annotations

import csv
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from import_helpers import small_suite, write
from sqlalchemy import create_engine, update
from sqlalchemy.engine import make_url

from store import Database, open_database
from store.models import LabelFingerprint
from suite.demo import create_demo
from suite.export import export_labels
from suite.importers import import_outputs
from suite.labelling import label_counts, relabel
from suite.report import systems_report
from suite.tables import render

SERVER = os.environ.get("TSQE_TEST_POSTGRESQL")
pytestmark = pytest.mark.skipif(not SERVER, reason="TSQE_TEST_POSTGRESQL does not name a PostgreSQL server")


@pytest.fixture
def pg(tmp_path: Path) -> Iterator[Database]:
    pytest.importorskip("psycopg")
    assert SERVER is not None
    admin = create_engine(SERVER, isolation_level="AUTOCOMMIT")
    name = f"tsqe_test_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    database = open_database(make_url(SERVER).set(database=name).render_as_string(hide_password=False))
    try:
        yield database
    finally:
        database.close()
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE "{name}"')
        admin.dispose()


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
    monkeypatch.setattr("suite.labelling.PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr("suite.labelling.CHUNK", 10)
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
