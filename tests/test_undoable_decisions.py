"""A reviewer's decisions are undoable edit values, like an item's edits (issue 16): undoing one puts every output's
review back as it was (a colleague's decision with their name, comment and time), redoing it writes it again, and
Shift+P / Shift+F store the decision and the known translation in one transaction (issue 21), both ways. Every
edit value says beforehand what it changes (``Changes``), which is what the window asks before undoing."""
from __future__ import annotations

from pathlib import Path

import pytest
from reviewing import review_output
from table_dump import dump

from store import Database, open_database
from store.domain import Label
from suite.changes import ANYWHERE, NOWHERE, Changes, Where
from suite.demo import DEMO_SUITE, create_demo
from suite.editing.api import find_item, item_detail, item_history
from suite.editing.item_detail import ItemOutput
from suite.editing.review import OutputDecision, SeenOutput, decide
from suite.editing.undoable_edits import (
    AddItem,
    Decide,
    Edit,
    Ledger,
    RenameCategory,
    ReviewedOutput,
    apply_all,
    changes_of,
    output_name,
)
from suite.errors import EditConflict, TsqeError
from suite.reading.browse import OutputFilter, browse_outputs, output_rows

BANK = "amb-01"  # 4 outputs; "The bench on the river bank was freshly painted." is reviewed (pass, jonas.w)


@pytest.fixture
def demo(any_db: Database) -> Database:
    create_demo(any_db)
    return any_db


def outputs(db: Database, external_id: str = BANK) -> list[ItemOutput]:
    return item_detail(db, find_item(db, external_id)).outputs


def reviewed_outputs(db: Database, rows: list[ItemOutput]) -> tuple[ReviewedOutput, ...]:
    shown = {row.output_id: row for row in output_rows(db, [r.output_id for r in rows])}
    return tuple(ReviewedOutput(r.output_id, r.item_id, output_name(r.external_id, r.systems), r.text,
                                r.manual_version, r.comment, r.manual_label)
                 for r in (shown[row.output_id] for row in rows))


def reviews(db: Database) -> dict[int, tuple[str | None, str | None, str | None, object]]:
    return {row.output_id: (row.manual_label, row.reviewer, row.comment, row.reviewed_at)
            for row in output_rows(db, [o.output_id for o in outputs(db)])}


def test_undoing_a_decision_puts_every_review_back_as_it_was_and_redo_writes_it_again(demo: Database) -> None:
    rows = outputs(demo)
    colleagues = next(row for row in rows if row.manual_label is not None)
    assert colleagues.reviewer == "jonas.w" and colleagues.comment
    before = reviews(demo)
    ledger = Ledger()
    decision = Decide(reviewed_outputs(demo, rows), Label.FAIL)
    assert decision.summary() == "fail on 4 outputs of amb-01"
    assert decision.changes() == Changes(reviews=Where.of(r.output_id for r in rows))

    undo = decision.apply(demo, "ada", ledger)
    decided = reviews(demo)
    assert {(label, reviewer) for label, reviewer, _, _ in decided.values()} == {("fail", "ada")}
    assert undo.summary() == decision.summary()  # the step keeps its name both ways

    redo = undo.apply(demo, "ada", ledger)
    assert reviews(demo) == before  # jonas.w's pass with his comment and time, the others not reviewed
    history = [h for h in item_history(demo, BANK) if h.entity == "manual_label"][:len(rows)]
    assert {h.author for h in history} == {"ada"}  # who put them back
    after = next(h for h in history if h.entity_id == colleagues.output_id).after
    assert after is not None and after["reviewer"] == "jonas.w"

    again = redo.apply(demo, "ada", ledger)
    assert reviews(demo) == decided  # the same decision, time included
    again.apply(demo, "ada", ledger)
    assert reviews(demo) == before


def test_an_undo_never_overwrites_what_a_colleague_decided_since(demo: Database, tmp_path: Path) -> None:
    rows = [row for row in outputs(demo) if row.manual_label is None]
    ledger = Ledger()
    undo = Decide(reviewed_outputs(demo, rows), Label.PASS).apply(demo, "ada", ledger)
    other = open_database(demo.url.removeprefix("sqlite:///")) if demo.url.startswith("sqlite") else demo
    [row] = output_rows(demo, [rows[0].output_id])
    review_output(other, row.output_id, Label.FAIL, "bob", "wrong sense", expected_version=row.manual_version)
    state = dump(demo)
    with pytest.raises(EditConflict, match=rf"output {row.output_id} of item 'amb-01'.*now fail by bob"):
        undo.apply(demo, "ada", ledger)
    assert dump(demo) == state  # not even the other outputs of the decision
    if other is not demo:
        other.close()


