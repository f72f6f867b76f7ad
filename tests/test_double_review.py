"""Reviewers checked (issue 20): double review (a seeded, per-category share of reviewed outputs decided again
blind by a second reviewer), agreement (Cohen's kappa per reviewer pair and category), adjudication, and control
outputs with each reviewer's accuracy; concurrent reviewers never get the same assignment."""
from __future__ import annotations

import dataclasses
import json
import random
import threading
from pathlib import Path
from typing import cast

import pytest
from review_suites import build_review_suite
from sklearn.metrics import cohen_kappa_score
from sqlalchemy import select

from store import Database, open_database
from store.domain import Label
from store.models import ReviewAssignment
from suite.assist.agreement import cohen_kappa, gwet_ac1, reviewer_agreement
from suite.assist.assignment_edits import Adjudicate, AnswerAssignments
from suite.assist.controls import control_accuracy
from suite.assist.double_review import (
    Answer,
    Assignment,
    adjudicate,
    answer_assignments,
    disagreements,
    my_assignments,
    plan_review_checks,
    take_assignments,
)
from suite.editing.api import item_history
from suite.editing.review import OutputDecision, SeenOutput, decide
from suite.editing.undoable_edits import Ledger
from suite.errors import EditConflict, TsqeError
from suite.reading.browse import OutputFilter, output_ids, output_rows


def first_reviews(db: Database) -> dict[int, Label]:
    """anna decides every output of the review suite: odd ids pass, even ids fail (13 pass, 12 fail)."""
    ids = output_ids(db, OutputFilter())
    labels = {i: Label.PASS if i % 2 else Label.FAIL for i in ids}
    for label in (Label.PASS, Label.FAIL):
        decide(db, [OutputDecision(SeenOutput(i), label) for i in ids if labels[i] == label], "anna")
    return labels


@pytest.fixture
def suite(any_db: Database, tmp_path: Path) -> Database:
    build_review_suite(any_db, tmp_path)
    return any_db


def assignment_rows(db: Database) -> list[ReviewAssignment]:
    with db.session() as session:
        return list(session.scalars(select(ReviewAssignment).order_by(ReviewAssignment.id)))


def test_cohen_kappa_equals_a_hand_computation() -> None:
    # 10 items: both pass on 4, both fail on 3, both unknown on 1, A pass/B fail on 1, A fail/B pass on 1
    pairs = [("pass", "pass")] * 4 + [("fail", "fail")] * 3 + [("unknown", "unknown"), ("pass", "fail"),
                                                                ("fail", "pass")]
    observed = 8 / 10
    chance = (5 * 5 + 4 * 4 + 1 * 1) / 100  # A and B each: pass 5, fail 4, unknown 1
    assert cohen_kappa(pairs) == pytest.approx((observed - chance) / (1 - chance))
    assert cohen_kappa(pairs) == pytest.approx(0.38 / 0.58)
    assert cohen_kappa([]) is None and cohen_kappa([("pass", "pass")] * 3) is None
    assert cohen_kappa([("pass", "fail"), ("fail", "pass")]) == pytest.approx(-1.0)
    rng = random.Random(7)
    for _ in range(20):
        labels = [(rng.choice("pfu"), rng.choice("pfu")) for _ in range(rng.randrange(5, 40))]
        if len({a for a, _ in labels} | {b for _, b in labels}) > 1:
            assert cohen_kappa(labels) == pytest.approx(cohen_kappa_score(*zip(*labels)))


