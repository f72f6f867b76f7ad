from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from import_helpers import small_suite, write
from reviewing import review_output
from sqlalchemy import delete, func, insert, select, update
from typer.testing import CliRunner

from cli.main import app
from store import Database, open_database
from store.domain import Label
from store.models import (
    AutoLabel,
    Item,
    KnownTranslation,
    LabelFingerprint,
    ManualLabel,
    Output,
    Rule,
    Suite,
    System,
)
from suite.demo import create_demo
from suite.editing.review import explain
from suite.engine import labelling
from suite.engine.labelling import label_counts, relabel
from suite.engine.labels import automatic_label, join_labels, rule_number
from suite.engine.rules import describe
from suite.errors import TsqeError
from suite.importers import import_outputs, import_suite
from suite.tasks import CancelledPartway, Progress, TaskState


@pytest.fixture
def db(any_db: Database) -> Database:
    """Every test of this module that takes a database runs on SQLite and on PostgreSQL."""
    return any_db


# item external id -> (positive, negative, good, bad, outputs)
ITEMS = {
    "husband": (r"husband|spouse", r"\bm[ae]n\b", ["Her partner visited her."], [],
                ["Her husband visited her.", "Her man visited her.", "Her husband, a man, came.",
                 "Her  partner visited   her. ", "Her dog visited her."]),
    "court": (r"\bcourts?\b", r"\bdish(es)?\b", [], ["The plates in Berlin were negative."],
              ["The courts in Berlin were negative.", "The dishes in Berlin were negative.",
               "The plates in Berlin were negative."]),
}


def build(db: Database) -> dict[str, int]:
    """The two items above, their rules, known translations and one system's outputs; returns output ids."""
    ids: dict[str, int] = {}
    with db.transaction() as session:
        suite = Suite(name="demo", source_lang="de", target_lang="en")
        session.add(suite)
        system = System(name="sys", suite=suite)
        session.add(system)
        session.flush()
        for position, (external, (positive, negative, good, bad, outputs)) in enumerate(ITEMS.items()):
            item = Item(suite_id=suite.id, external_id=external, position=position, source=external)
            item.rules = [Rule(polarity="positive", pattern=positive, position=0),
                          Rule(polarity="negative", pattern=negative, position=1)]
            item.known_translations = [KnownTranslation(kind="good", text=t) for t in good] + \
                                      [KnownTranslation(kind="bad", text=t) for t in bad]
            item.outputs = [Output(text=text.strip()) for text in outputs]
            session.add(item)
            session.flush()
            for output in item.outputs:
                ids[output.text] = output.id
    return ids


def auto(db: Database) -> dict[int, tuple[str, str]]:
    """Output id -> (automatic label, what decided it in words), for the outputs labelled so far."""
    with db.session() as session:
        return {output_id: (label, describe(label, number, polarity, pattern, reason))
                for output_id, label, number, polarity, pattern, reason in session.execute(
                    join_labels(select(Output.id, automatic_label(Output.id), rule_number(), Rule.polarity,
                                       Rule.pattern, AutoLabel.reason), Output.id, Output.item_id)
                    .outerjoin(Rule, Rule.id == AutoLabel.rule_id)
                    .where(automatic_label(Output.id).is_not(None)))}


def stamps(db: Database) -> dict[int, tuple[str, int, object]]:
    """Item id -> (fingerprint, outputs covered up to, time) of its current automatic labels."""
    with db.session() as session:
        return {item_id: (fingerprint, through, at) for item_id, fingerprint, through, at in session.execute(
            select(LabelFingerprint.item_id, LabelFingerprint.fingerprint, LabelFingerprint.labelled_through,
                   LabelFingerprint.labelled_at))}


def mark(db: Database) -> None:
    """Give every stored automatic label the reason "marker", so that a rewritten label shows."""
    with db.transaction() as session:
        session.execute(update(AutoLabel).values(reason="marker"))


def test_relabel_labels_every_output(db: Database) -> None:
    ids = build(db)
    counts = relabel(db)
    assert counts == {"pass": 3, "fail": 3, "conflict": 1, "unknown": 1, "error": 0}
    labels = auto(db)
    assert labels[ids["Her husband visited her."]] == ("pass", r"positive rule 1: husband|spouse")
    assert labels[ids["Her man visited her."]][0] == "fail"
    assert labels[ids["Her husband, a man, came."]][0] == "conflict"
    assert labels[ids["Her  partner visited   her."]] == ("pass", "known good translation")
    assert labels[ids["Her dog visited her."]] == ("unknown", "no rule or known translation matched")
    assert labels[ids["The plates in Berlin were negative."]] == ("fail", "known bad translation")
    assert label_counts(db) == counts