def test_pass_and_add_as_known_is_one_transaction_and_one_undoable_step(demo: Database,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    unknown = next(row for row in browse_outputs(demo, OutputFilter(label=Label.UNKNOWN), limit=100).rows
                   if row.manual_label is None)
    item_id, external_id = unknown.item_id, unknown.external_id
    start = dump(demo)
    decision = Decide(reviewed_outputs(demo, [
        o for o in outputs(demo, external_id) if o.output_id == unknown.output_id]), Label.PASS, as_known=True)
    assert decision.summary().endswith(", added as known good translation")
    assert decision.changes().items == Where.of([item_id])  # it relabels the item, which the editor shows

    # a failure between the decision and the known translation leaves neither (it left the decision alone)
    import suite.editing.review

    def broken(*args: object, **kwargs: object) -> None:
        raise TsqeError("the disk is full")

    monkeypatch.setattr(suite.editing.review, "add_known_in", broken)
    with pytest.raises(TsqeError, match="the disk is full"):
        decision.apply(demo, "ada", Ledger())
    assert dump(demo) == start
    monkeypatch.undo()

    ledger = Ledger()
    undo = decision.apply(demo, "ada", ledger)
    [after] = [o for o in outputs(demo, external_id) if o.output_id == unknown.output_id]
    assert (after.manual_label, after.auto_label) == ("pass", "pass")
    assert [k.text for k in item_detail(demo, item_id).known if k.kind == "good"][-1] == unknown.text

    redo = undo.apply(demo, "ada", ledger)
    [undone] = [o for o in outputs(demo, external_id) if o.output_id == unknown.output_id]
    assert (undone.manual_label, undone.auto_label) == (None, "unknown")  # decision and known translation gone
    assert unknown.text not in [k.text for k in item_detail(demo, item_id).known]

    redo.apply(demo, "ada", ledger)  # the known translation comes back under a new id, which the ledger follows
    [redone] = [o for o in outputs(demo, external_id) if o.output_id == unknown.output_id]
    assert (redone.manual_label, redone.auto_label) == ("pass", "pass")


def test_a_known_translation_the_item_has_is_not_added_twice(demo: Database) -> None:
    rows = outputs(demo)
    first = decide(demo, [OutputDecision(SeenOutput(rows[0].output_id, rows[0].manual_version), Label.FAIL)], "ada",
                   as_known=True)
    assert len(first.known_added) == 1
    [row] = output_rows(demo, [rows[0].output_id])
    again = decide(demo, [OutputDecision(SeenOutput(row.output_id, row.manual_version), Label.FAIL)], "ada",
                   as_known=True)
    assert again.known_added == () and again.reviews[0].after is not None


def test_tree_edits_are_values_too(demo: Database) -> None:
    ledger = Ledger()
    undo: list[Edit] = []
    edits: list[Edit] = [AddItem(DEMO_SUITE, "new-01", "A new sentence.", "Ambiguity", "New phenomenon"),
                         RenameCategory(DEMO_SUITE, "Ambiguity", None, "Lexical ambiguity")]
    assert changes_of(edits).taxonomy
    apply_all(demo, edits, "ada", ledger, undo)
    item_id = find_item(demo, "new-01")
    assert item_detail(demo, item_id).category == "Lexical ambiguity"
    assert [edit.summary() for edit in undo] == ["rename category Lexical ambiguity to Ambiguity",
                                                 "delete item new-01"]
    redo: list[Edit] = []
    apply_all(demo, undo, "ada", ledger, redo)
    with pytest.raises(TsqeError):
        find_item(demo, "new-01")
    assert [edit.summary() for edit in redo] == ["restore item new-01", "rename category Ambiguity to Lexical "
                                                                        "ambiguity"]
    apply_all(demo, redo, "ada", ledger, [])
    assert item_detail(demo, find_item(demo, "new-01")).category == "Lexical ambiguity"


def test_changes_combine_and_say_where_they_reach() -> None:
    one = Changes(reviews=Where.of([1, 2]))
    two = Changes(items=Where.of([7]), labels=ANYWHERE)
    both = one | two
    assert both.reviews.reaches([2, 9]) and not both.reviews.reaches([3])
    assert both.labels.anywhere and both.labels.reaches([12345])
    assert both.item_content.reaches([7]) and not Changes().item_content
    assert not Changes() and both and one.label_state and not Changes(items=Where.of([7])).label_state
    assert Where.of([1]) | NOWHERE == Where.of([1])


def test_output_names_say_the_item_and_the_system() -> None:
    assert output_name("00544005", ("UEdin",)) == "00544005 · UEdin"
    assert output_name("00544005", ("UEdin", "Online-W", "VolcTrans")) == "00544005 · UEdin +2"