def test_gwet_s_ac1_equals_a_hand_computation_and_stays_meaningful_where_kappa_is_0() -> None:
    """Issue 28: κ 0.00 beside 78.6 % agreement. 14 outputs: A passes 11 and fails 3, B passes all 14."""
    one_sided = [("pass", "pass")] * 11 + [("fail", "pass")] * 3
    assert cohen_kappa(one_sided) == pytest.approx(0.0)  # chance = 11·14/14² = observed = 11/14
    # π_pass = 25/28, π_fail = 3/28; p_e = 2 · 25/28 · 3/28 / (2 − 1) = 150/784; p_o = 616/784
    assert gwet_ac1(one_sided) == pytest.approx((616 - 150) / (784 - 150))
    assert gwet_ac1(one_sided) == pytest.approx(233 / 317)  # 0.735
    # the 10 outputs above, three labels: π = 0.5, 0.4, 0.1; p_e = (0.25 + 0.24 + 0.09) / 2 = 0.29
    pairs = [("pass", "pass")] * 4 + [("fail", "fail")] * 3 + [("unknown", "unknown"), ("pass", "fail"),
                                                                ("fail", "pass")]
    assert gwet_ac1(pairs) == pytest.approx((0.8 - 0.29) / (1 - 0.29))
    assert gwet_ac1([]) is None and gwet_ac1([("pass", "pass")] * 3) == pytest.approx(1.0)
    assert gwet_ac1([("pass", "fail"), ("fail", "pass")]) == pytest.approx(-1.0)


def test_a_reviewer_who_gave_one_label_only_is_named_beside_kappa(suite: Database) -> None:
    first = first_reviews(suite)  # anna: pass 13, fail 12
    plan_review_checks(suite, double_share=1.0, control_share=0.0, seed=1, author="lead")
    take_assignments(suite, "ben", limit=30)
    answer_all(suite, "ben", {output: Label.PASS for output in first})  # ben passes everything
    overall = reviewer_agreement(suite).rows[0]
    assert (overall.compared, overall.agreed, overall.kappa) == (25, 13, pytest.approx(0.0))
    assert overall.single_labelled == ("ben",)
    assert "ben gave one label only: κ is 0" in (overall.kappa_note() or "")
    assert overall.ac1 == pytest.approx(gwet_ac1([("pass", "pass")] * 13 + [("fail", "pass")] * 12))
    table = reviewer_agreement(suite).to_table()
    assert [column.name for column in table.columns][-2:] == ["kappa", "AC1"]
    assert any("ben gave one label only" in note for note in table.notes)


def test_a_plan_chooses_a_seeded_share_of_each_category_s_reviewed_outputs(suite: Database) -> None:
    first_reviews(suite)
    planned = plan_review_checks(suite, double_share=0.3, control_share=0.0, seed=4, author="lead")
    assert [(c.category, c.reviewed, c.planned) for c in planned.categories] == [("Tense", 20, 6),
                                                                                  ("Punctuation", 5, 2)]
    assert planned.added == 8 and "8 reviewed outputs added for a second review" in planned.lines()[0]
    chosen = {row.output_id for row in assignment_rows(suite)}
    assert all(row.expected == ("pass" if cast(int, row.output_id) % 2 else "fail") and row.first_reviewer == "anna"
               for row in assignment_rows(suite))
    assert plan_review_checks(suite, double_share=0.3, control_share=0.0, seed=4, author="lead").added == 0
    with suite.transaction() as session:
        session.query(ReviewAssignment).delete()
    plan_review_checks(suite, double_share=0.3, control_share=0.0, seed=4, author="lead")
    assert {row.output_id for row in assignment_rows(suite)} == chosen  # the same seed chooses the same outputs
    with suite.transaction() as session:
        session.query(ReviewAssignment).delete()
    plan_review_checks(suite, double_share=0.3, control_share=0.0, seed=5, author="lead")
    assert {row.output_id for row in assignment_rows(suite)} != chosen


