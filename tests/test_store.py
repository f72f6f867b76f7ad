from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import inspect, select, text
from sqlalchemy.exc import IntegrityError

from store import open_database, resolve_url
from store.models import Item, Suite


def test_open_migrates_to_head_and_is_idempotent(tmp_path: Path) -> None:
    first = open_database(tmp_path / "a.sqlite")
    tables = set(inspect(first.engine).get_table_names())
    assert {"suites", "items", "rules", "outputs", "system_outputs", "auto_labels", "manual_labels",
            "qe_systems", "qe_scores", "metric_scores", "embeddings", "alembic_version"} <= tables
    first.close()
    second = open_database(tmp_path / "a.sqlite")
    with second.engine.connect() as conn:
        assert conn.execute(text("select version_num from alembic_version")).scalar_one() == "0001"
    second.close()


def test_sqlite_uses_wal_and_foreign_keys(db) -> None:  # type: ignore[no-untyped-def]
    with db.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar_one() == 1


def test_foreign_keys_are_enforced(db) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(IntegrityError):
        with db.transaction() as session:
            session.add(Item(suite_id=999, external_id="1", position=0, source="x"))


def test_deleting_a_suite_cascades(db) -> None:  # type: ignore[no-untyped-def]
    with db.transaction() as session:
        suite = Suite(name="s", source_lang="de", target_lang="en")
        suite.items.append(Item(external_id="1", position=0, source="Hallo."))
        session.add(suite)
    with db.transaction() as session:
        session.delete(session.scalar(select(Suite)))
    with db.session() as session:
        assert session.scalar(select(Item)) is None


def test_resolve_url_accepts_paths_urls_and_environment(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    assert resolve_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    assert resolve_url(tmp_path / "x.sqlite") == f"sqlite:///{tmp_path / 'x.sqlite'}"
    monkeypatch.setenv("TSQE_DB", str(tmp_path / "env.sqlite"))
    assert resolve_url(None) == f"sqlite:///{tmp_path / 'env.sqlite'}"
