"""Several kinds of human scores per suite (issue 30): DA and MQM side by side for the same segments, each
statistic computed on the kind chosen for it; migration 0017 keeps every stored score's kind, up and down."""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from migration_helpers import at_revision
from sqlalchemy import Connection, create_engine, text
from sqlalchemy.engine import make_url
from suite_builder import build_suite

from alembic import command
from filters.correlation import human_scores
from filters.human_judgements import read_human_judgements
from store import Database
from store.domain import HumanScoreKind
from store.engine import make_engine
from store.migrations import alembic_config
from suite.errors import TsqeError
from suite.importers.human_scores import import_human_scores
from suite.reading.human_kinds import suite_human_kinds

DA_SEGMENTS = "system\titem_id\tscore\nA\t1\t0.5\nA\t2\t0.1\nB\t1\t-0.2\nB\t2\t0.0\n"
MQM_SEGMENTS = "system\titem_id\tscore\nA\t1\t-1\nA\t2\t-5\nB\t1\t0\nB\t2\t-0.1\n"


@pytest.fixture
def suite(db: Database, tmp_path: Path) -> Database:
    build_suite(db, "nt", [["r1"], ["r2"]], {"A": ["a1", "a2"], "B": ["b1", "b2"]})
    (tmp_path / "da.tsv").write_text(DA_SEGMENTS, encoding="utf-8")
    (tmp_path / "mqm.tsv").write_text(MQM_SEGMENTS, encoding="utf-8")
    return db


def test_a_second_kind_is_added_beside_the_first_and_chosen_per_reading(suite: Database, tmp_path: Path) -> None:
    import_human_scores(suite, segments=tmp_path / "da.tsv")
    assert suite_human_kinds(suite, "nt") == [HumanScoreKind.Z]
    assert read_human_judgements(suite, "nt").kind is HumanScoreKind.Z  # the only kind: no choice needed
    import_human_scores(suite, segments=tmp_path / "mqm.tsv", kind=HumanScoreKind.MQM)
    assert suite_human_kinds(suite, "nt") == [HumanScoreKind.Z, HumanScoreKind.MQM]
    z = read_human_judgements(suite, "nt", kind=HumanScoreKind.Z)
    mqm = read_human_judgements(suite, "nt", kind=HumanScoreKind.MQM)
    assert sorted(z.segments["A"].values()) == [0.1, 0.5] and sorted(mqm.segments["A"].values()) == [-5.0, -1.0]
    assert mqm.scores == {"A": -3.0, "B": -0.05}
    with pytest.raises(TsqeError, match=r"suite 'nt' holds human scores of 2 kinds \(z, mqm\): choose"):
        read_human_judgements(suite, "nt")
    with pytest.raises(TsqeError, match=r"suite 'nt' holds no esa human scores \(it holds z, mqm\)"):
        read_human_judgements(suite, "nt", kind=HumanScoreKind.ESA)


def test_importing_the_same_kind_again_replaces_that_kind_only(suite: Database, tmp_path: Path) -> None:
    import_human_scores(suite, segments=tmp_path / "da.tsv")
    import_human_scores(suite, segments=tmp_path / "mqm.tsv", kind=HumanScoreKind.MQM)
    (tmp_path / "mqm2.tsv").write_text("system\titem_id\tscore\nA\t1\t-2\n", encoding="utf-8")
    import_human_scores(suite, segments=tmp_path / "mqm2.tsv", kind=HumanScoreKind.MQM)
    assert read_human_judgements(suite, "nt", kind=HumanScoreKind.MQM).segments == {"A": {1: -2.0}, "B": {1: 0.0,
                                                                                                        2: -0.1}}
    assert read_human_judgements(suite, "nt", kind=HumanScoreKind.Z).segments["A"] == {1: 0.5, 2: 0.1}


def test_system_scores_of_two_kinds_stand_side_by_side(suite: Database, tmp_path: Path) -> None:
    (tmp_path / "sys.txt").write_text("LP HUMAN SYSTEM\nde-en 0.3 A\nde-en 0.1 B\n", encoding="utf-8")
    (tmp_path / "esa.txt").write_text("LP HUMAN SYSTEM\nde-en 71 A\nde-en 80 B\n", encoding="utf-8")
    import_human_scores(suite, tmp_path / "sys.txt", suite_name="nt")
    import_human_scores(suite, tmp_path / "esa.txt", suite_name="nt", kind=HumanScoreKind.ESA)
    assert human_scores(suite, "nt", HumanScoreKind.ESA) == {"A": 71.0, "B": 80.0}
    assert human_scores(suite, "nt", HumanScoreKind.Z) == {"A": 0.3, "B": 0.1}
    with pytest.raises(TsqeError, match=r"2 kinds \(z, esa\)"):
        human_scores(suite, "nt")


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database without any table on each backend (PostgreSQL: made for this test on the run's server)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite'}"
        return
    server = request.getfixturevalue("postgresql_url")
    name = f"tsqe_kinds_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.dispose()