def test_label_counts_skip_unlabelled_outputs(db: Database) -> None:
    build(db)
    assert label_counts(db) == {"pass": 0, "fail": 0, "conflict": 0, "unknown": 0, "error": 0}


def test_second_run_relabels_nothing(db: Database) -> None:
    build(db)
    relabel(db)
    mark(db)
    before = stamps(db), auto(db)
    assert len(before[0]) == 2
    assert {decided_by for label, decided_by in before[1].values() if label != "unknown"} == {"marker"}
    seen: list[tuple[int, int]] = []
    relabel(db, task=TaskState(lambda report: seen.append((report.done, report.total))))
    assert seen == [(0, 0)]
    assert (stamps(db), auto(db)) == before


def test_changing_a_rule_relabels_only_that_items_outputs(db: Database) -> None:
    ids = build(db)
    relabel(db)
    mark(db)
    with db.transaction() as session:
        session.execute(update(Rule).where(Rule.pattern == r"\bdish(es)?\b").values(pattern=r"\bplates?\b"))
    seen: list[int] = []
    counts = relabel(db, task=TaskState(lambda report: seen.append(report.total)))
    assert seen[-1] == 1  # the court item
    labels = auto(db)
    assert labels[ids["The plates in Berlin were negative."]][0] == "fail"
    assert labels[ids["The dishes in Berlin were negative."]] == ("unknown", "no rule or known translation matched")
    assert labels[ids["Her husband visited her."]] == ("pass", "marker")
    assert counts == {"pass": 3, "fail": 2, "conflict": 1, "unknown": 2, "error": 0}


def test_changing_known_translations_relabels_that_item(db: Database) -> None:
    ids = build(db)
    relabel(db)
    with db.transaction() as session:
        item_id = session.scalar(select(Item.id).where(Item.external_id == "husband"))
        session.add(KnownTranslation(item_id=item_id, kind="bad", text="Her dog visited her."))
    relabel(db)
    assert auto(db)[ids["Her dog visited her."]] == ("fail", "known bad translation")


def test_new_output_is_labelled(db: Database) -> None:
    build(db)
    relabel(db)
    with db.transaction() as session:
        item_id = session.scalar(select(Item.id).where(Item.external_id == "court"))
        assert item_id is not None
        new_id = session.scalar(insert(Output).values(item_id=item_id, text="The court said no.").returning(Output.id))
        assert new_id is not None
    mark(db)
    before = stamps(db), auto(db)
    relabel(db)
    after = auto(db)
    assert after.pop(new_id) == ("pass", r"positive rule 1: \bcourts?\b")  # the item's first (id 3)
    assert after == before[1]  # no other label was rewritten
    now = stamps(db)
    assert now.pop(item_id)[:2] == (before[0][item_id][0], new_id)  # same rules, now covering the new output
    assert now == {item: stamp for item, stamp in before[0].items() if item != item_id}


def test_manual_labels_survive_and_win(db: Database) -> None:
    ids = build(db)
    relabel(db)
    dog = ids["Her dog visited her."]
    man = ids["Her man visited her."]
    review_output(db, dog, Label.PASS, "Ada", "a pet is fine here")
    review_output(db, man, Label.UNKNOWN, "Ada")
    with db.transaction() as session:  # force the husband item to be relabelled
        session.execute(update(Rule).where(Rule.pattern == r"\bm[ae]n\b").values(ignore_case=True))
    counts = relabel(db)
    assert counts == {"pass": 4, "fail": 2, "conflict": 1, "unknown": 1, "error": 0}
    with db.session() as session:
        manual = {m.output_id: m for m in session.scalars(select(ManualLabel))}
    assert manual[dog].label == "pass" and manual[dog].reviewer == "Ada"
    assert manual[dog].comment == "a pet is fine here" and manual[dog].reviewed_at is not None
    assert auto(db)[dog][0] == "unknown"
    assert review_output(db, dog, None, "Ada").before is not None
    assert review_output(db, dog, None, "Ada").before is None
    assert label_counts(db)["unknown"] == 2


