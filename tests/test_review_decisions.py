"""A reviewer's decision on several outputs at once (P/F/U on a selection) is one transaction: a stale version or
a removed output anywhere in it refuses the whole decision, naming that output, and stores nothing."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from reviewing import review_output, review_outputs
from table_dump import dump

from store import Database, open_database
from store.domain import Label
from suite.demo import create_demo
from suite.editing.api import find_item, item_detail, item_history, remove_item
from suite.editing.item_detail import ItemOutput
from suite.editing.review import SeenOutput
from suite.errors import EditConflict, TsqeError
from suite.tasks import Cancelled, Progress, TaskState

BANK = "amb-01"  # 4 outputs; "The bench on the river bank was freshly painted." is reviewed (pass, jonas.w)


@pytest.fixture
def demo(any_db: Database) -> Database:
    create_demo(any_db)
    return any_db


@pytest.fixture
def other(demo: Database) -> Iterator[Database]:
    """The same database opened a second time, as a colleague's process has it."""
    database = open_database(demo.url.removeprefix("sqlite:///"))
    yield database
    database.close()


def outputs(db: Database, external_id: str = BANK) -> list[ItemOutput]:
    return item_detail(db, find_item(db, external_id)).outputs


def seen(rows: list[ItemOutput]) -> list[SeenOutput]:
    return [SeenOutput(row.output_id, row.manual_version, row.comment) for row in rows]


def test_a_decision_on_several_outputs_stores_each_with_its_history(demo: Database) -> None:
    rows = outputs(demo)
    reviewed = next(row for row in rows if row.manual_label is not None)
    decided = review_outputs(demo, seen(rows), Label.FAIL, "ada")
    assert [info.output_id for info in decided] == [row.output_id for row in rows]
    after = {row.output_id: row for row in outputs(demo)}
    assert {(row.manual_label, row.reviewer) for row in after.values()} == {("fail", "ada")}
    assert reviewed.reviewer == "jonas.w" and reviewed.comment
    assert after[reviewed.output_id].comment is None  # jonas.w's comment explained his decision, not ada's
    assert after[reviewed.output_id].manual_version == reviewed.manual_version + 1
    history = [(h.entity_id, h.action, h.author) for h in item_history(demo, BANK) if h.entity == "manual_label"]
    assert sorted(history[:len(rows)]) == sorted(
        (row.output_id, "change" if row.manual_label else "add", "ada") for row in rows)

    assert [change.output_id for change in review_outputs(demo, seen(outputs(demo)), None, "ada")
            if change.before is not None] == [row.output_id for row in rows]
    assert {row.manual_label for row in outputs(demo)} == {None}


def test_one_stale_output_refuses_the_whole_decision(demo: Database, other: Database) -> None:
    rows = outputs(demo)
    unreviewed = [row for row in rows if row.manual_label is None]
    assert len(unreviewed) >= 2
    stale = unreviewed[-1]
    review_output(other, stale.output_id, Label.PASS, "bob", expected_version=0)  # bob decided it meanwhile
    before = dump(demo)
    with pytest.raises(EditConflict, match=rf"^output {stale.output_id} of item 'amb-01' \('.*'\): changed by bob "
                                           rf"at \d{{4}}-\d\d-\d\d [\d:]+ UTC: now pass by bob$"):
        review_outputs(demo, seen(rows), Label.FAIL, "ada")
    assert dump(demo) == before  # not even the outputs before the stale one
    with pytest.raises(EditConflict, match=f"output {stale.output_id} of item 'amb-01'"):
        review_outputs(demo, seen(rows), None, "ada")
    assert dump(demo) == before
    # read again, the same decision goes through
    assert len(review_outputs(demo, seen(outputs(demo)), Label.FAIL, "ada")) == len(rows)


def test_an_output_removed_since_it_was_read_refuses_the_decision(demo: Database) -> None:
    bank, lock = outputs(demo), outputs(demo, "amb-02")
    remove_item(demo, find_item(demo, "amb-02"), author="bob")
    before = dump(demo)
    with pytest.raises(EditConflict, match=rf"^output {lock[0].output_id}: .*now removed"):
        review_outputs(demo, seen(bank) + seen(lock), Label.PASS, "ada")
    assert dump(demo) == before
    with pytest.raises(TsqeError, match=f"no output with id {lock[0].output_id}"):  # not checked: not a conflict
        review_output(demo, lock[0].output_id, Label.PASS, "ada")
    with pytest.raises(TsqeError, match="names each output once"):
        review_outputs(demo, seen(bank) + seen(bank[:1]), Label.PASS, "ada")
    assert dump(demo) == before