def _fill_at_0016(conn: Connection) -> None:
    """Suite 1 ('s') with z-scores and no human_score_sets row (imported before 0014), suite 2 ('t') an MQM
    import with its row and an error span."""
    conn.execute(text("INSERT INTO suites (id, name, source_lang, target_lang, created_at) "
                      "VALUES (2, 't', 'en', 'de', CURRENT_TIMESTAMP)"))
    conn.execute(text("INSERT INTO systems (id, suite_id, name) VALUES (1, 1, 'A'), (2, 1, 'B'), (3, 2, 'M')"))
    conn.execute(text("INSERT INTO items (id, suite_id, external_id, position, source) "
                      "VALUES (1, 1, '1', 0, 's'), (2, 2, '7', 0, 't')"))
    conn.execute(text("INSERT INTO human_scores (system_id, lp, score) VALUES (1, 'de-en', 0.25), (2, 'de-en', -0.5)"))
    conn.execute(text("INSERT INTO human_segment_scores (system_id, item_id, score, raw, judgements) "
                      "VALUES (1, 1, 0.5, 70.0, 2), (3, 2, -5.0, NULL, NULL)"))
    conn.execute(text("INSERT INTO human_significance (system_id, other_id, difference, p_below, source) "
                      "VALUES (1, 2, 0.75, 0.05, 'w.csv'), (2, 1, -0.75, NULL, 'w.csv')"))
    conn.execute(text("INSERT INTO human_score_sets (suite_id, kind, source, segments_aligned) "
                      "VALUES (2, 'mqm', 'MQM weights', :aligned)").bindparams(aligned=True))
    conn.execute(text("INSERT INTO human_error_spans (id, system_id, item_id, in_source, start, \"end\", severity, "
                      "category, rater, weight) VALUES (1, 3, 2, :no, 0, 3, 'major', 'Accuracy', 'r1', 5.0)")
                 .bindparams(no=False))


def _rows(conn: Connection, query: str) -> list[tuple[object, ...]]:
    return sorted(tuple(row) for row in conn.execute(text(query)))


def _migrate(url: str, revision: str, *, down: bool = False) -> None:
    engine = make_engine(url)
    config = alembic_config()
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            (command.downgrade if down else command.upgrade)(config, revision)
    finally:
        engine.dispose()


def test_upgrade_keeps_every_kind_and_downgrade_keeps_every_row(empty_url: str) -> None:
    with at_revision(empty_url, "0016") as conn:
        _fill_at_0016(conn)
    _migrate(empty_url, "0017")
    engine = make_engine(empty_url)
    try:
        with engine.connect() as conn:
            assert _rows(conn, "SELECT suite_id, kind, segments_aligned FROM human_score_sets") == [
                (1, "z", True), (2, "mqm", True)]
            assert _rows(conn, "SELECT system_id, kind, lp, score FROM human_scores") == [
                (1, "z", "de-en", 0.25), (2, "z", "de-en", -0.5)]
            assert _rows(conn, "SELECT system_id, item_id, kind, score FROM human_segment_scores") == [
                (1, 1, "z", 0.5), (3, 2, "mqm", -5.0)]
            assert _rows(conn, "SELECT system_id, other_id, kind, p_below FROM human_significance") == [
                (1, 2, "z", 0.05), (2, 1, "z", None)]
            assert _rows(conn, "SELECT id, kind, severity FROM human_error_spans") == [(1, "mqm", "major")]
        with engine.begin() as conn:  # the key now holds the kind: a second kind's score of the same segment
            conn.execute(text("INSERT INTO human_segment_scores (system_id, item_id, kind, score) "
                              "VALUES (1, 1, 'da', 70.0)"))
            conn.execute(text("DELETE FROM human_segment_scores WHERE kind = 'da'"))
    finally:
        engine.dispose()
    _migrate(empty_url, "0016", down=True)
    engine = make_engine(empty_url)
    try:
        with engine.connect() as conn:
            assert _rows(conn, "SELECT suite_id, kind FROM human_score_sets") == [(1, "z"), (2, "mqm")]
            assert _rows(conn, "SELECT system_id, lp, score FROM human_scores") == [
                (1, "de-en", 0.25), (2, "de-en", -0.5)]
            assert _rows(conn, "SELECT system_id, item_id, score, raw FROM human_segment_scores") == [
                (1, 1, 0.5, 70.0), (3, 2, -5.0, None)]
            assert _rows(conn, "SELECT system_id, other_id, difference FROM human_significance") == [
                (1, 2, 0.75), (2, 1, -0.75)]
            assert _rows(conn, "SELECT id, severity, weight FROM human_error_spans") == [(1, "major", 5.0)]
    finally:
        engine.dispose()
    _migrate(empty_url, "head")  # and up again, as opening the database does


