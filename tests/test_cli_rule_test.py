"""``tsqe rule test`` on the demo suite: the item's preview with one more rule, as JSON and in the terminal,
and nothing saved."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner, Result

from cli.main import app
from store import open_database
from store.domain import Polarity
from store.models import Rule
from suite.editing.api import find_item
from suite.engine.preview import (
    Draft,
    DraftRule,
    draft_of,
    preview_item,
    preview_scope,
)
from suite.engine.rules import RuleSpec


def tsqe(db: Path, *args: str) -> Result:
    return CliRunner().invoke(app, ["--db", str(db), *args])


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    assert tsqe(db, "demo").exit_code == 0
    return db


def rule_count(db_path: Path) -> int:
    db = open_database(db_path)
    try:
        with db.session() as session:
            return session.scalar(select(func.count(Rule.id))) or 0
    finally:
        db.close()


def test_json_shows_the_items_outputs_with_the_rule_added(demo_db: Path) -> None:
    rules = rule_count(demo_db)
    result = tsqe(demo_db, "rule", "test", "amb-01", "--negative", r"\bthe\b", "--ignore-case", "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    db = open_database(demo_db)
    try:
        item_id = find_item(db, "amb-01")
        stored = draft_of(db, item_id)
        added = DraftRule(RuleSpec(Polarity.NEGATIVE, r"\bthe\b", True))
        expected = preview_item(db, item_id, Draft((*stored.rules, added), stored.known))
    finally:
        db.close()
    assert shown["flips"] == expected.flips == {"pass->conflict": 2}
    assert shown["outputs"] == [
        {"output_id": o.stored.output_id, "text": o.stored.text, "label_now": o.stored.label, "manual": o.stored.manual,
         "label_after": o.label_after, "spans": [[s.start, s.end, s.polarity] for s in o.spans]}
        for o in expected.outputs]
    # "The" at the start of every output is highlighted as a match of the (case-insensitive) negative rule
    assert all([0, 3, "negative"] in o["spans"] for o in shown["outputs"])
    assert "items" not in shown
    assert rule_count(demo_db) == rules  # nothing saved


def test_a_wider_scope_lists_the_items_that_would_flip(demo_db: Path) -> None:
    result = tsqe(demo_db, "rule", "test", "amb-01", "--negative", "the", "--scope", "phenomenon", "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    db = open_database(demo_db)
    try:
        expected = preview_scope(db, find_item(db, "amb-01"), [DraftRule(RuleSpec(Polarity.NEGATIVE, "the"))],
                                 "phenomenon")
    finally:
        db.close()
    assert shown["items"] == [{"item_id": i.external_id, "flips": i.flips} for i in expected.items]
    assert [i["item_id"] for i in shown["items"]] == ["amb-01", "amb-02", "amb-03", "amb-04", "amb-05"]
    assert shown["scope_flips"] == expected.flips and shown["outputs_examined"] == expected.outputs == 18


def test_the_terminal_shows_each_output_its_label_change_and_the_flips(demo_db: Path) -> None:
    result = tsqe(demo_db, "rule", "test", "amb-01", "--positive", "painted", "--scope", "suite")
    assert result.exit_code == 0, result.output
    assert "fail → conflict" in result.stdout
    assert "reviewed: pass by" in result.stdout
    assert "flips on this item: fail->conflict 1" in result.stdout
    assert "flips over the suite (278 outputs," in result.stdout


def test_an_invalid_pattern_is_an_error_with_its_position(demo_db: Path) -> None:
    result = tsqe(demo_db, "rule", "test", "amb-01", "--positive", "the(")
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: pattern does not compile at position 4: missing )"


@pytest.mark.parametrize(("args", "message"), [
    (["nope", "--positive", "x"], "error: no item 'nope' in suite 'tsqe-demo-de-en'"),
    (["amb-01"], "exactly one of --positive PATTERN and --negative PATTERN"),
    (["amb-01", "--positive", "x", "--negative", "y"], "exactly one of --positive PATTERN and --negative PATTERN"),
    (["amb-01", "--positive", "x", "--scope", "world"], "--scope is one of item, phenomenon, category, suite"),
])
def test_bad_arguments_exit_2(demo_db: Path, args: list[str], message: str) -> None:
    result = tsqe(demo_db, "rule", "test", *args)
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.replace("│", " ").split())
