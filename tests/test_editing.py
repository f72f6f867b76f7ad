"""The editing API on the bundled demo suite: every edit relabels its item at once, keeps reviewers' labels,
writes history and refuses stale saves; removing an item and restoring it loses nothing."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import regex
from reviewing import review_output
from sqlalchemy import func, select
from table_dump import dump

from store import Database, open_database
from store.domain import Label, Polarity
from store.models import (
    Category,
    HistoryEntry,
    Item,
    ManualLabel,
    Output,
    Phenomenon,
    QEScore,
    QESystem,
    Reference,
    Rule,
)
from suite.demo import create_demo
from suite.editing.api import (
    EditConflict,
    ItemSnapshot,
    PatternError,
    add_item,
    add_known,
    add_reference,
    add_rule,
    change_item,
    change_known,
    change_reference,
    change_rule,
    default_author,
    find_item,
    item_detail,
    item_history,
    merge_categories,
    merge_phenomena,
    move_item,
    remove_item,
    remove_known,
    remove_reference,
    remove_rule,
    rename_category,
    rename_phenomenon,
    reorder_rules,
    restore_item,
)
from suite.editing.history import checked_update
from suite.editing.review import OutputDecision, SeenOutput, decide
from suite.engine.labelling import relabel
from suite.errors import TsqeError
from suite.importers import import_outputs, import_suite
from suite.references import add_reference_set

BANK = "amb-01"  # positive \bbench\b, negative \bbank\b; 4 outputs, output "... river bank ..." reviewed as pass


@pytest.fixture
def demo(any_db: Database) -> Database:
    """The demo suite, on SQLite and on PostgreSQL."""
    create_demo(any_db)
    return any_db


def manual_labels(db: Database) -> dict[int, tuple[str, str]]:
    with db.session() as session:
        return {row.output_id: (row.label, row.reviewer) for row in session.scalars(select(ManualLabel))}


def outputs_by_text(db: Database, item_id: int) -> dict[str, Any]:
    return {output.text: output for output in item_detail(db, item_id).outputs}


def test_default_author(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TSQE_USER", "ada")
    assert default_author() == "ada"
    monkeypatch.delenv("TSQE_USER")
    assert default_author()  # the login name, else "unknown"


def test_rule_edits_relabel_at_once_keep_reviews_and_write_history(demo: Database) -> None:
    item = find_item(demo, BANK)
    reviews = manual_labels(demo)
    before = item_detail(demo, item)
    assert [(r.spec.polarity, r.spec.pattern) for r in before.rules] == [("positive", r"\bbench\b"),
                                                                      ("negative", r"\bbank\b")]
    assert before.version == 1 and all(r.version == 1 for r in before.rules)

    added = add_rule(demo, item, Polarity.NEGATIVE, r"\bfresh\b", author="ada")
    assert added.item_id == item and added.external_id == BANK and added.version == 1
    outputs = outputs_by_text(demo, item)
    smt = outputs["The bank at the river shore was fresh painted."]
    assert smt.auto_label == "fail"  # it matched the first negative rule before and still does
    assert added.labels == {"pass": 2, "fail": 1, "conflict": 1, "unknown": 0, "error": 0} and added.flipped == 0

    changed = change_rule(demo, before.rules[0].id, pattern=r"\bbench\b|\bbank\b", author="ada", expected_version=1)
    assert changed.version == 2 and changed.entity_id == before.rules[0].id
    # the SMT output now matches both polarities, so it is a conflict; the others already matched "bench"
    assert changed.labels == {"pass": 2, "fail": 0, "conflict": 2, "unknown": 0, "error": 0} and changed.flipped == 1
    outputs = outputs_by_text(demo, item)
    assert outputs["The bank at the river shore was fresh painted."].auto_label == "conflict"
    reviewed = outputs["The bench on the river bank was freshly painted."]
    assert reviewed.manual_label == "pass" and reviewed.reviewer == "jonas.w" and reviewed.effective_label == "pass"

    assert added.entity_id is not None
    removed = remove_rule(demo, added.entity_id, author="bob")
    assert removed.version is None and removed.entity_id == added.entity_id
    case = change_rule(demo, before.rules[1].id, ignore_case=True, author="bob")
    assert case.version == 2 and item_detail(demo, item).rules[1].spec.ignore_case is True
    assert manual_labels(demo) == reviews  # no edit touches a reviewer's label

    # the labels written inside the edits are what a full relabelling would write: nothing left to do
    assert relabel(demo) == relabel(demo)
    history = item_history(demo, BANK)
    assert [(h.entity, h.action, h.author) for h in history[:4]] == [
        ("rule", "change", "bob"), ("rule", "remove", "bob"), ("rule", "change", "ada"), ("rule", "add", "ada")]
    assert history[0].before == {"ignore_case": False} and history[0].after == {"ignore_case": True}
    assert history[2].before == {"pattern": r"\bbench\b"} and history[2].version == 2
    assert history[3].after == {"polarity": "negative", "pattern": r"\bfresh\b", "ignore_case": False,
                                "position": 1}
    assert history[1].before is not None and history[1].after is None and history[1].version is None
    assert history[0].at >= history[3].at and history[0].at.tzinfo is not None


def test_rule_positions_and_reordering(demo: Database) -> None:
    item = find_item(demo, BANK)
    first = add_rule(demo, item, Polarity.POSITIVE, r"\bseat\b", position=0, author="ada").entity_id
    last = add_rule(demo, item, Polarity.POSITIVE, r"\bpew\b", author="ada").entity_id
    rules = item_detail(demo, item).rules
    assert [(r.spec.pattern, r.position) for r in rules] == [
        (r"\bseat\b", 0), (r"\bbench\b", 1), (r"\bpew\b", 2), (r"\bbank\b", 0)]
    assert last is not None and first is not None
    new_order = [rules[1].id, rules[3].id, last, first]
    reordered = reorder_rules(demo, item, new_order, author="ada")
    assert [r.id for r in item_detail(demo, item).rules] == new_order
    assert reordered.entity_id == item and reordered.version is None
    assert item_history(demo, BANK)[0].after == {"rule_ids": new_order}
    with pytest.raises(TsqeError, match="each rule"):
        reorder_rules(demo, item, new_order[:-1], author="ada")


@pytest.mark.parametrize(("pattern", "position", "reason"), [
    (r"\bbank(", 7, "missing )"),
    ("[a-", 3, "unterminated character set"),
    ("*a", 0, "nothing to repeat"),
    ("", None, "empty pattern"),
    ("   ", None, "empty pattern"),
])
def test_invalid_pattern_is_refused_and_nothing_changes(demo: Database, pattern: str, position: int | None,
                                                        reason: str) -> None:
    item = find_item(demo, BANK)
    rule_id = item_detail(demo, item).rules[0].id
    before = dump(demo)
    with pytest.raises(PatternError) as refused:
        add_rule(demo, item, Polarity.POSITIVE, pattern, author="ada")
    assert (refused.value.position, refused.value.reason) == (position, reason)
    if position is not None:
        assert str(refused.value) == f"pattern does not compile at position {position}: {reason}"
    with pytest.raises(PatternError):
        change_rule(demo, rule_id, pattern=pattern, author="ada")
    assert dump(demo) == before


def test_known_translations_and_references(demo: Database) -> None:
    item = find_item(demo, "amb-02")
    detail = item_detail(demo, item)
    unknown = [o for o in detail.outputs if o.auto_label == "unknown"]
    target = unknown[0] if unknown else detail.outputs[0]
    known = add_known(demo, item, "bad", target.text, author="ada")
    assert known.entity_id is not None
    assert known.version == 1
    assert outputs_by_text(demo, item)[target.text].auto_label in ("fail", target.auto_label)
    changed = change_known(demo, known.entity_id, kind="good", author="ada", expected_version=1)
    assert changed.version == 2 and item_detail(demo, item).known[-1].kind == "good"
    with pytest.raises(TsqeError, match="already has the known good"):
        add_known(demo, item, "good", "  " + target.text + " ", author="ada")
    with pytest.raises(TsqeError, match="good or bad"):
        add_known(demo, item, "fine", "x", author="ada")
    remove_known(demo, known.entity_id, author="ada", expected_version=2)
    assert outputs_by_text(demo, item)[target.text].auto_label == target.auto_label

    reference = add_reference(demo, item, "A paraphrase.", kind="paraphrase", author="ada")
    assert reference.entity_id is not None
    assert change_reference(demo, reference.entity_id, text="Another paraphrase.", author="ada").version == 2
    assert item_detail(demo, item).references[-1].text == "Another paraphrase."
    remove_reference(demo, reference.entity_id, author="ada")
    assert [h.entity for h in item_history(demo, "amb-02")[:6]] == ["reference"] * 3 + ["known"] * 3


def test_a_decision_as_known_labels_equal_outputs(tmp_path: Path) -> None:
    """Shift+P's core call: the output's text becomes a known good translation, which relabels it; removing the
    known translation takes the automatic label back (the decision, a reviewer's, stays)."""
    db = open_database(tmp_path / "t.sqlite")
    create_demo(db)
    with db.session() as session:
        unknown_item = None
        for item_id in session.scalars(select(Item.id).order_by(Item.id)):
            outputs = [o for o in item_detail(db, item_id).outputs
                       if o.auto_label == "unknown" and o.manual_label is None]  # a colleague's review is not ours
            if outputs:
                unknown_item, output = item_id, outputs[0]
                break
    assert unknown_item is not None, "the demo has unknown outputs"
    seen = SeenOutput(output.output_id, output.manual_version)  # knowingly, if a demo reviewer decided it
    [known] = decide(db, [OutputDecision(seen, Label.PASS)], "ada", as_known=True).known_added
    assert outputs_by_text(db, unknown_item)[output.text].auto_label == "pass"
    remove_known(db, known.known_id, author="ada")
    assert outputs_by_text(db, unknown_item)[output.text].auto_label == "unknown"
    db.close()


def test_stale_saves_are_refused_across_databases(demo: Database) -> None:
    other = open_database(demo.url.removeprefix("sqlite:///"))
    try:
        item = find_item(demo, BANK)
        rule = item_detail(demo, item).rules[0]
        change_rule(other, rule.id, pattern=r"\bbenches?\b", author="bob", expected_version=rule.version)
        before = dump(demo)
        with pytest.raises(EditConflict, match=r"changed by bob at \d{4}-\d\d-\d\d [\d:]+ UTC: now positive "
                                               r"'\\\\bbenches\?\\\\b'"):
            change_rule(demo, rule.id, pattern=r"\bseat\b", author="ada", expected_version=rule.version)
        with pytest.raises(EditConflict):
            remove_rule(demo, rule.id, author="ada", expected_version=rule.version)
        assert dump(demo) == before

        known = add_known(demo, item, "good", "The bench was painted.", author="ada")
        assert known.entity_id is not None
        remove_known(other, known.entity_id, author="bob", expected_version=1)
        with pytest.raises(EditConflict, match="changed by bob .*: now removed"):
            change_known(demo, known.entity_id, text="The bench got painted.", author="ada", expected_version=1)

        # a reviewer who saw "not reviewed" (version 0) loses to one who reviewed it meanwhile
        output = next(o for o in item_detail(demo, item).outputs if o.manual_label is None)
        assert output.manual_version == 0
        assert review_output(other, output.output_id, Label.FAIL, "bob", expected_version=0).version == 1
        with pytest.raises(EditConflict, match="changed by bob at .*: now fail by bob"):
            review_output(demo, output.output_id, Label.PASS, "ada", expected_version=0)
        with pytest.raises(EditConflict):
            review_output(demo, output.output_id, None, "ada", expected_version=0)
        assert review_output(other, output.output_id, None, "bob", expected_version=1).before is not None
        with pytest.raises(EditConflict, match="now not reviewed"):
            review_output(demo, output.output_id, Label.PASS, "ada", expected_version=1)
        # set again after a clear: a new version, so whoever saw the cleared label's version 1 is still refused
        assert review_output(other, output.output_id, Label.PASS, "bob", expected_version=0).version == 2
        with pytest.raises(EditConflict):
            review_output(demo, output.output_id, Label.FAIL, "ada", expected_version=1)
        assert manual_labels(demo)[output.output_id] == ("pass", "bob")
        actions = [(h.entity, h.action, h.version) for h in item_history(demo, BANK)
                   if h.entity == "manual_label" and h.entity_id == output.output_id]
        assert actions == [("manual_label", "add", 2), ("manual_label", "remove", None), ("manual_label", "add", 1)]
    finally:
        other.close()


def test_a_save_that_loses_the_race_is_refused(demo: Database) -> None:
    """The version check is in the UPDATE itself: a row read before another process saved it cannot be written."""
    other = open_database(demo.url.removeprefix("sqlite:///"))
    try:
        rule_id = item_detail(demo, find_item(demo, BANK)).rules[0].id
        with demo.session() as reader:  # an editor's view, read before bob saved (SQLite writers queue, so
            stale = reader.get_one(Rule, rule_id)  # the race is between a read and a later write): version 1
        change_rule(other, rule_id, pattern=r"\bseat\b", author="bob")
        with pytest.raises(EditConflict, match="changed by bob"), demo.transaction() as session:
            checked_update(session, Rule, stale, {"pattern": r"\bpew\b"})
        assert item_detail(demo, find_item(demo, BANK)).rules[0].spec.pattern == r"\bseat\b"
    finally:
        other.close()


def test_a_reused_id_does_not_take_the_removed_rows_version(demo: Database) -> None:
    """SQLite hands a removed row's id out again; an editor still holding the removed rule must be refused."""
    item = find_item(demo, BANK)
    first = add_rule(demo, item, Polarity.POSITIVE, r"\bseat\b", author="ada")
    assert first.entity_id is not None
    remove_rule(demo, first.entity_id, author="ada")
    second = add_rule(demo, item, Polarity.POSITIVE, r"\bpew\b", author="bob")
    if second.entity_id == first.entity_id:
        assert second.version == 3  # past the add and the removal of the first
    with pytest.raises(EditConflict):
        change_rule(demo, first.entity_id, pattern="x", author="ada", expected_version=first.version)
    assert item_detail(demo, item).rules[-2].spec.pattern == r"\bpew\b"


def test_item_edits(demo: Database) -> None:
    result = add_item(demo, external_id="new-01", source="Der Hund schläft.", category="Ambiguity",
                      phenomenon="Brand new", comment="made up", author="ada")
    assert result.version == 1 and result.labels == {"pass": 0, "fail": 0, "conflict": 0, "unknown": 0, "error": 0}
    item = find_item(demo, "new-01")
    assert result.item_id == item
    with pytest.raises(TsqeError, match="already has an item 'new-01'"):
        add_item(demo, external_id="new-01", source="x", category="c", phenomenon="p", author="ada")
    assert change_item(demo, item, source="Der Hund schlief.", author="ada", expected_version=1).version == 2
    assert change_item(demo, item, comment="", author="ada").version == 3
    detail = item_detail(demo, item)
    assert (detail.source, detail.comment, detail.phenomenon) == ("Der Hund schlief.", None, "Brand new")
    with pytest.raises(EditConflict, match="changed by ada .*: now 'Der Hund schlief.'"):
        change_item(demo, item, source="Die Katze.", author="bob", expected_version=1)
    moved = move_item(demo, item, category="Animals", phenomenon="Dogs", author="ada")
    assert moved.version == 4
    with demo.session() as session:  # the phenomenon it left is empty and gone; the new ones exist
        assert session.scalar(select(Phenomenon.id).where(Phenomenon.name == "Brand new")) is None
        assert session.scalar(select(Category.id).where(Category.name == "Animals")) is not None
    history = item_history(demo, "new-01")
    assert [h.action for h in history] == ["move", "change", "change", "add"]
    assert history[0].before == {"category": "Ambiguity", "phenomenon": "Brand new"}
    assert history[0].after == {"category": "Animals", "phenomenon": "Dogs"}
    with pytest.raises(TsqeError, match="no item 'nope' in suite 'tsqe-demo-de-en'"):
        find_item(demo, "nope")


def test_remove_then_restore_gives_back_everything(demo: Database) -> None:
    item = find_item(demo, BANK)
    with demo.transaction() as session:  # a QE system's scores go with the outputs and come back with them
        qe = QESystem(name="toy-qe", kind="imported")
        session.add(qe)
        session.flush()
        qe_id = qe.id
        session.add_all(QEScore(qe_system_id=qe.id, output_id=output_id, score=0.5 + output_id / 1000)
                        for output_id in session.scalars(select(Output.id).where(Output.item_id == item)))
    add_known(demo, item, "good", "The bench had been painted.", author="ada")
    review_output(demo, item_detail(demo, item).outputs[0].output_id, Label.FAIL, "ada", "too literal")
    with demo.transaction() as session:  # a reference in a named set comes back in it
        suite_id = session.scalar(select(Item.suite_id).where(Item.id == item))
        assert suite_id is not None
        add_reference_set(session, suite_id, "ar", "standard",
                          {item: ["The bench by the river had been freshly painted."]})
    before = item_detail(demo, item)
    sets_before = _reference_sets(demo, item)
    position = before_position = _position(demo, item)

    snapshot = remove_item(demo, item, author="ada", expected_version=before.version)
    with pytest.raises(TsqeError, match=f"no item '{BANK}'"):
        find_item(demo, BANK)
    with demo.session() as session:
        assert session.scalar(select(QEScore.output_id).where(QEScore.qe_system_id == qe_id)) is None
    history = item_history(demo, BANK)  # the history outlives the item
    assert history[0].action == "remove" and ItemSnapshot.from_dict(history[0].before or {}) == snapshot

    restored = restore_item(demo, ItemSnapshot.from_dict(history[0].before or {}), author="bob")
    after = item_detail(demo, restored.item_id)
    assert restored.external_id == BANK and _position(demo, restored.item_id) == before_position == position

    def same(detail: Any) -> Any:
        return ((detail.external_id, detail.category, detail.phenomenon, detail.source, detail.comment),
                [(r.spec.polarity, r.spec.pattern, r.spec.ignore_case, r.valid, r.position) for r in detail.rules],
                [(k.kind, k.text) for k in detail.known], [(r.kind, r.text) for r in detail.references],
                sorted((o.text, o.systems, o.auto_label, o.manual_label, o.reviewer, o.reviewed_at, o.comment,
                        o.effective_label, o.manual_version) for o in detail.outputs))

    assert same(after) == same(before)
    assert _reference_sets(demo, restored.item_id) == sets_before == ["standard", "ar"]
    assert after.version == before.version + 1
    with demo.session() as session:
        scores = sorted(session.scalars(select(QEScore.score).join(Output)
                                        .where(Output.item_id == after.id, QEScore.qe_system_id == qe_id)))
    assert len(scores) == len(before.outputs)
    assert item_history(demo, BANK)[0].action == "add" and item_history(demo, BANK)[0].author == "bob"
    with pytest.raises(TsqeError, match="already has an item"):
        restore_item(demo, snapshot, author="bob")


def _reference_sets(db: Database, item_id: int) -> list[str]:
    with db.session() as session:
        return list(session.scalars(select(Reference.set_name).where(Reference.item_id == item_id)
                                    .order_by(Reference.id)))


def _position(db: Database, item_id: int) -> int:
    with db.session() as session:
        return session.get_one(Item, item_id).position


def test_categories_and_phenomena(demo: Database) -> None:
    with demo.session() as session:
        rows = session.execute(select(Category.name, Phenomenon.name).join(Phenomenon.category)
                               .order_by(Category.id, Phenomenon.id)).all()
    category, phenomenon = rows[0]
    siblings = [p for c, p in rows if c == category]

    def in_category(name: str) -> int:
        return sum(1 for item in _items(demo) if item[0] == name)

    count = in_category(category)

    assert rename_category(demo, category, "Ambiguities", author="ada") == count
    assert in_category("Ambiguities") == count and in_category(category) == 0
    with pytest.raises(TsqeError, match="merge the two instead"):
        rename_category(demo, "Ambiguities", rows[-1][0], author="ada")
    other = rows[-1][0]
    total = count + in_category(other)
    assert merge_categories(demo, ["Ambiguities"], other, author="ada") == count
    assert in_category(other) == total and in_category("Ambiguities") == 0

    assert rename_phenomenon(demo, other, phenomenon, "Word senses", author="ada") > 0
    if len(siblings) > 1:
        moved = merge_phenomena(demo, other, [siblings[1]], "Word senses", author="ada")
        assert moved > 0
    with demo.session() as session:
        entries = session.scalars(select(HistoryEntry.action).where(HistoryEntry.entity.in_(
            ["category", "phenomenon"])).order_by(HistoryEntry.id)).all()
    assert entries[:3] == ["rename", "merge", "rename"]
    with pytest.raises(TsqeError, match="no category"):
        rename_category(demo, "Nope", "Still nope", author="ada")


def _items(db: Database) -> list[tuple[str, str]]:
    with db.session() as session:
        return [(row[0], row[1]) for row in session.execute(
            select(Category.name, Phenomenon.name).select_from(Item)
            .join(Phenomenon, Phenomenon.id == Item.phenomenon_id)
            .join(Category, Category.id == Phenomenon.category_id))]


def test_every_write_needs_an_author_and_unknown_rows_are_named(demo: Database) -> None:
    item = find_item(demo, BANK)
    with pytest.raises(TsqeError, match="author"):
        add_rule(demo, item, Polarity.POSITIVE, "x", author=" ")
    with pytest.raises(TsqeError, match="no rule with id 99999"):
        change_rule(demo, 99_999, pattern="x", author="ada")
    with pytest.raises(TsqeError, match="no known translation with id 99999"):
        remove_known(demo, 99_999, author="ada")
    with pytest.raises(TsqeError, match="no item with id 99999"):
        add_known(demo, 99_999, "good", "x", author="ada")
    with pytest.raises(TsqeError, match="no item 'zzz'"):
        item_history(demo, "zzz")


def test_an_edit_on_the_real_dfki_suite_labels_as_a_full_relabelling_would(tmp_path: Path,
                                                                          shared_data: Path) -> None:
    db = open_database(tmp_path / "dfki.sqlite")
    import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    relabel(db)
    with db.session() as session:  # the item with the most distinct outputs
        item = session.execute(select(Output.item_id, func.count()).group_by(Output.item_id)
                               .order_by(func.count().desc(), Output.item_id).limit(1)).one()[0]
    before = item_detail(db, item)
    passing = [o for o in before.outputs if o.auto_label == "pass"]
    assert passing, "the busiest DFKI item has passing outputs"
    word = max(passing[0].text.split(), key=len).strip(".,;:!?\"'")
    result = add_rule(db, item, Polarity.NEGATIVE, rf"\b{regex.escape(word)}\b", author="test")
    after = {o.output_id: o.auto_label for o in item_detail(db, item).outputs}
    assert after[passing[0].output_id] == "conflict" and result.flipped >= 1
    assert sum(result.labels.values()) == len(before.outputs)
    edited = dump(db)
    relabel(db)  # nothing is left for a full relabelling to do
    assert dump(db) == edited
    db.close()
