"""Editing from the command line end to end on the bundled demo suite: items, rules, known translations, reviews
and the history, through ``typer.testing.CliRunner`` as a user would type them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from table_dump import dump
from typer.testing import CliRunner, Result

from cli.main import app
from store import open_database

BANK = "amb-01"  # positive \bbench\b, negative \bbank\b; 4 outputs


def run(db: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(app, ["--db", str(db), *args], input=input, env=env)


def tsqe(db: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    result = run(db, *args, input=input, env=env)
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def demo_db(tmp_path: Path) -> Path:
    db = tmp_path / "demo.sqlite"
    tsqe(db, "demo")
    return db


def show(db: Path, item: str = BANK) -> dict:
    return json.loads(tsqe(db, "item", "show", item, "--json").stdout)


def test_init_creates_an_empty_database(tmp_path: Path) -> None:
    db = tmp_path / "new" / "tsqe.sqlite"
    assert "database ready: sqlite:///" in tsqe(db, "init").stdout
    assert db.is_file()
    assert "holds no suite" in run(db, "item", "show", "x").stderr


def test_every_editing_command_has_help(tmp_path: Path) -> None:
    for command in (["init"], ["item", "show"], ["item", "add"], ["item", "edit"], ["item", "remove"],
                    ["item", "restore"],
                    ["rule", "add"], ["rule", "edit"], ["rule", "remove"], ["known", "add"], ["known", "remove"],
                    ["review"], ["history"]):
        assert "Usage:" in tsqe(tmp_path / "h.sqlite", *command, "--help").stdout


def test_item_show(demo_db: Path) -> None:
    detail = show(demo_db)
    assert detail["external_id"] == BANK and detail["category"] == "Ambiguity"
    assert [(r["polarity"], r["pattern"], r["version"]) for r in detail["rules"]] == [
        ("positive", r"\bbench\b", 1), ("negative", r"\bbank\b", 1)]
    assert len(detail["outputs"]) == 4
    reviewed = [o for o in detail["outputs"] if o["manual_label"]]
    assert reviewed and reviewed[0]["reviewer"] == "jonas.w" and reviewed[0]["manual_version"] == 1
    text = tsqe(demo_db, "item", "show", BANK).stdout
    assert f"item {BANK}" in text and r"\bbench\b" in text and "Lindenbaum-NMT" in text
    assert run(demo_db, "item", "show", "nope").stderr == "error: no item 'nope' in suite 'tsqe-demo-de-en'\n"


def test_rule_add_edit_remove_relabel_and_print_json(demo_db: Path) -> None:
    added = json.loads(tsqe(demo_db, "rule", "add", BANK, "--negative", r"\bpainted\b", "--json",
                            "--author", "ada").stdout)
    assert set(added) == {"rule_id", "labels", "flipped"}
    # every output says "painted": the three that passed become conflicts
    assert added["labels"] == {"pass": 0, "fail": 1, "conflict": 3, "unknown": 0, "error": 0}
    assert added["flipped"] == 2  # the third was already a conflict
    rule_id = added["rule_id"]
    assert show(demo_db)["rules"][-1] == {"id": rule_id, "polarity": "negative", "pattern": r"\bpainted\b",
                                          "ignore_case": False, "valid": True, "error": None, "position": 1,
                                          "version": 1}
    # the reviewer's label wins still
    assert [o["effective_label"] for o in show(demo_db)["outputs"] if o["manual_label"]] == ["pass"]

    edited = json.loads(tsqe(demo_db, "rule", "edit", str(rule_id), "--pattern", r"\bPAINTED\b", "--ignore-case",
                             "--json").stdout)
    assert edited == {"rule_id": rule_id, "labels": added["labels"], "flipped": 0}
    edited = json.loads(tsqe(demo_db, "rule", "edit", str(rule_id), "--no-ignore-case", "--json").stdout)
    assert edited["labels"]["conflict"] == 1 and edited["flipped"] == 2
    removed = json.loads(tsqe(demo_db, "rule", "remove", str(rule_id), "--json").stdout)
    assert removed == {"rule_id": rule_id, "labels": {"pass": 2, "fail": 1, "conflict": 1, "unknown": 0, "error": 0},
                       "flipped": 0}
    added_again = tsqe(demo_db, "rule", "add", BANK, "--positive", "seat").stdout
    assert added_again.startswith("added rule ") and "automatic labels of item amb-01: pass 2," in added_again
    new_id = show(demo_db)["rules"][1]["id"]

    history = json.loads(tsqe(demo_db, "history", BANK, "--json").stdout)
    assert [(h["entity"], h["action"], h["entity_id"]) for h in history[:5]] == [
        ("rule", "add", new_id), ("rule", "remove", rule_id), ("rule", "change", rule_id),
        ("rule", "change", rule_id), ("rule", "add", rule_id)]
    assert history[4]["author"] == "ada" and history[3]["after"] == {"pattern": r"\bPAINTED\b", "ignore_case": True}
    assert "change rule" in tsqe(demo_db, "history", BANK).stdout


@pytest.mark.parametrize(("args", "message"), [
    (["rule", "add", BANK, "--positive", r"\bbank("], " at position 7: missing )"),
    (["rule", "add", BANK, "--negative", "--", "*a"], " at position 0: nothing to repeat"),
    (["rule", "edit", "1", "--pattern", "[a-"], " at position 3: unterminated character set"),
    (["rule", "add", BANK, "--positive", " "], ": empty pattern"),
])
def test_invalid_pattern_exits_2_and_changes_nothing(demo_db: Path, args: list[str], message: str) -> None:
    database = open_database(demo_db)
    before = dump(database)
    result = run(demo_db, *args)
    assert result.exit_code == 2 and result.stderr == f"error: pattern does not compile{message}\n"
    assert dump(database) == before
    database.close()


def test_known_add_and_remove(demo_db: Path) -> None:
    text = "The bench had been freshly painted."
    added = json.loads(tsqe(demo_db, "known", "add", "amb-02", "--bad", text, "--json").stdout)
    assert set(added) == {"known_id", "labels", "flipped"}
    assert show(demo_db, "amb-02")["known"][-1] == {"id": added["known_id"], "kind": "bad", "text": text,
                                                     "version": 1}
    assert run(demo_db, "known", "add", "amb-02", text).exit_code == 2  # neither --good nor --bad
    removed = json.loads(tsqe(demo_db, "known", "remove", str(added["known_id"]), "--json").stdout)
    assert removed["known_id"] == added["known_id"]
    assert show(demo_db, "amb-02")["known"] == []
    assert run(demo_db, "known", "remove", str(added["known_id"])).stderr == \
        f"error: no known translation with id {added['known_id']}\n"


def test_review_sets_and_clears_a_manual_label(demo_db: Path) -> None:
    output = next(o for o in show(demo_db)["outputs"] if not o["manual_label"])
    oid = str(output["output_id"])
    assert "reviewed as fail by ada" in tsqe(demo_db, "review", oid, "fail", "--reviewer", "ada", "--comment",
                                             "wrong sense").stdout
    reviewed = next(o for o in show(demo_db)["outputs"] if o["output_id"] == output["output_id"])
    assert (reviewed["manual_label"], reviewed["effective_label"], reviewed["comment"]) == ("fail", "fail",
                                                                                             "wrong sense")
    refused = run(demo_db, "review", oid, "pass", env={"TSQE_USER": "bea"})
    assert refused.exit_code != 0 and "decided fail by ada" in refused.output and "version seen (1)" in refused.output
    assert run(demo_db, "review", oid, "clear", "--reviewer", "bea").exit_code != 0  # ada's, unseen: kept
    tsqe(demo_db, "review", oid, "pass", "--seen-version", "1", env={"TSQE_USER": "bea"})
    assert "cleared" in tsqe(demo_db, "review", oid, "clear", "--reviewer", "bea").stdout
    assert "had no manual label" in tsqe(demo_db, "review", oid, "clear").stdout
    assert run(demo_db, "review", oid, "maybe").exit_code == 2
    history = json.loads(tsqe(demo_db, "history", BANK, "--json").stdout)
    assert [(h["action"], h["author"], h["version"]) for h in history[:3]] == [
        ("remove", "bea", None), ("change", "bea", 2), ("add", "ada", 1)]


def test_item_add_edit_remove(demo_db: Path) -> None:
    tsqe(demo_db, "item", "add", "new-01", "--source", "Der Hund schläft.", "--category", "Animals",
         "--phenomenon", "Dogs", "--comment", "made up", "--author", "ada")
    tsqe(demo_db, "rule", "add", "new-01", "--positive", r"\bdog\b")
    tsqe(demo_db, "item", "edit", "new-01", "--source", "Der Hund schlief.", "--comment", "")
    tsqe(demo_db, "item", "edit", "new-01", "--category", "Animals", "--phenomenon", "Pets")
    detail = show(demo_db, "new-01")
    assert (detail["source"], detail["comment"], detail["phenomenon"], detail["version"]) == (
        "Der Hund schlief.", None, "Pets", 3)
    assert run(demo_db, "item", "edit", "new-01", "--category", "Animals").exit_code == 2
    assert run(demo_db, "item", "add", "new-01", "--source", "x", "--category", "c", "--phenomenon", "p").stderr == \
        "error: suite 'tsqe-demo-de-en' already has an item 'new-01'\n"

    declined = run(demo_db, "item", "remove", BANK, input="n\n")
    assert declined.exit_code == 1 and show(demo_db)["external_id"] == BANK
    assert "removed item" in tsqe(demo_db, "item", "remove", BANK, input="y\n").stdout
    tsqe(demo_db, "item", "remove", "new-01", "--yes")
    assert run(demo_db, "item", "show", BANK).exit_code == 2
    history = json.loads(tsqe(demo_db, "history", BANK, "--json").stdout)
    assert history[0]["action"] == "remove" and len(history[0]["before"]["outputs"]) == 4
    assert f"restored item {BANK}" in tsqe(demo_db, "item", "restore", BANK).stdout
    assert len(show(demo_db)["outputs"]) == 4 and [o["reviewer"] for o in show(demo_db)["outputs"]
                                                    if o["manual_label"]] == ["jonas.w"]
    assert run(demo_db, "item", "restore", "nope").stderr == \
        "error: the history of suite 'tsqe-demo-de-en' holds no removal of an item 'nope'\n"
    assert [h["action"] for h in json.loads(tsqe(demo_db, "history", "new-01", "--json").stdout)] == [
        "remove", "move", "change", "add", "add"]


def test_review_as_known_stores_the_decision_and_the_known_translation_together(demo_db: Path) -> None:
    output = next(o for o in show(demo_db)["outputs"] if not o["manual_label"])
    oid = str(output["output_id"])
    said = tsqe(demo_db, "review", oid, "pass", "--as-known", "--reviewer", "ada").stdout
    assert f"output {oid} reviewed as pass by ada (version 1); added as known good translation" in said
    detail = show(demo_db)
    assert output["text"] in [k["text"] for k in detail["known"] if k["kind"] == "good"]
    reviewed = next(o for o in detail["outputs"] if o["output_id"] == output["output_id"])
    assert reviewed["manual_label"] == "pass"  # (a rule still decides its automatic label: rules come first)
    assert run(demo_db, "review", oid, "clear", "--as-known").exit_code == 2
