from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from store import Database, open_database
from store.engine import make_engine
from store.models import Base

if TYPE_CHECKING:
    from collections.abc import Sequence

    from filters.bertscore import SentenceEmbedding

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "external"

POSTGRESQL_SERVER = os.environ.get("TSQE_TEST_POSTGRESQL")
"""A PostgreSQL server through an account that may create databases, e.g.
``postgresql+psycopg://postgres@127.0.0.1:5432/postgres``; ``make test`` starts a throw-away one
(tests/postgres_cluster.sh) and names it here, or says in ``TSQE_TEST_POSTGRESQL_SKIPPED`` why it could not."""


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    """A fresh, migrated SQLite database in a temporary directory."""
    database = open_database(tmp_path / "tsqe.sqlite")
    yield database
    database.close()


def postgresql_skip_reason() -> str:
    return os.environ.get("TSQE_TEST_POSTGRESQL_SKIPPED") or \
        "TSQE_TEST_POSTGRESQL does not name a PostgreSQL server (make test starts one when PostgreSQL is installed)"


@pytest.fixture(scope="session")
def postgresql_url() -> Iterator[str]:
    """The URL of a migrated PostgreSQL database made for this test run and dropped after it."""
    if not POSTGRESQL_SERVER:
        pytest.skip(postgresql_skip_reason())
    pytest.importorskip("psycopg")
    name = f"tsqe_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRESQL_SERVER, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = make_url(POSTGRESQL_SERVER).set(database=name).render_as_string(hide_password=False)
    open_database(url).close()
    try:
        yield url
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture
def pg(postgresql_url: str) -> Iterator[Database]:
    """The run's PostgreSQL database, emptied for this test: every table truncated and every id sequence
    restarted, so a test sees what a freshly migrated database holds. Connections a former test left behind
    (a killed worker's) are ended first, as they could hold locks. A fifth of creating a database per test."""
    database = Database(make_engine(postgresql_url))
    tables = ", ".join(f'"{table.name}"' for table in Base.metadata.sorted_tables)
    with database.engine.begin() as connection:
        connection.exec_driver_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                   "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        connection.exec_driver_sql(f"TRUNCATE {tables} RESTART IDENTITY CASCADE")
    yield database
    database.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A fresh, migrated database on each backend in turn: SQLite always, PostgreSQL when a server is named
    (skipped with the reason otherwise)."""
    if request.param == "postgresql":
        yield request.getfixturevalue("pg")
        return
    database = open_database(tmp_path / "tsqe.sqlite")
    yield database
    database.close()


@pytest.fixture
def shared_data() -> Path:
    """The real third-party data beside the checkout; tests using it skip cleanly when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data/external is not present")
    return SHARED_DATA


@pytest.fixture
def encoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every sentence the BERTScore model is asked to embed, in order (to show what a cache saved); the model
    embeds token ids, each recorded as the sentence they were made from."""
    from filters import bertscore

    seen: list[str] = []
    sentences: dict[tuple[int, ...], str] = {}
    tokenise, encode = bertscore.Encoder.token_ids, bertscore.Encoder.encode

    def remembered(self: bertscore.Encoder, sentence: str) -> list[int]:
        ids = tokenise(self, sentence)
        sentences.setdefault(tuple(ids), sentence)
        return ids

    def counting(self: bertscore.Encoder, ids: Sequence[Sequence[int]]) -> list[SentenceEmbedding]:
        seen.extend(sentences[tuple(each)] for each in ids)
        return encode(self, ids)

    monkeypatch.setattr(bertscore.Encoder, "token_ids", remembered)
    monkeypatch.setattr(bertscore.Encoder, "encode", counting)
    return seen
