"""``tsqe copy``: a whole database into an empty one, row for row, between SQLite and PostgreSQL."""
from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from import_helpers import snapshot, write
from sqlalchemy import func, insert, select
from typer.testing import CliRunner

from cli.main import app
from store import Database, open_database
from store.copy import CopyRefused, copy_database
from store.models import (
    Base,
    ConstructedLabel,
    Embedding,
    HistoryEntry,
    HumanErrorSpan,
    HumanScoreSet,
    HumanSegmentScore,
    HumanSignificance,
    MetricScore,
    MetricStatistics,
    Output,
    OutputPlaceholder,
    StoredOutputPolicy,
    Suite,
    System,
)
from suite.assist.double_review import plan_review_checks, take_assignments
from suite.demo import DEMO_SUITE, create_demo
from suite.engine.labelling import label_counts, relabel
from suite.importers import import_outputs, import_qe_scores
from suite.tasks import Cancelled, TaskState

EVERY_TABLE = {table.name for table in Base.metadata.sorted_tables}


def url_of(database: Database) -> str:
    return database.engine.url.render_as_string(hide_password=False)


def filled(database: Database, tmp_path: Path) -> Database:
    """The demo suite (labels, reviews, fingerprints, QE systems, human scores), one more imported QE system, and
    rows the demo may not hold: a history entry, a cached metric score and metric statistics, an embedding, a label
    by construction, a segment-level human score, an imported significance result, a policy for degenerate
    outputs, a human score kind and an MQM error span."""
    create_demo(database)
    with database.session() as session:
        system = session.scalars(select(System.name).order_by(System.id).limit(1)).one()
        output_id = session.scalar(select(func.min(Output.id)))
        suite_id = session.scalar(select(Suite.id))
    import_qe_scores(database, write(tmp_path / "qe.tsv", f"item_id\tsystem\tscore\namb-01\t{system}\t0.25\n"),
                     name="toy-qe")
    with database.transaction() as session:
        session.execute(insert(HistoryEntry).values(
            suite_id=suite_id, item_external_id="amb-01", entity="rule", entity_id=1, action="change",
            author="Ann", at=datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC),
            before='{"pattern": "a"}', after='{"pattern": "b"}', version=2))
        session.execute(insert(MetricScore).values(signature="toy|tsqe", output_id=output_id, score=0.1 + 0.2))
        session.execute(insert(Embedding).values(model="m", layer=6, precision="float16", tokens_hash="ab" * 32,
                                                 tokens='["a"]', dim=2, vectors=bytes(range(256))))
        session.execute(insert(ConstructedLabel).values(output_id=output_id, label="pass"))
        session.execute(insert(MetricStatistics).values(signature="toy|tsqe", output_id=output_id, references="ab",
                                                        statistics=bytes(range(16))))
        first, second = session.scalars(select(System.id).order_by(System.id).limit(2)).all()
        item_id = session.scalar(select(Output.item_id).where(Output.id == output_id))
        session.execute(insert(HumanSegmentScore).values(system_id=first, item_id=item_id, kind="mqm", score=-0.25,
                                                         raw=61.5, judgements=3))
        session.execute(insert(HumanSignificance).values(system_id=first, other_id=second, kind="mqm", difference=0.125,
                                                         p_below=0.01, source="ad-DA-diff-wilcoxon-rs-deen.csv"))
        session.execute(insert(StoredOutputPolicy).values(suite_id=suite_id, empty_output="fail"))
        session.execute(insert(OutputPlaceholder).values(suite_id=suite_id, text="####"))
        session.execute(insert(HumanScoreSet).values(suite_id=suite_id, kind="mqm", source="toy MQM"))
        session.execute(insert(HumanErrorSpan).values(system_id=first, item_id=item_id, kind="mqm", in_source=False,
                                                      start=2, end=7, severity="major",
                                                      category="Accuracy/Mistranslation",
                                                      rater="rater1", weight=5.0))
    plan_review_checks(database, double_share=0.5, control_share=0.5, seed=1, author="Ann")
    take_assignments(database, "Zed", limit=4)  # double reviews and controls
    return database


def empty_tables(database: Database) -> set[str]:
    return {name for name, rows in snapshot(database).items() if not rows}


