"""Groups of alike outputs (issue 20, "Deciding in groups"): outputs of an item identical once case, punctuation,
quotes, white space and Unicode form are normalised, and labelled alike by the rules, show once and are decided
at once: one transaction, one undo step, a history entry per output."""
from __future__ import annotations

from pathlib import Path

import pytest
from review_suites import build_review_suite, output_id
from reviewing import review_output
from sqlalchemy import select, text
from typer.testing import CliRunner

from cli.main import app
from store import Database, open_database
from store.domain import Label
from store.group_key import group_key, normal_form
from store.models import HistoryEntry, Output
from suite.assist.groups import output_groups
from suite.editing.undoable_edits import Decide, Ledger, ReviewedOutput, output_name
from suite.errors import EditConflict
from suite.reading.browse import OutputFilter, browse_outputs, output_ids, output_rows


@pytest.fixture
def suite(any_db: Database, tmp_path: Path) -> Database:
    build_review_suite(any_db, tmp_path)
    return any_db


def test_alike_means_equal_once_case_punctuation_quotes_spaces_and_unicode_form_are_set_aside() -> None:
    assert normal_form("  I  Will GO ! ") == "i will go"
    assert group_key("“Wait for me!” she said.") == group_key('"wait for me" She said')
    assert group_key("ﬁne") == group_key("fine")  # NFKC folds the ligature
    assert group_key("Café") == group_key("Cafe\u0301")  # composed and decomposed é
    assert group_key("I will go.") != group_key("I will run.")
    assert normal_form("…") == "..." and group_key("…") != group_key("?")  # marks alone stay themselves


def test_every_writer_fills_the_key_and_a_row_without_one_is_alike_only_to_itself(suite: Database) -> None:
    with suite.session() as session:
        keys = {t: key for t, key in session.execute(select(Output.text, Output.group_key))}
    assert keys["I will go."] == keys["i will go"] == keys["I will go !"] == group_key("I will go.")
    first = output_id(suite, "I shall walk.")
    with suite.transaction() as session:
        session.execute(text("UPDATE outputs SET group_key = NULL WHERE id = :id"), {"id": first})
    group = output_groups(suite, [first])[first]
    assert [m.output_id for m in group.members] == [first]


def test_a_group_is_one_item_s_alike_outputs_with_one_automatic_label(suite: Database) -> None:
    walk = output_id(suite, "I shall walk.")
    groups = output_groups(suite, [walk, output_id(suite, "Are you coming?"), output_id(suite, "I went.")])
    assert [m.text for m in groups[walk].members] == ["I shall walk.", "i shall walk", "I Shall Walk."]
    assert groups[walk].systems == ("E", "F", "G") and groups[walk].size == 3
    coming = groups[output_id(suite, "Are you coming?")]
    # "Are you coming." reads alike, but the rules fail it: it is no part of the passing group
    assert [m.text for m in coming.members] == ["Are you coming?", "are you coming?"]
    assert groups[output_id(suite, "I went.")].size == 1


def test_the_grouped_queue_shows_each_group_once_by_its_first_output(suite: Database) -> None:
    assert browse_outputs(suite, OutputFilter()).total == 25
    grouped = browse_outputs(suite, OutputFilter(grouped=True), limit=100)
    assert grouped.total == 20 == len(output_ids(suite, OutputFilter(grouped=True)))
    texts = [row.text for row in grouped.rows]
    assert "I will go." in texts and "i will go" not in texts and "Are you coming." in texts
    unknown = browse_outputs(suite, OutputFilter(label=Label.UNKNOWN, grouped=True), limit=100)
    assert [row.text for row in unknown.rows] == ["I shall walk.", "He wants to go.", "She is running."]
    # the first output of a group that the filter lets through stands for it
    not_first = browse_outputs(suite, OutputFilter(label=Label.UNKNOWN, grouped=True, contains="shall walk"), limit=9)
    assert [row.text for row in not_first.rows] == ["I shall walk."]
    review_output(suite, output_id(suite, "I shall walk."), Label.FAIL, "ada")
    after = browse_outputs(suite, OutputFilter(label=Label.UNKNOWN, grouped=True), limit=100)
    assert "i shall walk" in [row.text for row in after.rows]


GROUPED_FILTERS = [OutputFilter(grouped=True, **conditions) for conditions in (
    {}, {"label": "pass"}, {"label": "fail"}, {"label": "unknown"}, {"auto_label": "pass"}, {"auto_label": "unknown"},
    {"label": "fail", "auto_label": "unknown"}, {"reviewed": True}, {"reviewed": False}, {"disagree": True},
    {"label": "pass", "reviewed": False})]