def test_manual_label_validation(db: Database) -> None:
    ids = build(db)
    with pytest.raises(TsqeError, match="one of pass, fail, unknown"):
        review_output(db, ids["Her dog visited her."], Label.CONFLICT, "Ada")
    with pytest.raises(TsqeError, match="reviewer"):
        review_output(db, ids["Her dog visited her."], Label.PASS, " ")
    with pytest.raises(TsqeError, match="no output"):
        review_output(db, 10_000, Label.PASS, "Ada")


def test_invalid_and_timed_out_rules_give_errors_and_are_retried(db: Database) -> None:
    ids = build(db)
    with db.transaction() as session:
        session.execute(update(Rule).where(Rule.pattern == r"\bdish(es)?\b")
                        .values(pattern="(dish", valid=False, error="missing ), unterminated subpattern"))
        item_id = session.scalar(select(Item.id).where(Item.external_id == "husband"))
        slow = session.scalar(insert(Output).values(item_id=item_id, text="a" * 60).returning(Output.id))
        assert slow is not None
        session.add(Rule(item_id=item_id, polarity="negative", pattern=r"(a|aa)+b", position=2))
    counts = relabel(db, timeout=0.01)
    assert counts["error"] == 4
    labels = auto(db)
    assert labels[ids["The courts in Berlin were negative."]][1] == \
        "negative rule 1 is invalid: missing ), unterminated subpattern"
    assert labels[slow][1].endswith("timed out after 0.01 s")
    mark(db)
    seen: list[int] = []
    relabel(db, timeout=0.01, task=TaskState(lambda report: seen.append(report.total)))
    assert seen[-1] == 2  # both items hold an error, and errors are always tried again
    retried = auto(db)
    assert retried[slow][1].endswith("timed out after 0.01 s")
    assert retried[ids["Her husband visited her."]] == ("pass", "marker")  # only the errors were relabelled


def cancelled_after_first_chunk(written: list[int]) -> TaskState:
    def cancel(report: Progress) -> None:
        written.append(report.done)
        if report.done > 0:
            task.cancel()

    task = TaskState(cancel)
    return task


ALONE = {"husband": {"pass": 2, "fail": 1, "conflict": 1, "unknown": 1, "error": 0},
         "court": {"pass": 1, "fail": 2, "conflict": 0, "unknown": 0, "error": 0}}
"""The label counts of each item of ``build`` labelled alone."""


def assert_one_item_labelled_alone(db: Database, ids: dict[str, int]) -> None:
    """After a run cancelled once the first chunk (of one item) was written: that item's outputs are labelled
    and covered, the other item's are not, and the counts say so; labelling again does the rest."""
    with db.session() as session:
        items = {item_id: name for item_id, name in session.execute(select(Item.id, Item.external_id))}
        item_of = {output_id: item_id for output_id, item_id in session.execute(select(Output.id, Output.item_id))}
    labelled = auto(db)
    [item_id] = stamps(db)
    assert sorted(labelled) == sorted(output_id for output_id in ids.values() if item_of[output_id] == item_id)
    assert label_counts(db) == ALONE[items[item_id]]
    assert relabel(db) == {"pass": 3, "fail": 3, "conflict": 1, "unknown": 1, "error": 0}
    assert {output_id: labels for output_id, labels in auto(db).items() if output_id in labelled} == labelled


