from __future__ import annotations

import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from migration_helpers import at_revision
from sqlalchemy import BindParameter, bindparam, create_engine, inspect, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from alembic import command
from store import Database, migrations, open_database, resolve_url
from store.bulk import insert_columns, insert_tuples, select_columns_each
from store.migrations import alembic_config, script_location
from store.models import AutoLabel, Item, Output, Suite
from suite.engine.labels import effective_labels_select


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


def test_upgrading_keeps_every_label_and_stores_unknown_as_no_row(tmp_path: Path) -> None:
    """A database labelled at revision 0001 (one row per labelled output, unknown included) reads the same
    labels after the upgrade; an output that was not labelled yet is still new and gets labelled."""
    path = tmp_path / "old.sqlite"
    with at_revision(f"sqlite:///{path}", "0001") as conn:
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
    db = open_database(path)
    with db.session() as session:
        read = effective_labels_select(1).subquery()
        labels = dict(session.execute(select(read.c.output_id, read.c.effective_label)).all())
        assert session.scalars(select(AutoLabel.label).order_by(AutoLabel.output_id)).all() == ["pass", "pass"]
    assert labels == {1: "pass", 2: "unknown", 3: "unknown", 4: "pass", 5: None}
    with db.transaction() as session, pytest.raises(IntegrityError):
        session.execute(text("INSERT INTO auto_labels (output_id, label) VALUES (2, 'unknown')"))
    db.close()


def test_sqlite_uses_wal_and_foreign_keys(db: Database) -> None:
    with db.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar_one() == 1


def test_foreign_keys_are_enforced(any_db: Database) -> None:
    with pytest.raises(IntegrityError), any_db.transaction() as session:
        session.add(Item(suite_id=999, external_id="1", position=0, source="x"))


def test_deleting_a_suite_cascades(any_db: Database) -> None:
    with any_db.transaction() as session:
        suite = Suite(name="s", source_lang="de", target_lang="en")
        suite.items.append(Item(external_id="1", position=0, source="Hallo."))
        session.add(suite)
    with any_db.transaction() as session:
        session.delete(session.scalar(select(Suite)))
    with any_db.session() as session:
        assert session.scalar(select(Item)) is None


def test_resolve_url_accepts_paths_urls_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    assert resolve_url(tmp_path / "x.sqlite") == f"sqlite:///{tmp_path / 'x.sqlite'}"
    monkeypatch.setenv("TSQE_DB", str(tmp_path / "env.sqlite"))
    assert resolve_url(None) == f"sqlite:///{tmp_path / 'env.sqlite'}"


def test_models_and_migrations_agree_by_alembic_check(any_db: Database) -> None:
    """CI fails when a model changes without a migration: alembic's own ``check`` (autogenerate with type
    comparison, as env.py configures it) finds nothing to generate on a freshly migrated database, on
    SQLite and on PostgreSQL."""
    config = alembic_config()
    with any_db.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.check(config)


def _dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        return list(conn.iterdump())


def _at_revision(path: Path, revision: str) -> None:
    """A database file at ``revision`` holding one suite with one item."""
    with at_revision(f"sqlite:///{path}", revision) as conn:
        conn.execute(text("INSERT INTO items (id, suite_id, external_id, position, source) "
                          "VALUES (1, 1, 'a', 0, 'Er kam.')"))