def test_downgrade_refuses_a_suite_holding_two_kinds(empty_url: str) -> None:
    with at_revision(empty_url, "0016") as conn:
        _fill_at_0016(conn)
    _migrate(empty_url, "0017")
    engine = make_engine(empty_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO human_score_sets (suite_id, kind, source) VALUES (1, 'mqm', 'f.tsv')"))
            conn.execute(text("INSERT INTO human_segment_scores (system_id, item_id, kind, score) "
                              "VALUES (1, 1, 'mqm', -1.0)"))
    finally:
        engine.dispose()
    with pytest.raises(RuntimeError, match=r"suite\(s\) s hold human scores of more than one kind"):
        _migrate(empty_url, "0016", down=True)
    engine = make_engine(empty_url)
    try:
        with engine.connect() as conn:  # nothing changed: still at 0017 with both kinds
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == "0017"
            assert _rows(conn, "SELECT kind, score FROM human_segment_scores WHERE system_id = 1") == [
                ("mqm", -1.0), ("z", 0.5)]
    finally:
        engine.dispose()


def test_the_error_numbers_of_meta_eval_are_counted_on_the_chosen_kind(db: Database, tmp_path: Path) -> None:
    """Xiang et al.'s error numbers (``tsqe meta-eval`` without ``--statistic``): z orders A above B, MQM B above
    A, and chrF agrees with z (A's outputs are the references), so it errs on MQM's one pair only."""
    from filters.meta_evaluation import MetaOptions, meta_evaluate

    build_suite(db, "nt", [["the cat sat on the mat"], ["it rained all day long"]],
                {"A": ["the cat sat on the mat", "it rained all day long"], "B": ["a dog ran", "sun shone"]})
    (tmp_path / "da.tsv").write_text(DA_SEGMENTS, encoding="utf-8")
    (tmp_path / "mqm.tsv").write_text(MQM_SEGMENTS, encoding="utf-8")
    import_human_scores(db, segments=tmp_path / "da.tsv")
    import_human_scores(db, segments=tmp_path / "mqm.tsv", kind=HumanScoreKind.MQM)
    options = MetaOptions(suites=("nt",), metrics=("chrf",), resamples=10)
    with pytest.raises(TsqeError, match=r"2 kinds \(z, mqm\)"):
        meta_evaluate(db, options)
    errors = {}
    for kind in (HumanScoreKind.Z, HumanScoreKind.MQM):
        dataset = meta_evaluate(db, replace(options, human=kind)).datasets["nt"]
        assert dataset.human is kind and dataset.systems == (["A", "B"] if kind is HumanScoreKind.Z else ["B", "A"])
        errors[kind] = dataset.metrics["chrf"].errors
    assert errors == {HumanScoreKind.Z: 0, HumanScoreKind.MQM: 1}


def test_an_mtme_export_writes_each_kind_as_its_own_human_score(suite: Database, tmp_path: Path) -> None:
    from suite.exporters.mtme import export_mtme

    import_human_scores(suite, segments=tmp_path / "da.tsv")
    export_mtme(suite, tmp_path / "one", suite_name="nt")
    assert sorted(p.name for p in (tmp_path / "one" / "human-scores").iterdir()) == ["de-en.human.seg.score"]
    import_human_scores(suite, segments=tmp_path / "mqm.tsv", kind=HumanScoreKind.MQM)
    export = export_mtme(suite, tmp_path / "two", suite_name="nt")
    folder = tmp_path / "two" / "human-scores"
    assert sorted(p.name for p in folder.iterdir()) == ["de-en.human-mqm.seg.score", "de-en.human-z.seg.score"]
    assert (folder / "de-en.human-mqm.seg.score").read_text(encoding="utf-8").split("\n")[:2] == ["A -1", "A -5"]
    assert export.human_segment_scores == 8
