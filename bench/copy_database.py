"""Time ``tsqe copy`` of the real DFKI de-en suite with the WMT21 systems' outputs, labelled and reviewed in part:
SQLite to PostgreSQL and back, what moving a linguist's file to the team's server costs.

Usage: PYTHONPATH=. python bench/copy_database.py POSTGRESQL_URL [SHARED_DATA_DIR] [RUNS]
POSTGRESQL_URL names a server through an account that may create databases (``tests/postgres_cluster.sh``
sets one in ``$TSQE_TEST_POSTGRESQL``); each run copies into a scratch database there, dropped afterwards.
Prints each run's times and the medians.
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine, select
from sqlalchemy.engine import make_url

from store import open_database
from store.copy import copy_database
from store.domain import Label
from store.models import Output
from suite.editing.review import OutputDecision, SeenOutput, decide
from suite.engine.labelling import relabel
from suite.importers import import_outputs, import_suite

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "external"


def main() -> None:
    server = sys.argv[1]
    data = Path(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_DATA
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    with tempfile.TemporaryDirectory() as directory:
        source = Path(directory) / "dfki.sqlite"
        database = open_database(source)
        import_suite(database, data / "mt-testsuite" / "testset" / "de-en" / "items.json")
        import_outputs(database, data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
        relabel(database)
        with database.session() as session:
            for output_id in session.scalars(select(Output.id).order_by(Output.id).limit(1000)):
                decide(database, [OutputDecision(SeenOutput(output_id), Label.PASS)], "bench")
        database.close()
        admin = create_engine(server, isolation_level="AUTOCOMMIT")
        there, back = [], []
        for run in range(runs):
            name = f"tsqe_bench_{uuid.uuid4().hex[:12]}"
            with admin.connect() as connection:
                connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
            url = make_url(server).set(database=name).render_as_string(hide_password=False)
            try:
                start = time.perf_counter()
                result = copy_database(source, url)
                there.append(time.perf_counter() - start)
                start = time.perf_counter()
                copy_database(url, Path(directory) / f"back{run}.sqlite")
                back.append(time.perf_counter() - start)
            finally:
                with admin.connect() as connection:
                    connection.exec_driver_sql(f'DROP DATABASE "{name}" WITH (FORCE)')
            print(f"run {run + 1}: {result.rows} rows, SQLite -> PostgreSQL {there[-1]:.2f} s, "
                  f"PostgreSQL -> SQLite {back[-1]:.2f} s")
        admin.dispose()
    print(f"median of {runs}: SQLite -> PostgreSQL {statistics.median(there):.2f} s, "
          f"PostgreSQL -> SQLite {statistics.median(back):.2f} s")


if __name__ == "__main__":
    main()
