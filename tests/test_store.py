from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, select, text
from sqlalchemy.exc import IntegrityError

from alembic import command
from store import open_database, resolve_url
from store.engine import make_engine
from store.migrations import alembic_config
from store.models import AutoLabel, Base, Item, Suite
from suite.labels import effective_labels_select


def test_open_migrates_to_head_and_is_idempotent(tmp_path: Path) -> None:
    first = open_database(tmp_path / "a.sqlite")
    tables = set(inspect(first.engine).get_table_names())
    assert {"suites", "items", "rules", "outputs", "system_outputs", "auto_labels", "manual_labels",
            "qe_systems", "qe_scores", "metric_scores", "embeddings", "alembic_version"} <= tables
    first.close()
    second = open_database(tmp_path / "a.sqlite")
    with second.engine.connect() as conn:
        head = ScriptDirectory.from_config(alembic_config()).get_current_head()
        assert conn.execute(text("select version_num from alembic_version")).scalar_one() == head
    second.close()


def test_migrations_build_the_schema_the_models_describe(db) -> None:  # type: ignore[no-untyped-def]
    with db.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []


def test_upgrading_keeps_every_label_and_stores_unknown_as_no_row(tmp_path: Path) -> None:
    """A database labelled at revision 0001 (one row per labelled output, unknown included) reads the same
    labels after the upgrade; an output that was not labelled yet is still new and gets labelled."""
    path = tmp_path / "old.sqlite"
    engine = make_engine(f"sqlite:///{path}")
    config = alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0001")
        conn.execute(text("INSERT INTO suites (id, name, source_lang, target_lang, created_at) "
                          "VALUES (1, 's', 'de', 'en', CURRENT_TIMESTAMP)"))
        conn.execute(text("INSERT INTO items (id, suite_id, external_id, position, source) "
                          "VALUES (1, 1, 'a', 0, 'Er kam.'), (2, 1, 'b', 1, 'Sie ging.')"))
        conn.execute(text("INSERT INTO rules (id, item_id, polarity, pattern, ignore_case, valid, position) "
                          "VALUES (1, 1, 'positive', 'came', 0, 1, 0), (2, 2, 'positive', 'went', 0, 1, 0)"))
        conn.execute(text("INSERT INTO outputs (id, item_id, text) VALUES (1, 1, 'He came.'), (2, 1, 'He arrived.'), "
                          "(3, 2, 'She left.'), (4, 2, 'She went.'), (5, 1, 'He comes.')"))
        conn.execute(text("INSERT INTO auto_labels (output_id, label, rule_id) VALUES (1, 'pass', 1), "
                          "(2, 'unknown', NULL), (3, 'unknown', NULL), (4, 'pass', 2)"))
        conn.execute(text("INSERT INTO label_fingerprints (item_id, fingerprint, labelled_at) "
                          "VALUES (1, 'x', CURRENT_TIMESTAMP), (2, 'y', CURRENT_TIMESTAMP)"))
    engine.dispose()
    db = open_database(path)
    with db.session() as session:
        read = effective_labels_select(1).subquery()
        labels = dict(session.execute(select(read.c.output_id, read.c.effective_label)).all())
        assert session.scalars(select(AutoLabel.label).order_by(AutoLabel.output_id)).all() == ["pass", "pass"]
    assert labels == {1: "pass", 2: "unknown", 3: "unknown", 4: "pass", 5: None}
    with db.transaction() as session, pytest.raises(IntegrityError):
        session.execute(text("INSERT INTO auto_labels (output_id, label) VALUES (2, 'unknown')"))
    db.close()


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
