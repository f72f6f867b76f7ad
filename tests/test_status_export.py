from __future__ import annotations

import csv
from pathlib import Path

import pytest
from import_helpers import small_suite, write
from label_helpers import write_automatic_labels
from sqlalchemy import select

from store import Database
from store.models import Item, Output
from suite.export import LABEL_COLUMNS, export_labels
from suite.importers import import_reviews
from suite.status import suite_status


@pytest.fixture
def db(any_db: Database) -> Database:
    """Every test of this module that takes a database runs on SQLite and on PostgreSQL."""
    return any_db


def label_outputs(db: Database) -> None:
    """Automatic labels as the rule engine would give them, written directly to keep this test about counting."""
    with db.transaction() as session:
        ids = {(item, text): id_ for item, text, id_ in session.execute(
            select(Item.external_id, Output.text, Output.id).join(Item, Item.id == Output.item_id))}
        labels = {("1", "Her husband came."): "pass", ("1", "Her man came."): "fail", ("2", "He will run."): "pass",
                  ("2", 'He said "run".'): "unknown", ("3", "He won't run."): "pass"}
        write_automatic_labels(session, {ids[key]: label for key, label in labels.items()})


def test_status_counts(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    label_outputs(db)
    import_reviews(db, write(tmp_path / "r.tsv",
                             "item_id\tsystem\tlabel\treviewer\n1\tC\tpass\tann\n2\tC\tfail\tann\n"))
    status = suite_status(db)
    assert {k: status[k] for k in ("suite", "items", "categories", "phenomena", "rules", "invalid_rules", "systems",
                                   "outputs", "system_outputs")} == {
        "suite": "de-en", "items": 3, "categories": 3, "phenomena": 3, "rules": 4, "invalid_rules": 0, "systems": 3,
        "outputs": 7, "system_outputs": 9}
    assert status["labels"] == {
        "auto": {"pass": 3, "fail": 1, "conflict": 0, "unknown": 1, "error": 0, "unlabelled": 2},
        "manual": {"pass": 1, "fail": 1, "unknown": 0, "unreviewed": 5},
        # "Her man came." fail -> pass by review; the empty output of item 2 unlabelled -> fail by review.
        "effective": {"pass": 4, "fail": 1, "conflict": 0, "unknown": 1, "error": 0, "unlabelled": 1},
    }


def test_export_labels_one_row_per_system_output(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    label_outputs(db)
    import_reviews(db, write(tmp_path / "r.tsv", "item_id\tsystem\tlabel\treviewer\tcomment\n1\tC\tpass\tann\tok\n"))
    path = tmp_path / "labels.tsv"
    assert export_labels(db, path) == 9
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.reader(file, dialect="excel-tab"))
    assert tuple(rows[0]) == LABEL_COLUMNS == (
        "item_id", "system", "output", "auto_label", "decided_by", "manual_label", "reviewer", "reviewed_at",
        "comment", "effective_label", "rule_id")
    assert [row[:2] for row in rows[1:]] == [[i, s] for i in "123" for s in "ABC"]
    by_key = {(row[0], row[1]): dict(zip(rows[0], row, strict=True)) for row in rows[1:]}
    assert by_key[("1", "C")]["auto_label"] == "fail" and by_key[("1", "C")]["manual_label"] == "pass"
    assert by_key[("1", "C")]["reviewer"] == "ann" and by_key[("1", "C")]["comment"] == "ok"
    assert by_key[("1", "C")]["effective_label"] == "pass" and by_key[("1", "C")]["reviewed_at"].startswith("20")
    assert by_key[("2", "B")]["output"] == 'He said "run".' and by_key[("2", "B")]["decided_by"] == \
        "no rule or known translation matched"
    assert by_key[("2", "C")] == {**dict.fromkeys(LABEL_COLUMNS, ""), "item_id": "2", "system": "C"}


def test_exported_labels_name_rules_as_the_editor_numbers_them_and_keep_the_id(db: Database, tmp_path: Path) -> None:
    from store.models import Rule
    from suite.labelling import relabel

    small_suite(db, tmp_path)
    relabel(db)
    path = tmp_path / "labels.tsv"
    export_labels(db, path)
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file, dialect="excel-tab"))
    with db.session() as session:
        rules = {rule.id: rule for rule in session.scalars(select(Rule))}
    decided = [row for row in rows if row["rule_id"]]
    assert decided
    for row in decided:
        rule = rules[int(row["rule_id"])]
        same = sorted((r.position, r.id) for r in rules.values()
                      if r.item_id == rule.item_id and r.polarity == rule.polarity)
        number = same.index((rule.position, rule.id)) + 1
        assert row["decided_by"].startswith(f"{rule.polarity} rule {number}: {rule.pattern}"), row
    assert any(int(row["rule_id"]) != int(row["decided_by"].split()[2].rstrip(":")) for row in decided)