def test_a_sqlite_copy_holds_every_row_and_labels_as_the_original(tmp_path: Path) -> None:
    original = filled(open_database(tmp_path / "a.sqlite"), tmp_path)
    assert empty_tables(original) == set()
    result = copy_database(tmp_path / "a.sqlite", tmp_path / "new" / "b.sqlite")
    assert {table.name for table in result.tables} == EVERY_TABLE
    copy = open_database(tmp_path / "new" / "b.sqlite")
    assert snapshot(copy) == snapshot(original)
    assert result.rows == sum(map(len, snapshot(original).values()))
    assert relabel(copy) == label_counts(original)


def test_round_trip_through_postgresql_keeps_every_row(pg: Database, tmp_path: Path) -> None:
    """SQLite -> PostgreSQL -> SQLite: every table equal row by row at every step; on PostgreSQL new rows then
    get ids after the copied ones and the copy labels and reports as the original."""
    original = filled(open_database(tmp_path / "a.sqlite"), tmp_path)
    rows = snapshot(original)
    copy_database(tmp_path / "a.sqlite", url_of(pg))
    assert snapshot(pg) == rows
    copy_database(url_of(pg), tmp_path / "back.sqlite")
    assert snapshot(open_database(tmp_path / "back.sqlite")) == rows
    assert relabel(pg) == label_counts(original)
    with pg.session() as session:
        largest = session.scalar(select(func.max(Output.id)))
        assert largest is not None
    import_outputs(pg, write(tmp_path / "new.tsv", "item_id\tsystem\toutput\namb-01\tnew\tA brand new output.\n"),
                   suite_name=DEMO_SUITE)
    create_demo(pg, name="second copy")  # every table gets new rows, none colliding with a copied id
    with pg.session() as session:
        assert session.scalar(select(Output.id).where(Output.text == "A brand new output.")) == largest + 1
    assert relabel(pg, "second copy") == label_counts(original)


def test_a_database_is_only_copied_into_an_empty_one(any_db: Database, tmp_path: Path) -> None:
    filled(open_database(tmp_path / "a.sqlite"), tmp_path)
    create_demo(any_db)
    before = snapshot(any_db)
    with pytest.raises(CopyRefused, match=r"is not empty \(it holds rows in .*suites.*\); a database is only "
                                          r"copied into an empty one"):
        copy_database(tmp_path / "a.sqlite", url_of(any_db))
    assert snapshot(any_db) == before


def test_a_missing_source_or_the_same_database_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(CopyRefused, match="there is no database at .*typo.sqlite"):
        copy_database(tmp_path / "typo.sqlite", tmp_path / "b.sqlite")
    open_database(tmp_path / "a.sqlite").close()
    with pytest.raises(CopyRefused, match="is both the source and the target"):
        copy_database(tmp_path / "a.sqlite", f"sqlite:///{tmp_path / 'a.sqlite'}")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.sqlite"]


def test_a_cancelled_copy_removes_the_file_it_created(tmp_path: Path) -> None:
    filled(open_database(tmp_path / "a.sqlite"), tmp_path)
    task = TaskState(lambda progress: task.cancel() if progress.message.startswith("copying outputs:") else None)
    with pytest.raises(Cancelled):
        copy_database(tmp_path / "a.sqlite", tmp_path / "b.sqlite", task)
    assert not (tmp_path / "b.sqlite").exists()


def test_cli_copy_reports_the_rows_and_refuses_a_full_target(tmp_path: Path) -> None:
    filled(open_database(tmp_path / "a.sqlite"), tmp_path)
    runner = CliRunner()
    rows = sum(map(len, snapshot(open_database(tmp_path / "a.sqlite")).values()))
    result = runner.invoke(app, ["copy", "--from", str(tmp_path / "a.sqlite"), "--to", str(tmp_path / "b.sqlite")])
    assert result.exit_code == 0, result.output
    assert "outputs\t278\n" in result.stdout
    assert result.stdout.splitlines()[-1] == (f"Copied {rows} rows in {len(EVERY_TABLE)} tables from sqlite:///"
                                              f"{tmp_path / 'a.sqlite'} to sqlite:///{tmp_path / 'b.sqlite'}.")
    result = runner.invoke(app, ["copy", "--from", str(tmp_path / "a.sqlite"), "--to", str(tmp_path / "b.sqlite")])
    assert result.exit_code == 2
    assert "error: sqlite:///" in result.stderr and "is not empty" in result.stderr
