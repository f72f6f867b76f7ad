"""An item's draft (``suite.editing.item_draft``): what a save applies, in which order, that its undo takes it all back,
and a draft rebased on a colleague's save."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from store import Database, open_database
from store.domain import Polarity
from suite.demo import DEMO_SUITE, create_demo
from suite.editing.api import ItemDetail, KnownInfo, ReferenceInfo, StoredRule, find_item, item_detail
from suite.editing.item_draft import EditorDraft, new_entry, new_rule
from suite.editing.undoable_edits import (
    AddEntry,
    AddRule,
    ChangeEntry,
    ChangeItem,
    ChangeRule,
    Edit,
    Ledger,
    RemoveRule,
    ReorderRules,
    apply_all,
    summary,
)
from suite.engine.preview import preview_item
from suite.engine.rules import RuleSpec


def _detail(**changes: object) -> ItemDetail:
    detail = ItemDetail(
        id=7, external_id="amb-01", suite="demo", category="Ambiguity", phenomenon="Lexical ambiguity",
        source="Die Bank am Flussufer war frisch gestrichen.", comment=None, version=3,
        rules=[StoredRule(11, RuleSpec(Polarity.POSITIVE, r"\bbench\b", False), True, None, 0, 1),
               StoredRule(12, RuleSpec(Polarity.POSITIVE, r"\bseat\b", False), True, None, 1, 1),
               StoredRule(13, RuleSpec(Polarity.NEGATIVE, r"\bbank\b", False), True, None, 0, 2)],
        known=[KnownInfo(21, "bad", "The bank was painted.", 1)],
        references=[ReferenceInfo(31, "standard", "The bench on the riverbank had been freshly painted.", 1)],
        outputs=[])
    return replace(detail, **changes)  # type: ignore[arg-type]


def test_an_untouched_draft_saves_nothing() -> None:
    draft = EditorDraft.of(_detail())
    assert draft.edits() == [] and not draft.dirty and draft.problems() == []
    assert [rule.spec.pattern for rule in draft.preview_draft().rules] == [r"\bbench\b", r"\bseat\b", r"\bbank\b"]


def test_a_save_applies_item_fields_then_removals_changes_additions_and_the_order() -> None:
    draft = EditorDraft.of(_detail())
    draft.comment = "river bank, not money"
    positives = draft.rules["positive"]
    removed = positives.pop(0)
    positives[0] = replace(positives[0], spec=replace(positives[0].spec, pattern=r"\b(seat|bench)\b"))
    added = new_rule(Polarity.POSITIVE)
    positives.insert(0, replace(added, spec=replace(added.spec, pattern=r"\bpew\b")))
    draft.known[0] = replace(draft.known[0], kind="good")
    draft.references.append(replace(new_entry("paraphrase"), text="Someone had just painted the bench."))
    edits = draft.edits()
    assert [type(edit) for edit in edits] == [ChangeItem, RemoveRule, ChangeRule, AddRule, ReorderRules, ChangeEntry,
                                              AddEntry]
    assert edits[1] == RemoveRule(7, removed.key, RuleSpec(Polarity.POSITIVE, r"\bbench\b", False), 0)
    reorder = edits[4]
    assert isinstance(reorder, ReorderRules)
    assert reorder.rule_ids == (added.key, 12, 13) and reorder.before_ids == (12, 13, added.key)
    assert [rule.spec.pattern for rule in draft.changed_rules()] == [r"\bpew\b", r"\b(seat|bench)\b"]
    assert summary(edits) == "change the item's comment and 6 more"


def test_only_the_order_within_a_polarity_is_saved() -> None:
    draft = EditorDraft.of(_detail())
    draft.rules[Polarity.NEGATIVE].append(new_rule(Polarity.NEGATIVE, r"\bshore\b"))
    assert not any(isinstance(edit, ReorderRules) for edit in draft.edits())


def test_problems_block_a_save_and_say_where() -> None:
    draft = EditorDraft.of(_detail())
    draft.rules["negative"][0] = replace(draft.rules["negative"][0],
                                         spec=replace(draft.rules["negative"][0].spec, pattern=r"\b(bank"))
    draft.references[0] = replace(draft.references[0], text=" ")
    problems = draft.problems()
    assert [(p.polarity, p.row) for p in problems] == [("negative", 0), (None, None)]
    assert problems[0].message == "negative rule 1: pattern does not compile at position 7: missing )"
    assert problems[0].pattern is not None and problems[0].pattern.position == 7
    assert problems[1].message == "reference 1 is empty"
    assert draft.changed_rules() == []  # a pattern that does not compile is never tried elsewhere


def test_a_rebased_draft_keeps_both_sides_changes() -> None:
    mine = EditorDraft.of(_detail())
    mine.rules["positive"][0] = replace(mine.rules["positive"][0],
                                        spec=replace(mine.rules["positive"][0].spec, pattern=r"\bbenches?\b"))
    del mine.rules["negative"][0]
    mine.known.append(replace(new_entry("good"), text="The bench was painted."))
    # meanwhile a colleague changed the comment and the second positive rule, and added a reference
    theirs = _detail(comment="see the river", version=4,
                     rules=[StoredRule(11, RuleSpec(Polarity.POSITIVE, r"\bbench\b", False), True, None, 0, 1),
                            StoredRule(12, RuleSpec(Polarity.POSITIVE, r"\b(seat|pew)\b", False), True, None, 1, 2),
                            StoredRule(13, RuleSpec(Polarity.NEGATIVE, r"\bbank\b", False), True, None, 0, 2)],
                     references=[*_detail().references, ReferenceInfo(32, "paraphrase", "Freshly painted.", 1)])
    rebased = mine.rebased(theirs)
    assert rebased.comment == "see the river"
    assert [row.spec.pattern for row in rebased.rules["positive"]] == [r"\bbenches?\b", r"\b(seat|pew)\b"]
    assert rebased.rules["negative"] == []
    assert [row.text for row in rebased.known] == ["The bank was painted.", "The bench was painted."]
    assert [row.text for row in rebased.references][-1] == "Freshly painted."
    assert rebased.versions[("item", 7)] == 4 and rebased.versions[("rule", 12)] == 2
    assert [type(edit) for edit in rebased.edits()] == [RemoveRule, ChangeRule, AddEntry]


def test_a_known_translation_twice_is_a_problem_before_anything_is_saved() -> None:
    """The core refuses the second copy only when its turn comes, after the edits before it are saved; the
    draft says so first, so that a save of it changes nothing."""
    draft = EditorDraft.of(_detail())
    draft.known.append(replace(new_entry("bad"), text="The  bank was painted. "))
    draft.known.append(replace(new_entry("good"), text="The bank was painted."))  # another kind: no copy
    problems = draft.problems()
    assert [(p.message, p.polarity) for p in problems] == [
        ("known translation 2 is a copy of known translation 1", None)]


def _stored(detail: ItemDetail) -> tuple[object, ...]:
    """What a linguist sees of an item, without the ids and versions that saving and undoing renew."""
    return (detail.source, detail.comment, detail.category, detail.phenomenon,
            [(rule.spec.polarity, rule.spec.pattern, rule.spec.ignore_case, rule.position) for rule in detail.rules],
            [(known.kind, known.text) for known in detail.known],
            [(reference.kind, reference.text) for reference in detail.references])


def test_a_whole_draft_saved_on_the_demo_and_undone_leaves_the_item_as_it_was(db: Database) -> None:
    create_demo(db)
    item_id = find_item(db, "amb-01", DEMO_SUITE)
    before = item_detail(db, item_id)
    draft = EditorDraft.of(before)
    draft.comment = "river bank, not money"
    draft.phenomenon = "Bank"
    positives = draft.rules["positive"]
    positives[0] = replace(positives[0], spec=replace(positives[0].spec, pattern=r"\bbenches?\b", ignore_case=True))
    positives.insert(0, new_rule(Polarity.POSITIVE, r"\bpew\b"))
    del draft.rules["negative"][0]
    draft.known.append(replace(new_entry("good"), text="The bench was painted."))
    draft.references.append(replace(new_entry("paraphrase"), text="Someone had just painted the bench."))
    ledger, undo = Ledger(), list[Edit]()
    draft.seed(ledger)
    apply_all(db, draft.edits(), "Test Linguist", ledger, undo)
    saved = item_detail(db, item_id)
    assert (saved.comment, saved.phenomenon) == ("river bank, not money", "Bank")
    assert [(rule.spec.polarity, rule.spec.pattern, rule.spec.ignore_case) for rule in saved.rules] == [
        (rule.spec.polarity, rule.spec.pattern, rule.spec.ignore_case) for rule in draft.preview_draft().rules]
    apply_all(db, list(undo), "Test Linguist", ledger, redo := list[Edit]())
    assert _stored(item_detail(db, item_id)) == _stored(before)
    assert len(redo) == len(undo)


def test_each_rule_counts_the_demo_outputs_it_matches(db: Database) -> None:
    create_demo(db)
    item_id = find_item(db, "amb-01", DEMO_SUITE)
    draft = EditorDraft.of(item_detail(db, item_id))
    draft.rules[Polarity.POSITIVE].append(new_rule(Polarity.POSITIVE, "painted"))
    draft.rules[Polarity.NEGATIVE].append(new_rule(Polarity.NEGATIVE, "nothing says this"))
    matches = draft.matches(preview_item(db, item_id, draft.preview_draft()))
    assert matches["positive"][len(draft.rules["positive"]) - 1] == 4  # every output of amb-01 says "painted"
    assert matches["negative"][len(draft.rules["negative"]) - 1] == 0
    assert set(matches["positive"]) == set(range(len(draft.rules["positive"])))


def test_a_draft_kept_on_disk_comes_back_whole_and_only_from_a_session_that_ended(tmp_path: Path) -> None:
    """Issue 16: drafts of a session killed before saving are recoverable at the next start; a running window's
    own autosave is not offered to another window on the same database."""
    import subprocess
    import sys

    from suite.editing.draft_autosave import autosave_path, left_behind, read_drafts, write_drafts
    from suite.editing.item_draft import new_rule

    db = open_database(tmp_path / "t.sqlite")
    create_demo(db)
    draft = EditorDraft.of(item_detail(db, find_item(db, "amb-01")))
    draft.rules[Polarity.NEGATIVE].append(new_rule(Polarity.NEGATIVE, r"\bbanks?\b"))
    draft.comment = "check the river sense"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    path = autosave_path(tmp_path, db.url, int(dead.stdout))
    write_drafts(path, db.url, [draft])
    write_drafts(autosave_path(tmp_path, db.url), db.url, [draft])  # this process's own: still running
    write_drafts(autosave_path(tmp_path, "sqlite:///other.sqlite", int(dead.stdout)), "x", [draft])
    assert left_behind(tmp_path, db.url) == [path]
    found = read_drafts(path)
    assert found is not None
    [back] = found.drafts
    assert back.edits() == draft.edits() and back.comment == "check the river sense"
    assert new_rule(Polarity.POSITIVE).key < min(row.key for row in back.all_rules())  # no stand-in id reused
    write_drafts(path, db.url, [])
    assert not path.exists()
    db.close()
