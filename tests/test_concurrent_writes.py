"""Labelling from a thread while a reviewer saves, foreign keys after a failed run, and a database busy too long."""
from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, cast

import pytest
from import_helpers import write
from reviewing import review_output
from sqlalchemy import Table, select, text, update
from sqlalchemy.exc import IntegrityError
from test_label_counts import assert_consistent

from store import Database, open_database
from store.domain import Label
from store.models import AutoLabel, LabelFingerprint, ManualLabel, Output
from suite.demo import create_demo
from suite.engine import labelling, watched_pool
from suite.engine.labelling import label_counts, relabel
from suite.errors import TsqeError
from suite.importers import import_outputs, import_suite
from suite.tasks import Cancelled, TaskState


def foreign_keys_are_checked(db: Database) -> bool:
    with db.engine.connect() as connection:
        on = connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        try:
            connection.execute(cast(Table, AutoLabel.__table__).insert().values(output_id=10**9, label="pass"))
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


def relabel_with_a_review_meanwhile(db: Database, output_id: int, cancel_when_saved: bool = False,
                                    **options: object) -> tuple[float, float, float]:
    """Relabel in a thread; once it has begun, save a review from this thread. Returns when the relabel
    began, when the save ended, and when the relabel ended (cancelled once the review is saved, if asked)."""
    labelling_started = threading.Event()
    result: dict[str, object] = {}
    task = TaskState(lambda report: labelling_started.set())

    def label() -> None:
        try:
            relabel(db, task=task, **options)  # type: ignore[arg-type]
        except Cancelled:
            pass
        except BaseException as error:  # noqa: BLE001 - shown by the assertion below
            result["error"] = error
            labelling_started.set()
        result["ended"] = time.monotonic()

    thread = threading.Thread(target=label)
    thread.start()
    assert labelling_started.wait(60)
    began = time.monotonic()
    review_output(db, output_id, Label.FAIL, "reviewer", "saved during a relabel")
    saved = time.monotonic()
    if cancel_when_saved:
        task.cancel()
    thread.join(300)
    assert "error" not in result, result.get("error")
    return began, saved, result["ended"]  # type: ignore[return-value]


def test_a_review_saved_during_a_relabel_is_stored_between_its_chunks(db: Database,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    create_demo(db)
    outdated(db)
    label_chunk = labelling._label_chunk

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)  # the demo alone labels in milliseconds
        return label_chunk(*args, **kwargs)

    monkeypatch.setattr(labelling, "CHUNK", 10)
    monkeypatch.setattr(labelling, "_label_chunk", slow)
    with db.session() as session:  # an output that passes and has not been reviewed
        output_id = session.scalar(select(AutoLabel.output_id).where(
            AutoLabel.label == "pass", AutoLabel.output_id.not_in(select(ManualLabel.output_id))))
    assert output_id is not None
    before = label_counts(db)
    _, saved, relabelled = relabel_with_a_review_meanwhile(db, output_id)
    assert saved < relabelled  # the save waited for a chunk, not for the run
    with db.session() as session:
        assert session.get(ManualLabel, output_id).label == "fail"  # type: ignore[union-attr]
    assert label_counts(db) == {**before, "pass": before["pass"] - 1, "fail": before["fail"] + 1}
    assert_consistent(db, "a review during a relabel")


def hopeless_suite(db: Database, tmp_path: Path, items: int, outputs: int) -> int:
    """Items whose one rule (``(a|aa)+b``) takes exponential time on each of their outputs, strings of a's: every
    search runs into the timeout. Returns an output's id."""
    rows = "".join(f'{{"id": "i{item}", "langpair": "deen", "category": "C", "phenomenon": "P", '
                   f'"source_sentence": "Satz {item}.", "positive_regex": "(a|aa)+b"}},\n' for item in range(items))
    import_suite(db, write(tmp_path / "de-en" / "items.json", '{"items": [\n' + rows.rstrip(",\n") + "\n]}\n"))
    import_outputs(db, write(tmp_path / "outputs.tsv", "item_id\tsystem\toutput\n" + "".join(
        f"i{item}\ts{k}\t{'a' * (40 + k)}\n" for item in range(items) for k in range(outputs))))
    with db.session() as session:
        return session.scalar(select(Output.id).order_by(Output.id))  # type: ignore[return-value]


@pytest.mark.parametrize("workers", [0, 2], ids=["in this process", "in workers"])
def test_a_review_during_a_relabel_whose_patterns_all_time_out_is_stored_within_seconds(
        any_db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    """Issue 22: such a relabel held the write lock for its whole run (365 s), so a reviewer's decision meanwhile
    waited for all of it and was refused after 64 s. Now matching happens outside the lock: the decision is
    stored at once. The relabel, which would run for 20 s here, is cancelled once it is; what it wrote (a
    chunk or none) keeps every count exact."""
    output_id = hopeless_suite(any_db, tmp_path, 6, 12)
    monkeypatch.setattr(labelling, "CHUNK", 2)
    monkeypatch.setattr(labelling, "PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr(labelling, "WATCHDOG_GRACE", 1.0)
    monkeypatch.setattr(labelling, "WATCHDOG_PER_ITEM", 0.0)
    began, saved, ended = relabel_with_a_review_meanwhile(any_db, output_id, cancel_when_saved=True,
                                                          timeout=0.25, workers=workers)
    assert saved - began < 3.0, f"the review waited {saved - began:.1f} s"
    with any_db.session() as session:
        assert session.get(ManualLabel, output_id).label == "fail"  # type: ignore[union-attr]
    assert_consistent(any_db, "a cancelled hopeless relabel", "de-en")


@pytest.mark.shared
def test_a_review_saved_during_a_relabel_of_the_dfki_suite_is_stored(db: Database, shared_data: Path) -> None:
    import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    with db.session() as session:
        output_id = session.scalar(select(Output.id).order_by(Output.id))
    assert output_id is not None
    relabel_with_a_review_meanwhile(db, output_id)
    with db.session() as session:
        assert session.get(ManualLabel, output_id).label == "fail"  # type: ignore[union-attr]
    assert_consistent(db, "a review during a relabel of the DFKI suite", "de-en")


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
        assert output_id is not None
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        try:
            with pytest.raises(TsqeError, match="locked by another writer"):
                review_output(db, output_id, Label.FAIL, "reviewer")
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