def test_a_plan_tops_up_and_gives_a_small_category_one(suite: Database) -> None:
    ids = output_ids(suite, OutputFilter())
    decide(suite, [OutputDecision(SeenOutput(i), Label.PASS) for i in ids[:10]], "anna")  # all Tense
    decide(suite, [OutputDecision(SeenOutput(ids[-1]), Label.PASS)], "anna")  # one of Punctuation
    planned = plan_review_checks(suite, double_share=0.2, control_share=0.0, seed=1, author="lead")
    assert [(c.category, c.planned) for c in planned.categories] == [("Tense", 2), ("Punctuation", 1)]
    decide(suite, [OutputDecision(SeenOutput(i), Label.FAIL) for i in ids[10:20]], "anna")
    again = plan_review_checks(suite, double_share=0.2, control_share=0.0, seed=1, author="lead")
    assert [(c.category, c.reviewed, c.planned, c.added) for c in again.categories] == [
        ("Tense", 20, 4, 2), ("Punctuation", 1, 1, 0)]
    with pytest.raises(TsqeError, match="share of outputs reviewed twice must be a number above 0 up to 1"):
        plan_review_checks(suite, double_share=0, control_share=0, seed=1, author="lead")
    with pytest.raises(TsqeError, match="share of controls must be a number from 0 below 1"):
        plan_review_checks(suite, double_share=0.5, control_share=1, seed=1, author="lead")


def test_a_second_reviewer_decides_blind_and_never_their_own_first_decision(suite: Database) -> None:
    first_reviews(suite)
    with pytest.raises(TsqeError, match="no double review planned"):
        take_assignments(suite, "ben")
    plan_review_checks(suite, double_share=1.0, control_share=0.0, seed=1, author="lead")
    assert take_assignments(suite, "anna") == []
    given = take_assignments(suite, "ben", limit=10)
    assert len(given) == 10 and all(a.text and a.external_id for a in given)
    assert {f.name for f in dataclasses.fields(Assignment)} == {
        "id", "item_id", "external_id", "category", "phenomenon", "source", "text", "label", "comment"}
    assert take_assignments(suite, "ben", limit=10) == given  # what one holds comes back first
    assert len(take_assignments(suite, "cara", limit=30)) == 15
    with pytest.raises(TsqeError, match="given to ben, not to cara"):
        answer_assignments(suite, [Answer(given[0].id, Label.PASS)], "cara")


def answer_all(db: Database, reviewer: str, answers: dict[int, Label]) -> None:
    """Answer each assignment of ``reviewer`` with ``answers[output id]``."""
    with db.session() as session:
        outputs = dict(session.execute(select(ReviewAssignment.id, ReviewAssignment.output_id)).all())
    answer_assignments(db, [Answer(a.id, answers[cast(int, outputs[a.id])]) for a in my_assignments(db, reviewer)],
                       reviewer)


def test_agreement_per_reviewer_pair_and_category_is_cohen_s_kappa(suite: Database) -> None:
    first = first_reviews(suite)  # anna: pass 13 (odd ids), fail 12
    plan_review_checks(suite, double_share=1.0, control_share=0.0, seed=1, author="lead")
    assert len(take_assignments(suite, "ben", limit=30)) == 25
    second = dict(first) | {1: Label.FAIL, 3: Label.FAIL, 2: Label.PASS}  # ben: pass 12, fail 13, 22 of 25 agree
    answer_all(suite, "ben", second)
    agreement = reviewer_agreement(suite)
    overall, tense, punctuation = agreement.rows
    assert (overall.reviewers, overall.overall, overall.compared, overall.agreed) == (("anna", "ben"), True, 25, 22)
    chance = (13 * 12 + 12 * 13) / 25**2
    assert overall.kappa == pytest.approx((22 / 25 - chance) / (1 - chance))
    assert overall.raw == pytest.approx(0.88)
    assert (tense.category, tense.compared, tense.agreed) == ("Tense", 20, 17)
    assert (punctuation.category, punctuation.compared, punctuation.agreed, punctuation.kappa) == (
        "Punctuation", 5, 5, 1.0)
    assert (agreement.answered, agreement.open_disagreements) == (25, 3)
    table = agreement.to_table()
    assert [cell.value for cell in table.body[0]][:4] == ["anna · ben", "all categories", 25, 22]