def test_a_decision_cancelled_at_its_last_report_stores_nothing(demo: Database) -> None:
    rows = outputs(demo)
    before = dump(demo)
    reports: list[Progress] = []

    def cancel_before_the_last(progress: Progress) -> None:
        reports.append(progress)
        if len(reports) == len(rows):  # every output decided; the last report (done = all) raises
            task.cancel()

    task = TaskState(cancel_before_the_last)
    with pytest.raises(Cancelled):
        review_outputs(demo, seen(rows), Label.PASS, "ada", task=task)
    assert dump(demo) == before and [r.done for r in reports] == list(range(len(rows)))


def test_single_output_calls_name_the_output_too(demo: Database, other: Database) -> None:
    row = next(row for row in outputs(demo) if row.manual_label is None)
    review_output(other, row.output_id, Label.FAIL, "bob", expected_version=0)
    with pytest.raises(EditConflict, match=rf"^output {row.output_id} of item 'amb-01'.*: now fail by bob$"):
        review_output(demo, row.output_id, Label.PASS, "ada", expected_version=0)
    with pytest.raises(EditConflict, match="now fail by bob"):
        review_output(demo, row.output_id, None, "ada", expected_version=0)


def test_another_reviewers_comment_stays_with_their_decision_in_the_history(demo: Database) -> None:
    reviewed = next(row for row in outputs(demo) if row.manual_label is not None)
    assert (reviewed.manual_label, reviewed.reviewer) == ("pass", "jonas.w") and reviewed.comment
    review_outputs(demo, seen([reviewed]), Label.FAIL, "ada")  # the comment passed back as it was read
    row = next(row for row in outputs(demo) if row.output_id == reviewed.output_id)
    assert (row.manual_label, row.reviewer, row.comment) == ("fail", "ada", None)
    change = next(h for h in item_history(demo, BANK) if h.entity == "manual_label")
    assert change.before == {"label": "pass", "reviewer": "jonas.w", "comment": reviewed.comment}
    assert change.after == {"label": "fail", "reviewer": "ada", "comment": None}

    # ada's own comment stays when she changes her mind, and one she writes on a decision is hers
    review_output(demo, row.output_id, Label.FAIL, "ada", "a bench, not a bank", expected_version=row.manual_version)
    mine = review_outputs(demo, [SeenOutput(row.output_id, row.manual_version + 1, "a bench, not a bank")],
                          Label.PASS, "ada")
    assert mine[0].after and mine[0].after.comment == "a bench, not a bank"
    theirs = review_output(demo, row.output_id, Label.FAIL, "bob", "bank of a river: fine",
                           expected_version=mine[0].version)
    assert theirs.after and theirs.after.comment == "bank of a river: fine"


def test_a_decision_made_without_checking_never_replaces_or_removes_a_colleagues(demo: Database) -> None:
    """jonas.w's decision on the demo's bank output: another reviewer deciding or clearing without the version
    they saw (as a command without it does) is refused and changes nothing; with the version seen, it is done,
    and jonas.w's decision stays in the history."""
    [theirs] = [o for o in outputs(demo) if o.manual_label is not None]
    assert theirs.reviewer == "jonas.w"
    before = dump(demo)
    refusal = (r"decided pass by jonas\.w; another reviewer's decision is replaced or removed only knowingly, "
               rf"with the version seen \({theirs.manual_version}\)")
    for attempt in (lambda: review_output(demo, theirs.output_id, Label.FAIL, "ada"),
                    lambda: review_output(demo, theirs.output_id, None, "ada")):
        with pytest.raises(EditConflict, match=refusal):
            attempt()
        assert dump(demo) == before
    own = review_output(demo, theirs.output_id, Label.PASS, "jonas.w").after  # their own: no check
    assert own and own.reviewer == "jonas.w"
    mine = review_output(demo, theirs.output_id, Label.FAIL, "ada", expected_version=theirs.manual_version + 1)
    assert mine.after and (mine.after.label, mine.after.reviewer) == ("fail", "ada")
    assert review_output(demo, theirs.output_id, None, "ada").before is not None  # now ada's own decision
    assert [(h.action, h.author) for h in item_history(demo, BANK)[:3]] == [
        ("remove", "ada"), ("change", "ada"), ("change", "jonas.w")]
