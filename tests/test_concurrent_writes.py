"""Labelling from a thread while a reviewer saves, foreign keys after a failed run, and a database busy too long."""
from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.exc import IntegrityError

from store import Database, open_database
from store.models import AutoLabel, LabelFingerprint, ManualLabel, Output
from suite import labelling, watched_pool
from suite.demo import create_demo
from suite.errors import TsqeError
from suite.importers import import_outputs, import_suite
from suite.labelling import label_counts, relabel
from suite.review import set_manual_label
from suite.tasks import Cancelled, TaskState


def foreign_keys_are_checked(db: Database) -> bool:
    with db.engine.connect() as connection:
        on = connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        try:
            connection.execute(AutoLabel.__table__.insert().values(output_id=10**9, label="pass"))
        except IntegrityError:
            return on
        finally:
            connection.rollback()
        return False


def outdated(db: Database) -> None:
    with db.transaction() as session:
        session.execute(update(LabelFingerprint).values(fingerprint="outdated"))


def test_foreign_keys_are_back_on_after_a_cancelled_or_failed_relabel(db: Database,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    create_demo(db)
    outdated(db)
    task = TaskState(lambda report: task.cancel())
    with pytest.raises(Cancelled):
        relabel(db, task=task)
    assert foreign_keys_are_checked(db)

    def failing(*args: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(labelling, "insert_tuples", failing)
    with pytest.raises(RuntimeError):
        relabel(db)
    assert foreign_keys_are_checked(db)


def slow_relabel_with_a_review_meanwhile(db: Database, output_id: int) -> tuple[dict[str, int], float, float]:
    """Relabel in a thread; once it holds the write lock, save a review from this thread. Returns the relabel's
    counts, when it ended and when the save ended."""
    labelling_started = threading.Event()
    result: dict[str, object] = {}

    def label() -> None:
        try:
            result["counts"] = relabel(db, task=TaskState(lambda report: labelling_started.set()))
            result["ended"] = time.monotonic()
        except BaseException as error:  # noqa: BLE001 - shown by the assertion below
            result["error"] = error
            labelling_started.set()

    thread = threading.Thread(target=label)
    thread.start()
    assert labelling_started.wait(60)
    set_manual_label(db, output_id, "fail", "reviewer", "saved during a relabel")
    saved = time.monotonic()
    thread.join(120)
    assert "error" not in result, result.get("error")
    return result["counts"], result["ended"], saved  # type: ignore[return-value]


def test_a_review_saved_during_a_relabel_waits_for_it_and_is_stored(db: Database,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    create_demo(db)
    outdated(db)
    label_chunk = labelling._label_chunk

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        time.sleep(0.5)  # the demo alone labels in milliseconds
        return label_chunk(*args, **kwargs)

    monkeypatch.setattr(labelling, "CHUNK", 10)
    monkeypatch.setattr(labelling, "_label_chunk", slow)
    with db.session() as session:  # an output that passes and has not been reviewed
        output_id = session.scalar(select(AutoLabel.output_id).where(
            AutoLabel.label == "pass", AutoLabel.output_id.not_in(select(ManualLabel.output_id))))
    before = label_counts(db)
    counts, relabelled, saved = slow_relabel_with_a_review_meanwhile(db, output_id)
    assert saved >= relabelled  # the save waited for the relabel's commit
    assert counts == before  # the relabel saw the suite as it was when it started
    with db.session() as session:
        assert session.get(ManualLabel, output_id).label == "fail"  # type: ignore[union-attr]
    assert label_counts(db) == {**before, "pass": before["pass"] - 1, "fail": before["fail"] + 1}


@pytest.mark.shared
def test_a_review_saved_during_a_relabel_of_the_dfki_suite_is_stored(db: Database, shared_data: Path) -> None:
    import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    with db.session() as session:
        output_id = session.scalar(select(Output.id).order_by(Output.id))
    counts, relabelled, saved = slow_relabel_with_a_review_meanwhile(db, output_id)
    assert saved >= relabelled
    with db.session() as session:
        assert session.get(ManualLabel, output_id).label == "fail"  # type: ignore[union-attr]
        automatic = session.scalar(select(AutoLabel.label).where(AutoLabel.output_id == output_id)) or "unknown"
    after = label_counts(db)
    assert after["fail"] == counts["fail"] + (automatic != "fail")
    assert after[automatic] == counts[automatic] - (automatic != "fail")


def test_a_write_that_waits_too_long_is_a_user_error_and_changes_nothing(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("store.engine.SQLITE_BUSY_TIMEOUT", 0.2)
    path = tmp_path / "busy.sqlite"
    db = open_database(path)
    try:
        create_demo(db)
        with db.session() as session:
            output_id = session.scalar(select(Output.id).order_by(Output.id))
            reviews = session.scalar(select(text("count(*)")).select_from(ManualLabel))
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            with pytest.raises(TsqeError, match="locked by another writer"):
                set_manual_label(db, output_id, "fail", "reviewer")
        finally:
            other.execute("ROLLBACK")
            other.close()
        with db.session() as session:
            assert session.scalar(select(text("count(*)")).select_from(ManualLabel)) == reviews
    finally:
        db.close()


def test_a_relabel_in_workers_from_a_thread_uses_the_fork_server_and_labels_alike(
        db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    create_demo(db)
    alone = label_counts(db)
    outdated(db)
    monkeypatch.setattr(labelling, "PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr(labelling, "CHUNK", 10)
    seen: dict[str, object] = {}

    def label() -> None:
        seen["context"] = watched_pool._context()
        seen["counts"] = relabel(db, workers=2)

    thread = threading.Thread(target=label)
    thread.start()
    thread.join(120)
    assert seen["context"] is watched_pool._CONTEXT  # this process runs two threads: no fork
    assert seen["counts"] == alone == label_counts(db)