def test_the_grouped_queue_s_totals_and_pages_from_the_group_counts_equal_a_grouping_of_every_output(
        suite: Database) -> None:
    """The total and the pages of the grouped queue come from the per-item group counts (and, for an item with
    reviews, from its outputs); every id list groups every output. Members of one group reviewed apart let a
    label filter through by one member only."""
    def check(after: str) -> None:
        for filter in GROUPED_FILTERS:
            every = output_ids(suite, filter)
            pages = [row.output_id for offset in range(0, len(every) + 3, 3)
                     for row in browse_outputs(suite, filter, limit=3, offset=offset).rows]
            assert browse_outputs(suite, filter, limit=0).total == len(every), (after, filter)
            assert pages == every, (after, filter)
            backwards = [row.output_id for offset in range(0, len(every) + 3, 3)
                         for row in browse_outputs(suite, filter, limit=3, offset=offset, descending=True).rows]
            assert backwards == output_ids(suite, filter, descending=True), (after, filter)

    check("no reviews")
    review_output(suite, output_id(suite, "i shall walk"), Label.FAIL, "ada")  # one member of a group of three
    review_output(suite, output_id(suite, "I went."), Label.PASS, "ada")
    check("reviews")


def reviewed(db: Database, ids: list[int]) -> tuple[ReviewedOutput, ...]:
    return tuple(ReviewedOutput(r.output_id, r.item_id, output_name(r.external_id, r.systems), r.text,
                                r.manual_version, r.comment, r.manual_label) for r in output_rows(db, ids))


def manual(db: Database, ids: list[int]) -> list[str | None]:
    return [row.manual_label for row in output_rows(db, ids)]


def test_a_group_decision_is_one_step_with_a_history_entry_per_output_and_undoes_as_one(suite: Database) -> None:
    walk = output_id(suite, "I shall walk.")
    members = [m.output_id for m in output_groups(suite, [walk])[walk].members]
    ledger = Ledger()
    decision = Decide(reviewed(suite, members), Label.FAIL)
    assert decision.summary() == "fail on 3 outputs of f1"
    undo = decision.apply(suite, "ada", ledger)
    assert manual(suite, members) == ["fail"] * 3
    with suite.session() as session:
        history = session.execute(select(HistoryEntry.entity_id, HistoryEntry.action, HistoryEntry.author)
                                  .where(HistoryEntry.entity == "manual_label")).all()
    assert sorted(history) == sorted((i, "add", "ada") for i in members)
    assert undo.summary() == decision.summary()
    redo = undo.apply(suite, "ada", ledger)
    assert manual(suite, members) == [None] * 3
    redo.apply(suite, "ada", ledger)
    assert manual(suite, members) == ["fail"] * 3


def test_a_group_decision_is_one_transaction(suite: Database, tmp_path: Path) -> None:
    """A colleague decided one output of the group after the reviewer read it: nothing of the group is stored."""
    walk = output_id(suite, "I shall walk.")
    members = [m.output_id for m in output_groups(suite, [walk])[walk].members]
    decision = Decide(reviewed(suite, members), Label.PASS)
    review_output(suite, members[1], Label.FAIL, "ben")
    with pytest.raises(EditConflict, match="i shall walk"):
        decision.apply(suite, "ada", Ledger())
    assert manual(suite, members) == [None, "fail", None]


def test_tsqe_review_group_decides_the_whole_group(tmp_path: Path) -> None:
    path = tmp_path / "cli.sqlite"
    db = open_database(path)
    build_review_suite(db, tmp_path)
    walk = output_id(db, "i shall walk")
    result = CliRunner().invoke(app, ["--db", str(path), "review", str(walk), "pass", "--group", "--reviewer", "ada"])
    assert result.exit_code == 0, result.output
    assert "reviewed as pass by ada: 3 outputs alike" in result.stdout
    members = [m.output_id for m in output_groups(db, [walk])[walk].members]
    assert manual(db, members) == ["pass"] * 3
    grouped = CliRunner().invoke(app, ["--db", str(path), "outputs", "--grouped", "--label", "unknown",
                                       "--format", "json"])
    assert grouped.exit_code == 0, grouped.output
    db.close()


def test_migration_0010_keys_the_outputs_there_and_keeps_their_labels_and_reviews(tmp_path: Path) -> None:
    from migration_helpers import at_revision

    from store.models import AutoLabel, ManualLabel

    path = tmp_path / "old.sqlite"
    with at_revision(f"sqlite:///{path}", "0006") as conn:
        conn.execute(text("INSERT INTO items (id, suite_id, external_id, position, source) "
                          "VALUES (1, 1, 'a', 0, 'Ich gehe.')"))
        conn.execute(text("INSERT INTO outputs (id, item_id, text) VALUES (1, 1, 'I go.'), (2, 1, 'i go'), "
                          "(3, 1, 'I went.')"))
        conn.execute(text("INSERT INTO auto_labels (output_id, label) VALUES (1, 'pass'), (3, 'fail')"))
        conn.execute(text("INSERT INTO manual_labels (output_id, label, reviewer, reviewed_at, version) "
                          "VALUES (2, 'pass', 'ada', CURRENT_TIMESTAMP, 1)"))
    db = open_database(path)
    with db.session() as session:
        keys = {i: key for i, key in session.execute(select(Output.id, Output.group_key))}
        assert keys == {1: group_key("I go."), 2: group_key("I go."), 3: group_key("I went.")}
        assert session.scalars(select(AutoLabel.output_id).order_by(AutoLabel.output_id)).all() == [1, 3]
        assert session.scalars(select(ManualLabel.output_id)).all() == [2]
    db.close()