def test_migrating_an_old_file_keeps_a_backup_at_its_revision(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _at_revision(path, "0001")
    before = _dump(path)
    open_database(path).close()
    backup = tmp_path / "old.sqlite.bak-0001"
    assert _dump(backup) == before
    assert sorted(p.name for p in tmp_path.glob("*.bak-*")) == ["old.sqlite.bak-0001"]
    open_database(path).close()  # already at head: no second copy
    assert sorted(p.name for p in tmp_path.glob("*.bak-*")) == ["old.sqlite.bak-0001"]


def test_new_and_current_files_get_no_backup(tmp_path: Path) -> None:
    open_database(tmp_path / "new.sqlite").close()
    open_database(tmp_path / "new.sqlite").close()
    assert list(tmp_path.glob("*.bak-*")) == []


def test_backup_includes_what_is_still_in_the_wal_file(tmp_path: Path) -> None:
    """A writer that has not checkpointed yet keeps its commits in ``-wal``; the copy must hold them."""
    path = tmp_path / "wal.sqlite"
    _at_revision(path, "0001")
    writer = sqlite3.connect(path)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("INSERT INTO items (id, suite_id, external_id, position, source) VALUES (2, 1, 'b', 1, 'Sie.')")
    writer.commit()
    assert (tmp_path / "wal.sqlite-wal").stat().st_size > 0
    open_database(path).close()
    with closing(sqlite3.connect(tmp_path / "wal.sqlite.bak-0001")) as conn:
        assert conn.execute("SELECT external_id FROM items ORDER BY id").fetchall() == [("a",), ("b",)]
    writer.close()


def test_a_failed_migration_leaves_the_file_untouched_and_names_the_backup(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken migration (it creates a table, changes a row, then fails) injected after head."""
    scripts = tmp_path / "alembic"
    shutil.copytree(script_location(), scripts)
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    (scripts / "versions" / "9999_broken.py").write_text(
        '"""broken"""\nfrom alembic import op\nimport sqlalchemy as sa\n\n'
        f'revision = "9999"\ndown_revision = "{head}"\nbranch_labels = None\ndepends_on = None\n\n\n'
        'def upgrade() -> None:\n'
        '    op.create_table("scratch", sa.Column("id", sa.Integer, primary_key=True))\n'
        '    op.add_column("suites", sa.Column("extra", sa.Integer))\n'
        '    op.execute("UPDATE items SET source = \'changed\'")\n'
        '    op.execute("SELECT * FROM no_such_table")\n\n\n'
        'def downgrade() -> None:\n    pass\n')
    path = tmp_path / "current.sqlite"
    open_database(path).close()
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("INSERT INTO suites (id, name, source_lang, target_lang, created_at) "
                     "VALUES (1, 's', 'de', 'en', CURRENT_TIMESTAMP)")
        conn.execute("INSERT INTO items (id, suite_id, external_id, position, source, version) "
                     "VALUES (1, 1, 'a', 0, 'Er kam.', 1)")
    before = _dump(path)
    monkeypatch.setattr(migrations, "script_location", lambda: scripts)
    with pytest.raises(migrations.MigrationFailed) as failure:
        open_database(path)
    backup = tmp_path / f"current.sqlite.bak-{head}"
    assert str(backup) in str(failure.value) and failure.value.backup == backup
    assert _dump(path) == before
    assert _dump(backup) == before


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a database without any table, on each backend (PostgreSQL: made for this test on the test
    run's server)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite'}"
        return
    server = request.getfixturevalue("postgresql_url")
    name = f"tsqe_migration_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.dispose()


def test_history_of_suites_and_outputs_keeps_every_entry(empty_url: str) -> None:
    """Migration 0005 lets the history hold entries about a suite and about outputs; the entries already there
    stay as they were, and entities outside the list are still refused."""
    with at_revision(empty_url, "0004") as conn:
        conn.execute(text("INSERT INTO history (id, suite_id, item_external_id, entity, entity_id, action, author, "
                          "at, before, after, version) VALUES "
                          "(7, 1, 'a', 'rule', 3, 'change', 'ada', CURRENT_TIMESTAMP, '{\"pattern\": \"x\"}', "
                          "'{\"pattern\": \"y\"}', 2), "
                          "(8, 1, NULL, 'category', 2, 'rename', 'bob', CURRENT_TIMESTAMP, NULL, NULL, NULL)"))
        before = conn.execute(text("SELECT id, suite_id, item_external_id, entity, entity_id, action, author, "
                                   "before, after, version FROM history ORDER BY id")).all()
        with pytest.raises(IntegrityError), conn.begin_nested():
            conn.execute(text("INSERT INTO history (suite_id, entity, action, author, at) "
                              "VALUES (1, 'suite', 'rename', 'ada', CURRENT_TIMESTAMP)"))
    db = open_database(empty_url)
    with db.engine.begin() as conn:
        assert conn.execute(text("SELECT id, suite_id, item_external_id, entity, entity_id, action, author, "
                                 "before, after, version FROM history ORDER BY id")).all() == before
        conn.execute(text("INSERT INTO history (suite_id, entity, entity_id, action, author, at) "
                          "VALUES (1, 'suite', 1, 'rename', 'ada', CURRENT_TIMESTAMP), "
                          "(1, 'output', 5, 'change', 'ada', CURRENT_TIMESTAMP)"))
    with pytest.raises(IntegrityError), db.engine.begin() as conn:
        conn.execute(text("INSERT INTO history (suite_id, entity, action, author, at) "
                          "VALUES (1, 'system', 'rename', 'ada', CURRENT_TIMESTAMP)"))
    assert {index["name"] for index in inspect(db.engine).get_indexes("history")} == {
        "ix_history_suite_item", "ix_history_entity"}
    db.close()


def test_challenge_sets_migration_keeps_items_and_empties_the_embedding_cache(empty_url: str) -> None:
    """Migration 0008: suites and items get their challenge layout and own languages (None for what is there),
    outputs can carry a label by construction, and the embeddings cache, keyed by text before, starts empty."""
    with at_revision(empty_url, "0005") as conn:
        conn.execute(text("INSERT INTO items (id, suite_id, external_id, position, source, version) "
                          "VALUES (1, 1, 'a1', 0, 'Die Bank.', 1)"))
        conn.execute(text("INSERT INTO outputs (id, item_id, text) VALUES (1, 1, 'The bank.')"))
        conn.execute(text("INSERT INTO embeddings (model, layer, sentence_hash, tokens, dim, vectors) "
                          "VALUES ('m', 6, 'ab', '[]', 2, :blob)"), {"blob": b"\x00" * 8})
    db = open_database(empty_url)
    with db.engine.begin() as conn:
        assert conn.execute(text("SELECT challenge FROM suites")).all() == [(None,)]
        assert conn.execute(text("SELECT external_id, source_lang, target_lang FROM items")).all() == [
            ("a1", None, None)]
        assert conn.execute(text("SELECT COUNT(*) FROM embeddings")).scalar_one() == 0
        conn.execute(text("INSERT INTO constructed_labels (output_id, label) VALUES (1, 'pass')"))
    with pytest.raises(IntegrityError), db.engine.begin() as conn:
        conn.execute(text("UPDATE constructed_labels SET label = 'unknown'"))
    db.close()


@pytest.mark.parametrize("rows", [1, 2, 332, 333, 334, 1000])
@pytest.mark.parametrize("as_columns", [False, True])
def test_bulk_insert_writes_every_row_as_given(any_db: Database, rows: int, as_columns: bool) -> None:
    """``insert_tuples`` and ``insert_columns`` put several hundred rows into one statement where the driver binds by
    position (SQLite): every row arrives whole and once, whichever way the rows divide into statements and in
    whatever order the columns are given; on PostgreSQL rows go one by one."""
    with any_db.transaction() as session:
        suite = Suite(name="s", source_lang="de", target_lang="en")
        suite.items.append(Item(external_id="1", position=0, source="Hallo."))
        session.add(suite)
        session.flush()
        outputs = [Output(item_id=suite.items[0].id, text=f"output {n}") for n in range(rows)]
        session.add_all(outputs)
        session.flush()
        wanted = [(output.id, ("pass", "fail")[n % 2]) for n, output in enumerate(outputs)]
        given = [(label, None, id_) for id_, label in wanted]  # three columns: 333 rows a statement on SQLite
        if as_columns:
            insert_columns(session.connection(), AutoLabel, ("label", "rule_id", "output_id"),
                           [list(column) for column in zip(*given)])
        else:
            insert_tuples(session.connection(), AutoLabel, ("label", "rule_id", "output_id"), given)
    with any_db.session() as session:
        assert [tuple(row) for row in session.execute(select(AutoLabel.output_id, AutoLabel.label, AutoLabel.rule_id)
                                                      .order_by(AutoLabel.output_id))] == \
            [(id_, label, None) for id_, label in wanted]


def test_reading_columns_item_by_item_gives_every_text_as_stored(any_db: Database) -> None:
    """``select_columns_each`` reads through JSON arrays on SQLite: texts with quotes, backslashes, control
    characters, NUL (SQLite's) and characters beyond the BMP come back exactly, NULL as None, and an item without
    rows as empty columns."""
    texts = ['say "no"', "back\\slash", "tab\tnew\nline\x01", "über 😀", "\u2028", " "]
    if any_db.engine.dialect.name == "sqlite":  # PostgreSQL's texts cannot hold NUL
        texts.append("nul\x00inside")
    with any_db.transaction() as session:
        suite = Suite(name="s", source_lang="de", target_lang="en")
        suite.items += [Item(external_id="1", position=0, source="Hallo."),
                        Item(external_id="2", position=1, source="")]
        session.add(suite)
        session.flush()
        first, second = (item.id for item in suite.items)
        outputs = [Output(item_id=first, text=text) for text in texts]
        session.add_all(outputs)
        session.flush()
        session.add(AutoLabel(output_id=outputs[1].id, label="pass"))
    item: BindParameter[int] = bindparam("item")
    query = (select(Output.id, Output.text, AutoLabel.output_id).outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
             .where(Output.item_id == item).order_by(Output.id))
    with any_db.session() as session:
        read = dict(select_columns_each(session.connection(), query, item.key, [first, second]))
    assert read[first] == [[output.id for output in outputs], texts,
                           [outputs[1].id if n == 1 else None for n in range(len(texts))]]
    assert read[second] == [[], [], []]


def test_an_item_whose_texts_exceed_sqlites_longest_string_is_read_row_by_row(db: Database) -> None:
    """The JSON arrays of ``select_columns_each`` are single strings: an item whose outputs together are longer than
    SQLite allows a string to be (a billion bytes; here lowered to 200 on the connection) is read row by row, the
    same columns, instead of failing."""
    texts = [f"output number {n} " + "x" * 80 for n in range(5)]
    with db.transaction() as session:
        suite = Suite(name="s", source_lang="de", target_lang="en")
        suite.items.append(Item(external_id="1", position=0, source="Hallo."))
        session.add(suite)
        session.flush()
        item_id = suite.items[0].id
        session.add_all([Output(item_id=item_id, text=text) for text in texts])
    item: BindParameter[int] = bindparam("item")
    query = select(Output.id, Output.text).where(Output.item_id == item).order_by(Output.id)
    with db.session() as session:
        connection = session.connection()
        connection.connection.dbapi_connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 200)  # type: ignore[union-attr]
        [(read_item, (ids, read))] = list(select_columns_each(connection, query, item.key, [item_id]))
    assert read_item == item_id and read == texts and len(ids) == len(texts)