def test_a_cancelled_run_keeps_the_chunks_it_wrote(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = build(db)
    monkeypatch.setattr("suite.engine.labelling.CHUNK", 1)
    written: list[int] = []
    with pytest.raises(CancelledPartway, match="^1 of 2 items were labelled and are kept, the others are as they "
                                               "were: label again to finish$"):
        relabel(db, task=cancelled_after_first_chunk(written))
    assert written == [0, 1]  # progress counts items, reported after each chunk's transaction
    assert_one_item_labelled_alone(db, ids)


def test_explain_gives_decision_and_spans(db: Database) -> None:
    ids = build(db)
    explanation = explain(db, ids["Her husband, a man, came."])
    assert explanation.decision.label == "conflict"
    assert [(s.start, s.end, s.polarity) for s in explanation.spans] == [(4, 11, "positive"), (15, 18, "negative")]
    assert explanation.stored is None and explanation.stored_decided_by is None
    relabel(db)
    explanation = explain(db, ids["Her husband, a man, came."])
    assert explanation.stored == "conflict"
    assert explanation.stored_decided_by == explanation.decision.decided_by == \
        r"positive rule 1: husband|spouse and negative rule 1: \bm[ae]n\b both matched"


def test_cli_label_interrupted_says_what_it_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl+C during ``tsqe label``: the chunks written stay, and the words say so (not "nothing was changed")."""
    database = tmp_path / "t.sqlite"
    small_suite(open_database(database), tmp_path)

    def interrupted(*args: object, **kwargs: object) -> dict[str, int]:
        raise KeyboardInterrupt

    monkeypatch.setattr("suite.engine.labelling.relabel", interrupted)  # the command imports it when it runs
    result = CliRunner().invoke(app, ["--db", str(database), "label"])
    assert result.exit_code == 130
    assert "interrupted: the items labelled so far are kept, each whole, the others are as they were: run tsqe " \
           "label again to finish" in result.stderr


def test_cli_label_json_and_table(tmp_path: Path) -> None:
    path = tmp_path / "cli.sqlite"
    db = open_database(path)
    build(db)
    db.close()
    runner = CliRunner()
    result = runner.invoke(app, ["--db", str(path), "label", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"pass": 3, "fail": 3, "conflict": 1, "unknown": 1, "error": 0}
    result = runner.invoke(app, ["--db", str(path), "--suite", "demo", "label", "--timeout", "0.5"])
    assert result.exit_code == 0, result.output
    assert "conflict" in result.stdout and "total" in result.stdout and "8" in result.stdout
    assert "--timeout" in runner.invoke(app, ["label", "--help"]).stdout


@pytest.mark.shared
@pytest.mark.parametrize("lp, distinct, expected", [
    ("de-en", 13985, {"pass": 6747, "fail": 3220, "conflict": 2, "unknown": 4016, "error": 0}),
    ("en-de", 12102, {"pass": 5627, "fail": 1135, "conflict": 6, "unknown": 5334, "error": 0}),
])
def test_real_dfki_suite_with_wmt21_outputs(db: Database, shared_data: Path, lp: str, distinct: int,
                                            expected: dict[str, int]) -> None:
    import_suite(db, shared_data / "mt-testsuite" / "testset" / lp / "items.json")
    import_outputs(db, shared_data / "wmt21-news-systems" / f"dfki-testsuite-outputs.{lp}.tsv")
    counts = relabel(db)
    assert counts == expected
    assert sum(counts.values()) == distinct
    assert counts["error"] == 0  # every DFKI pattern compiles and none backtracks catastrophically
    assert counts["pass"] > counts["fail"] > counts["conflict"]
    assert counts["pass"] + counts["fail"] > distinct / 3
    assert relabel(db) == counts
    with db.session() as session:
        # unknown is stored as no row
        assert session.scalar(select(func.count()).select_from(AutoLabel)) == distinct - counts["unknown"]


def labels_by_text(db: Database) -> dict[tuple[int, str], tuple[str, int | None, str | None]]:
    with db.session() as session:
        return {(item_id, text): (label, rule_id, reason) for item_id, text, label, rule_id, reason in session.execute(
            join_labels(select(Output.item_id, Output.text, automatic_label(Output.id), AutoLabel.rule_id,
                               AutoLabel.reason), Output.id, Output.item_id)
            .where(automatic_label(Output.id).is_not(None)))}


def force_workers(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """Send even a small run through forked workers, in chunks of ``chunk`` items."""
    monkeypatch.setattr("suite.engine.labelling.PARALLEL_THRESHOLD", 1)
    monkeypatch.setattr("suite.engine.labelling.CHUNK", chunk)


def relabel_everything_in_workers(db: Database, monkeypatch: pytest.MonkeyPatch, chunk: int) -> dict[str, int]:
    with db.transaction() as session:  # every item's fingerprint changes: every output is labelled again
        session.execute(update(LabelFingerprint).values(fingerprint="outdated"))
    with monkeypatch.context() as patch:
        force_workers(patch, chunk)
        return relabel(db)


def test_watchdog_redoes_a_hanging_chunk_with_timeouts(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """An untimed catastrophic search hangs its worker; the chunk is redone with per-search timeouts, so
    the slow output ends as error with the reason and the chunk's other outputs get their normal labels."""
    ids = build(db)
    with db.transaction() as session:
        item_id = session.scalar(select(Item.id).where(Item.external_id == "husband"))
        slow = session.scalar(insert(Output).values(item_id=item_id, text="a" * 60).returning(Output.id))
        assert slow is not None
        rule = Rule(item_id=item_id, polarity="negative", pattern=r"(a|aa)+b", position=2)
        session.add(rule)
        session.flush()
        rule_id = rule.id
    force_workers(monkeypatch, 2)
    monkeypatch.setattr("suite.engine.labelling.WATCHDOG_GRACE", 3.0)  # a worker niced on a loaded machine needs time
    monkeypatch.setattr("suite.engine.labelling.WATCHDOG_PER_ITEM", 0.0)
    in_this_process: list[tuple[int, ...]] = []
    label_chunk = labelling._label_chunk

    def record(connection: Any, plan: Any, chunk: Any, timed: bool) -> Any:
        in_this_process.append(chunk.items)
        return label_chunk(connection, plan, chunk, timed)

    monkeypatch.setattr("suite.engine.labelling._label_chunk", record)
    counts = relabel(db, timeout=0.05)
    assert in_this_process == []  # the redo, item by item with timeouts, ran in the workers too
    assert counts == {"pass": 3, "fail": 3, "conflict": 1, "unknown": 1, "error": 1}
    labels = auto(db)
    assert labels[slow] == ("error", "negative rule 2 timed out after 0.05 s")  # the item's second negative rule
    assert rule_id not in (1, 2)
    assert labels[ids["Her husband visited her."]] == ("pass", r"positive rule 1: husband|spouse")
    assert labels[ids["Her  partner visited   her."]] == ("pass", "known good translation")
    assert labels[ids["Her dog visited her."]] == ("unknown", "no rule or known translation matched")


def test_workers_label_the_demo_suite_like_one_process(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    create_demo(db)  # labels in this process: the demo is far below the parallel threshold
    alone, counts = labels_by_text(db), label_counts(db)
    assert relabel_everything_in_workers(db, monkeypatch, 10) == counts
    assert labels_by_text(db) == alone
    assert {label for label, _, _ in alone.values()} == {"pass", "fail", "conflict", "unknown", "error"}


def test_cancelling_with_workers_keeps_the_chunks_written(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = build(db)
    force_workers(monkeypatch, 1)
    monkeypatch.setattr("suite.engine.labelling.CHUNKS_PER_TRANSACTION", 1)  # one chunk a transaction, as they come
    written: list[int] = []
    with pytest.raises(CancelledPartway):
        relabel(db, task=cancelled_after_first_chunk(written))
    assert written == [0, 1]
    assert_one_item_labelled_alone(db, ids)


@pytest.mark.shared
def test_workers_label_real_dfki_outputs_like_one_process(db: Database, shared_data: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    with db.session() as session:  # a slice: the first 400 items and their outputs
        keep = session.scalars(select(Item.id).order_by(Item.position).limit(400)).all()
    with db.transaction() as session:
        session.execute(delete(Item).where(Item.id.not_in(keep)))
    counts = relabel(db)
    alone = labels_by_text(db)
    assert len(alone) > 1_500 and counts["pass"] and counts["fail"]
    assert relabel_everything_in_workers(db, monkeypatch, 50) == counts
    assert labels_by_text(db) == alone


def test_an_output_given_a_removed_outputs_id_is_labelled(db: Database, tmp_path: Path) -> None:
    """SQLite hands the id of a removed output (the largest) to the next new one; that output is new to its
    item's labels although its id was covered once, and the item's other labels stay as they are."""
    if db.engine.dialect.name != "sqlite":
        pytest.skip("only SQLite hands a removed row's id out again")
    small_suite(db, tmp_path, outputs=False)
    tsv = "item_id\tsystem\toutput\n"
    import_outputs(db, write(tmp_path / "a.tsv", tsv + "1\tA\tHer husband came.\n1\tB\tHer dog came.\n"))
    assert relabel(db)["unknown"] == 1
    with db.session() as session:
        dog = session.scalar(select(Output.id).where(Output.text == "Her dog came."))
    import_outputs(db, write(tmp_path / "b.tsv", tsv + "1\tB\tHer husband came.\n"))  # "Her dog came." goes
    assert label_counts(db) == {"pass": 1, "fail": 0, "conflict": 0, "unknown": 0, "error": 0}
    import_outputs(db, write(tmp_path / "c.tsv", tsv + "1\tC\tHer husband, a man, came.\n"))
    with db.session() as session:
        assert session.scalar(select(Output.id).where(Output.text == "Her husband, a man, came.")) == dog
    mark(db)
    assert relabel(db) == {"pass": 1, "fail": 0, "conflict": 1, "unknown": 0, "error": 0}
    assert sorted(decided_by for _, decided_by in auto(db).values()) == [
        "marker", "positive rule 1: husband and negative rule 1: \\bman\\b both matched"]
