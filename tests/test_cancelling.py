"""Every long call, cancelled at its first, a middle and its last progress report, leaves every table as it was;
a relabel, which writes chunk by chunk, leaves each chunk's items as they were or labelled."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from contextlib import closing
from importlib import resources
from pathlib import Path
from typing import Protocol

import pytest
from import_helpers import snapshot
from sqlalchemy import select
from test_label_counts import assert_consistent

from filters.metrics.da_bertscore import da_bertscore
from filters.qe_proxy import store_metric_as_qe
from filters.scoring import score_outputs
from qe.accuracy import pairwise_accuracy
from qe.pairs import build_pairs
from qe.stability import ranking_stability
from qe.training import train_qe_system
from store import Database, open_database
from store.models import AutoLabel, Item, ItemLabelCounts, ItemReviewCounts, LabelFingerprint, Output
from suite.demo import create_demo
from suite.engine import labelling
from suite.engine.label_counts import COUNT_COLUMNS
from suite.engine.labelling import relabel
from suite.importers import import_outputs, import_qe_scores, import_reviews, import_suite
from suite.importers.human_scores import import_human_scores
from suite.importers.wmt import import_wmt
from suite.qe_scores import read_qe_scores
from suite.tasks import Cancelled, Progress, TaskState

Call = Callable[[Database, TaskState], object]
DEMO = resources.files("suite.demo")


def demo_file(name: str) -> Path:
    return Path(str(DEMO / name))


def count_reports(path: Path, setup: Callable[[Database], object], call: Call) -> list[Progress]:
    """The reports of an uncancelled run, on a database of its own set up the same way."""
    db = open_database(path)
    try:
        setup(db)
        reports: list[Progress] = []
        call(db, TaskState(reports.append))
        return reports
    finally:
        db.close()


def cancelled_at(report: int) -> TaskState:
    """A task that is cancelled when its ``report``-th progress report (from 0) is made."""
    seen: list[Progress] = []

    def listen(progress: Progress) -> None:
        seen.append(progress)
        if len(seen) == report:
            task.cancel()

    task = TaskState(listen)
    if report == 0:
        task.cancel()
    return task


def assert_cancelling_changes_nothing(tmp_path: Path, setup: Callable[[Database], object], call: Call,
                                      writes: bool = True) -> None:
    reports = count_reports(tmp_path / "uncancelled.sqlite", setup, call)
    assert reports, "the call reports no progress"
    fractions = [report.fraction for report in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    db = open_database(tmp_path / "cancelled.sqlite")
    try:
        setup(db)
        before = snapshot(db)
        for report in sorted({0, len(reports) // 2, len(reports) - 1}):
            with pytest.raises(Cancelled):
                call(db, cancelled_at(report))
            assert snapshot(db) == before, f"cancelled at report {report} of {len(reports)}"
        call(db, TaskState())
        assert (snapshot(db) != before) == writes
    finally:
        db.close()


def nothing(db: Database) -> None:
    pass


def suite_only(db: Database) -> None:
    import_suite(db, demo_file("suite.tsv"), name="demo", source_lang="de", target_lang="en")


def suite_and_outputs(db: Database) -> None:
    suite_only(db)
    import_outputs(db, demo_file("outputs.tsv"))


def labelled(db: Database) -> None:
    suite_and_outputs(db)
    relabel(db)


def demo(db: Database) -> None:
    create_demo(db)


def test_import_suite(tmp_path: Path) -> None:
    assert_cancelling_changes_nothing(tmp_path, nothing, lambda db, task: import_suite(
        db, demo_file("suite.tsv"), name="demo", source_lang="de", target_lang="en", task=task))


def test_import_outputs(tmp_path: Path) -> None:
    assert_cancelling_changes_nothing(tmp_path, suite_only,
                                      lambda db, task: import_outputs(db, demo_file("outputs.tsv"), task=task))


def test_import_reviews(tmp_path: Path) -> None:
    assert_cancelling_changes_nothing(tmp_path, labelled,
                                      lambda db, task: import_reviews(db, demo_file("reviews.tsv"), task=task))


LABELLING_TABLES = ("auto_labels", "label_fingerprints", "item_label_counts", "item_review_counts",
                    "item_group_counts")
"""What labelling writes; it writes each item's part of them in one transaction with the other items of its
chunk."""


def labelled_items(db: Database) -> dict[int, tuple[object, ...]]:
    """Item id -> its part of ``LABELLING_TABLES`` (without the times and stamps a run writes afresh)."""
    with db.session() as session:
        item_of = {output_id: item_id for output_id, item_id in session.execute(select(Output.id, Output.item_id))}
        parts: defaultdict[int, list[list[tuple[object, ...]]]] = defaultdict(lambda: [[], [], [], []])
        for output_id, *label in session.execute(select(AutoLabel.output_id, AutoLabel.label, AutoLabel.rule_id,
                                                        AutoLabel.reason)):
            parts[item_of[output_id]][0].append((output_id, *label))
        for item_id, *coverage in session.execute(select(LabelFingerprint.item_id, LabelFingerprint.fingerprint,
                                                         LabelFingerprint.labelled_through)):
            parts[item_id][1].append(tuple(coverage))
        table = ItemLabelCounts.__table__
        for item_id, *counts in session.execute(select(table.c.item_id, *(table.c[n] for n in COUNT_COLUMNS))):
            parts[item_id][2].append(tuple(counts))
        for item_id, *reviews in session.execute(select(ItemReviewCounts.item_id, ItemReviewCounts.automatic,
                                                        ItemReviewCounts.manual, ItemReviewCounts.reviews)):
            parts[item_id][3].append(tuple(reviews))
        return {item_id: tuple(tuple(sorted(part, key=repr)) for part in parts[item_id])
                for item_id in session.scalars(select(Item.id))}


def other_tables(db: Database) -> dict[str, list[tuple[object, ...]]]:
    return {name: rows for name, rows in snapshot(db).items() if name not in LABELLING_TABLES}


def assert_cancelling_keeps_whole_chunks(tmp_path: Path, call: Call) -> None:
    """Cancelled at its first, a middle and its last report, a relabel leaves each item as it was before or as
    a whole run leaves it, a chunk's items all the one or all the other, and every count exact; labelling again
    ends where the whole run ends."""
    reports = count_reports(tmp_path / "uncancelled.sqlite", suite_and_outputs, call)
    with closing(open_database(tmp_path / "uncancelled.sqlite")) as whole:
        completed = labelled_items(whole)
    ordered = sorted(completed)
    chunks = [ordered[start:start + labelling.CHUNK] for start in range(0, len(ordered), labelling.CHUNK)]
    middle = len(reports) // 2
    for report in sorted({0, middle, len(reports) - 1}):
        with closing(open_database(tmp_path / f"cancelled-at-{report}.sqlite")) as db:
            suite_and_outputs(db)
            before, rest = labelled_items(db), other_tables(db)
            with pytest.raises(Cancelled):
                call(db, cancelled_at(report))
            assert other_tables(db) == rest
            after = labelled_items(db)
            left: set[str] = set()
            for chunk in chunks:
                states = {"before" if after[item] == before[item] else "labelled" if after[item] == completed[item]
                          else f"item {item} half labelled" for item in chunk}
                assert len(states) == 1, f"cancelled at report {report}: chunk {chunk} is {states}"
                left |= states
            if report == middle:
                assert left == {"before", "labelled"}, "the test would prove nothing"
            assert_consistent(db, f"cancelled at report {report}", "demo")
            call(db, TaskState())
            assert labelled_items(db) == completed


def test_relabel_in_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("suite.engine.labelling.CHUNK", 10)
    assert_cancelling_keeps_whole_chunks(tmp_path, lambda db, task: relabel(db, task=task))


def test_relabel_in_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("suite.engine.labelling.PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr("suite.engine.labelling.CHUNK", 10)
    monkeypatch.setattr("suite.engine.labelling.CHUNKS_PER_TRANSACTION", 1)  # a report after each chunk, not each eight
    assert_cancelling_keeps_whole_chunks(tmp_path, lambda db, task: relabel(db, task=task, workers=2))


def test_demo(tmp_path: Path) -> None:
    assert_cancelling_changes_nothing(tmp_path, nothing, lambda db, task: create_demo(db, task=task))


def length_scores(path: Path) -> Path:
    """A QE scores file of the demo's outputs: each output's length."""
    rows = [line.split("\t") for line in demo_file("outputs.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    path.write_text("item_id\tsystem\tscore\n" + "".join(f"{item}\t{system}\t{len(text)}\n"
                                                         for item, system, text in rows), encoding="utf-8")
    return path


def test_import_qe_scores(tmp_path: Path) -> None:
    scores = length_scores(tmp_path / "qe.tsv")
    assert_cancelling_changes_nothing(tmp_path, demo, lambda db, task: import_qe_scores(
        db, scores, name="length", task=task))


class WmtImport(Protocol):
    """The import of the WMT test set: a setup (no task) and a call that is cancelled alike."""

    def __call__(self, db: Database, task: TaskState | None = None) -> object: ...


def wmt_test_set(tmp_path: Path) -> WmtImport:
    """A two-sentence WMT test set of two systems, with the call that imports it."""
    systems = tmp_path / "systems"
    systems.mkdir(parents=True)
    (tmp_path / "src.de").write_text("Ein Satz.\nNoch einer.\n", encoding="utf-8")
    (tmp_path / "ref.en").write_text("A sentence.\nAnother one.\n", encoding="utf-8")
    for name in ("sysA.1", "sysB.2"):
        (systems / f"newstest2099.{name}.de-en").write_text(f"A {name}.\nOne more.\n", encoding="utf-8")

    def wmt(db: Database, task: TaskState | None = None) -> object:
        return import_wmt(db, src=tmp_path / "src.de", refs=[tmp_path / "ref.en"], systems=[systems], name="nt",
                          task=task)
    return wmt


def test_import_wmt_and_human_scores(tmp_path: Path) -> None:
    wmt = wmt_test_set(tmp_path)
    (tmp_path / "DA.csv").write_text("LP HUMAN SYSTEM\nde-en 0.1 sysA.1\nde-en 0.2 sysB.2\n", encoding="utf-8")
    assert_cancelling_changes_nothing(tmp_path / "wmt", nothing, wmt)
    assert_cancelling_changes_nothing(tmp_path / "human", wmt, lambda db, task: import_human_scores(
        db, tmp_path / "DA.csv", lp="de-en", task=task))


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_scoring_with_a_text_metric(tmp_path: Path, metric: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("filters.scoring.SCORE_CHUNK", 50)
    assert_cancelling_changes_nothing(tmp_path, demo, lambda db, task: score_outputs(db, metric, task=task))


def test_storing_a_metric_as_a_qe_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("filters.scoring.SCORE_CHUNK", 50)
    assert_cancelling_changes_nothing(tmp_path, demo, lambda db, task: store_metric_as_qe(db, "chrf", task=task))


def test_bertscore_and_da_bertscore_take_their_embeddings_back(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("filters.scoring.SCORE_CHUNK", 1)
    monkeypatch.setattr("filters.metrics.da_bertscore.ITEM_CHUNK", 1)
    wmt = wmt_test_set(tmp_path)
    assert_cancelling_changes_nothing(tmp_path / "bertscore", wmt,
                                      lambda db, task: score_outputs(db, "bertscore-f", task=task))
    assert_cancelling_changes_nothing(tmp_path / "da", wmt, lambda db, task: da_bertscore(db, task=task))


def test_qe_training(tmp_path: Path) -> None:
    assert_cancelling_changes_nothing(tmp_path, demo, lambda db, task: train_qe_system(
        db, name="gb", kind="pairwise-gb", folds=3, task=task))


def test_accuracy_and_stability_write_nothing(tmp_path: Path) -> None:
    scores = length_scores(tmp_path / "qe.tsv")

    def two_systems(db: Database) -> None:
        create_demo(db)
        train_qe_system(db, name="gb", kind="pairwise-gb", folds=3)
        import_qe_scores(db, scores, name="length")

    def accuracy(db: Database, task: TaskState) -> object:
        return pairwise_accuracy(build_pairs(db), read_qe_scores(db), bootstrap=50, seed=1, task=task)

    def stability(db: Database, task: TaskState) -> object:
        return ranking_stability(build_pairs(db), read_qe_scores(db), splits=20, seed=1, task=task)

    assert_cancelling_changes_nothing(tmp_path / "accuracy", two_systems, accuracy, writes=False)
    assert_cancelling_changes_nothing(tmp_path / "stability", two_systems, stability, writes=False)