def test_disagreements_are_adjudicated_into_a_normal_review_with_both_in_the_history(suite: Database) -> None:
    first = first_reviews(suite)
    plan_review_checks(suite, double_share=1.0, control_share=0.0, seed=1, author="lead")
    take_assignments(suite, "ben", limit=30)
    answer_all(suite, "ben", dict(first) | {1: Label.FAIL})
    (open_one,) = disagreements(suite)
    assert (open_one.output_id, open_one.first_label, open_one.first_reviewer, open_one.second_label,
            open_one.second_reviewer, open_one.manual_label) == (1, "pass", "anna", "fail", "ben", "pass")
    with pytest.raises(EditConflict):
        adjudicate(suite, open_one.assignment_id, Label.FAIL, "cara", expected_version=open_one.manual_version + 1)
    ledger = Ledger()
    step = Adjudicate(open_one.assignment_id, 1, open_one.item_id or 0, "f1 · A", Label.FAIL, open_one.manual_version,
                      "the tense is wrong")
    undo = step.apply(suite, "cara", ledger)
    (row,) = output_rows(suite, [1])
    assert (row.manual_label, row.reviewer, row.comment) == ("fail", "cara", "the tense is wrong")
    assert disagreements(suite) == [] and disagreements(suite, open_only=False)[0].adjudicated_by == "cara"
    entry = next(h for h in item_history(suite, "f1") if h.entity == "manual_label" and h.entity_id == 1)
    assert entry.author == "cara" and entry.after is not None
    assert (entry.after["first_review"], entry.after["second_review"]) == ("pass by anna", "fail by ben")
    assert entry.before == {"label": "pass", "reviewer": "anna", "comment": None}
    with pytest.raises(TsqeError, match="adjudicated already by cara"):
        adjudicate(suite, open_one.assignment_id, Label.PASS, "dan", expected_version=row.manual_version)
    with pytest.raises(TsqeError, match="adjudicated by cara: its answer stays"):
        answer_assignments(suite, [Answer(open_one.assignment_id, Label.PASS)], "ben")
    redo = undo.apply(suite, "cara", ledger)  # the first decision back, the disagreement open again
    (row,) = output_rows(suite, [1])
    assert (row.manual_label, row.reviewer) == ("pass", "anna") and len(disagreements(suite)) == 1
    redo.apply(suite, "cara", ledger)
    assert output_rows(suite, [1])[0].manual_label == "fail" and disagreements(suite) == []


def test_an_answer_is_undone_as_it_was(suite: Database) -> None:
    first_reviews(suite)
    plan_review_checks(suite, double_share=0.2, control_share=0.0, seed=1, author="lead")
    (given, *_) = take_assignments(suite, "ben", limit=3)
    ledger = Ledger()
    undo = AnswerAssignments((Answer(given.id, Label.FAIL, "not sure"),), "fail on f1").apply(suite, "ben", ledger)
    assert my_assignments(suite, "ben")[0].label == "fail"
    undo.apply(suite, "ben", ledger)
    mine = {a.id: a for a in my_assignments(suite, "ben")}
    assert (mine[given.id].label, mine[given.id].comment) == (None, None)


def test_controls_are_mixed_in_unmarked_and_each_reviewer_s_accuracy_is_reported(suite: Database) -> None:
    first_reviews(suite)
    plan_review_checks(suite, double_share=1.0, control_share=0.25, seed=3, author="lead")
    given = take_assignments(suite, "ben", limit=8)
    rows = {row.id: row for row in assignment_rows(suite)}
    kinds = [rows[a.id].kind for a in given]
    assert kinds.count("double") == 6 and kinds.count("control") == 2
    assert kinds != sorted(kinds) or kinds != sorted(kinds, reverse=True)  # not all controls at one end
    controls = [rows[a.id] for a in given if rows[a.id].kind == "control"]
    assert {c.expected for c in controls} <= {"pass", "fail"} and len({c.known_id for c in controls}) == 2
    answers = [Answer(a.id, cast(Label, rows[a.id].expected)
                      if rows[a.id].kind == "double" or rows[a.id] is not controls[0] else Label.UNKNOWN)
               for a in given]
    answer_assignments(suite, answers, "ben")
    (ben,) = control_accuracy(suite)
    assert (ben.reviewer, ben.answered, ben.right, ben.accuracy, ben.open) == ("ben", 2, 1, 0.5, 0)
    more = take_assignments(suite, "ben", limit=4)
    new_controls = [rows_after for rows_after in assignment_rows(suite)
                    if rows_after.kind == "control" and rows_after.reviewer == "ben"]
    assert len(more) == 4 and len(new_controls) == round(9 * 0.25 / 0.75)  # 9 doubles given so far: 3 controls
    assert len({c.known_id for c in new_controls}) == len(new_controls)  # never the same control twice


