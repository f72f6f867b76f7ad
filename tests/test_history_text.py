"""The item history in words, as the window and ``tsqe history`` show it, on real edits of the demo suite: only
the fields an edit changed, and a field without a value as "—", never a Python repr such as None."""
from __future__ import annotations

from pathlib import Path

import pytest
from reviewing import review_output
from typer.testing import CliRunner

from cli.main import app
from store import Database, open_database
from store.domain import Label, Polarity
from suite.demo import create_demo
from suite.editing.api import (
    add_known,
    add_rule,
    change_item,
    change_known,
    change_rule,
    find_item,
    item_detail,
    item_history,
    move_item,
    remove_known,
    remove_rule,
)
from suite.editing.history import FieldChange, change_text, changed_fields

FLOWERS = "amb-03"  # Strauß: positive \b(bouquet|bunch of flowers|flowers)\b, negative \bostrich\b


@pytest.fixture
def demo(tmp_path: Path) -> Database:
    database = open_database(tmp_path / "demo.sqlite")
    create_demo(database)
    return database


def _flowers_output(db: Database) -> int:
    """The Rheinfall-LLM output of amb-03 ("the bunch of flowers"), which nobody reviewed in the demo."""
    [output] = [o for o in item_detail(db, find_item(db, FLOWERS)).outputs if "bunch of flowers" in o.text]
    assert output.manual_label is None
    return output.output_id


def test_a_rule_change_reads_as_the_fields_it_changed(demo: Database) -> None:
    detail = item_detail(demo, find_item(demo, FLOWERS))
    rule = next(r for r in detail.rules if r.spec.polarity == "positive")
    change_rule(demo, rule.id, pattern=r"\b(bouquet|flowers)\b", author="Ada")
    change_rule(demo, rule.id, ignore_case=True, author="Ada")
    case, pattern = item_history(demo, FLOWERS)[:2]
    assert changed_fields(pattern) == [FieldChange("pattern", r"\b(bouquet|bunch of flowers|flowers)\b",
                                                   r"\b(bouquet|flowers)\b")]
    assert change_text(pattern) == r"pattern: \b(bouquet|bunch of flowers|flowers)\b → \b(bouquet|flowers)\b"
    assert change_text(case) == "ignore case: no → yes"


def test_a_manual_label_added_commented_changed_and_removed(demo: Database) -> None:
    output_id = _flowers_output(demo)
    review_output(demo, output_id, Label.FAIL, "Ada")
    review_output(demo, output_id, Label.FAIL, "Ada", "bunch of flowers is fine")
    review_output(demo, output_id, Label.PASS, "Ada", "bunch of flowers is fine")
    review_output(demo, output_id, None, "Ada")
    removed, changed, commented, added = item_history(demo, FLOWERS)[:4]
    assert [r.action for r in (removed, changed, commented, added)] == ["remove", "change", "change", "add"]

    assert changed_fields(added) == [FieldChange("label", None, "fail"), FieldChange("reviewer", None, "Ada")]
    assert change_text(added) == "label: fail · reviewer: Ada"  # no comment given: nothing said of it
    assert changed_fields(commented) == [FieldChange("comment", None, "bunch of flowers is fine")]
    assert change_text(commented) == "comment: — → bunch of flowers is fine"
    assert change_text(changed) == "label: fail → pass"
    assert change_text(removed) == "label: pass · reviewer: Ada · comment: bunch of flowers is fine → —"


def test_every_other_kind_of_edit_reads_as_words(demo: Database) -> None:
    """Rules, known translations, the item's comment and place, and the demo's own imported reviews."""
    item_id = find_item(demo, FLOWERS)
    rule = add_rule(demo, item_id, Polarity.NEGATIVE, r"\bvase\b", author="Ada")
    assert rule.entity_id is not None
    remove_rule(demo, rule.entity_id, author="Ada")
    known = add_known(demo, item_id, "good", "She put the flowers in a vase.", author="Ada")
    assert known.entity_id is not None
    change_known(demo, known.entity_id, kind="bad", author="Ada")
    remove_known(demo, known.entity_id, author="Ada")
    change_item(demo, item_id, comment="Strauß: bouquet or ostrich", author="Ada")
    change_item(demo, item_id, comment="", author="Ada")
    move_item(demo, item_id, category="Ambiguity", phenomenon="Homonymy", author="Ada")
    assert [change_text(entry) for entry in item_history(demo, FLOWERS)] == [
        "phenomenon: Lexical ambiguity → Homonymy",
        "comment: Strauß: bouquet or ostrich → —",
        "comment: — → Strauß: bouquet or ostrich",
        "kind: bad · text: She put the flowers in a vase. → —",
        "kind: good → bad",
        "kind: good · text: She put the flowers in a vase.",
        r"polarity: negative · pattern: \bvase\b · ignore case: no · number: 2 → —",  # the editor's negative rule 2
        r"polarity: negative · pattern: \bvase\b · ignore case: no · number: 2",
    ]
    [review] = item_history(demo, "amb-04")
    assert change_text(review) == ("label: pass · reviewer: anna.k · comment: 'department head' is correct; the "
                                   "rule only allows 'head of the department'")


def test_tsqe_history_prints_the_same_text(demo: Database, tmp_path: Path) -> None:
    output_id = _flowers_output(demo)
    review_output(demo, output_id, Label.FAIL, "Ada")
    review_output(demo, output_id, Label.FAIL, "Ada", "bunch of flowers is fine")
    demo.close()
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "demo.sqlite"), "history", FLOWERS])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].endswith(f"  Ada  change manual label {output_id} (version 2)")
    assert lines[1] == "    comment: — → bunch of flowers is fine"
    assert lines[3] == "    label: fail · reviewer: Ada"
    assert "None" not in result.stdout