def race(db_url: str, reviewers: list[str], rounds: int) -> dict[str, list[int]]:
    """Each reviewer in a thread of their own, with their own connection, taking one assignment and answering it
    until none is left; what each was given."""
    got: dict[str, list[int]] = {reviewer: [] for reviewer in reviewers}
    errors: list[BaseException] = []
    start = threading.Barrier(len(reviewers))

    def work(reviewer: str) -> None:
        database = None
        try:
            database = open_database(db_url)
            start.wait(60)  # a reviewer who never arrives breaks the barrier instead of holding the others forever
            for _ in range(rounds):
                given = take_assignments(database, reviewer, limit=1)
                if not given:
                    return
                got[reviewer] += [a.id for a in given]
                answer_assignments(database, [Answer(a.id, Label.PASS) for a in given], reviewer)
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
        finally:
            if database is not None:
                database.close()

    threads = [threading.Thread(target=work, args=(reviewer,), daemon=True) for reviewer in reviewers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    return got


def test_concurrent_reviewers_never_get_the_same_assignment(suite: Database) -> None:
    first_reviews(suite)
    plan_review_checks(suite, double_share=1.0, control_share=0.0, seed=1, author="lead")
    got = race(suite.url, ["ben", "cara", "dan"], rounds=40)
    given = [i for ids in got.values() for i in ids]
    assert len(given) == len(set(given)) == 25
    rows = assignment_rows(suite)
    assert {row.id for row in rows} == set(given) and all(row.label == "pass" for row in rows)


def test_the_reviewers_commands_end_to_end(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app
    path = tmp_path / "cli.sqlite"
    db = open_database(path)
    build_review_suite(db, tmp_path)
    first_reviews(db)
    db.close()

    def tsqe(*args: str) -> str:
        result = CliRunner().invoke(app, ["--db", str(path), *args])
        assert result.exit_code == 0, result.output
        return result.stdout

    assert "5 reviewed outputs added" in tsqe("reviewers", "plan", "--share", "0.2", "--controls", "0.25")
    taken = tsqe("reviewers", "take", "--reviewer", "ben", "--limit", "4").splitlines()
    assert len(taken) == 4
    for line in taken:
        tsqe("reviewers", "answer", line.split("\t")[0], "unknown", "--reviewer", "ben")
    agreement = tsqe("reviewers", "agreement", "--format", "tsv")
    assert agreement.splitlines()[0].startswith("reviewers\tcategory\toutputs\tagreed\tagreement\tkappa")
    document = json.loads(tsqe("reviewers", "agreement", "--format", "json"))
    assert document["answered"] == 3 and document["rows"][0]["reviewers"] == ["anna", "ben"]
    assert "ben" in tsqe("reviewers", "controls")
    listed = json.loads(tsqe("reviewers", "disagreements", "--json"))
    assert len(listed) == 3 and all(d["second_label"] == "unknown" for d in listed)
    first = listed[0]
    assert "adjudicated fail by cara" in tsqe("reviewers", "adjudicate", str(first["assignment_id"]), "fail",
                                               "--reviewer", "cara")
    assert len(json.loads(tsqe("reviewers", "disagreements", "--json"))) == len(listed) - 1
    neighbours = json.loads(tsqe("neighbours", "--json"))
    assert neighbours == []  # anna decided every output: nothing is undecided
