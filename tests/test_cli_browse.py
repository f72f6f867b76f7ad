"""``tsqe outputs`` and ``tsqe tree`` on the demo suite: what they print equals what the core returns."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cli.main import app
from store import open_database
from store.domain import Label
from suite.reading.browse import OutputFilter, browse_outputs
from suite.reading.tree import suite_tree


def tsqe(db: Path, *args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    assert result.exit_code == code, result.output
    return result


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("cli") / "demo.sqlite"
    tsqe(db, "demo")
    return db


def test_outputs_json_has_every_field_and_the_total(demo_db: Path) -> None:
    printed = json.loads(tsqe(demo_db, "outputs", "--label", "fail", "--system", "Online-X", "--sort", "text",
                              "--desc", "--limit", "5", "--offset", "2", "--format", "json").stdout)
    database = open_database(demo_db)
    try:
        page = browse_outputs(database, OutputFilter(label=Label.FAIL, system="Online-X"), sort="text", descending=True,
                              limit=5, offset=2)
    finally:
        database.close()
    assert printed["total"] == page.total > 5
    assert [row["output_id"] for row in printed["rows"]] == [row.output_id for row in page.rows]
    first, row = printed["rows"][0], page.rows[0]
    assert set(first) == set(row.__dataclass_fields__)
    assert first["systems"] == list(row.systems) and "Online-X" in first["systems"]
    assert first["effective_label"] == "fail"


def test_outputs_reviews_in_json_carry_iso_times(demo_db: Path) -> None:
    printed = json.loads(tsqe(demo_db, "outputs", "--reviewed", "--format", "json").stdout)
    assert printed["total"] == 7 == len(printed["rows"])
    for row in printed["rows"]:
        assert row["reviewer"] and row["manual_version"] == 1
        assert row["reviewed_at"].endswith("+00:00")
    disagreeing = json.loads(tsqe(demo_db, "outputs", "--disagree", "--format", "json").stdout)
    assert 0 < disagreeing["total"] <= 7
    assert all(row["manual_label"] != row["auto_label"] for row in disagreeing["rows"])
    unreviewed = json.loads(tsqe(demo_db, "outputs", "--not-reviewed", "--limit", "0", "--format", "json").stdout)
    assert unreviewed == {"total": 278 - 7, "rows": []}


def test_outputs_tsv_and_text(demo_db: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(tsqe(demo_db, "outputs", "--item", "amb-01", "--format", "tsv").stdout),
                               delimiter="\t"))
    assert len(rows) == 4 and {row["external_id"] for row in rows} == {"amb-01"}
    assert rows[0]["manual_version"] in {"0", "1"}
    text = tsqe(demo_db, "outputs", "--category", "Ambiguity", "--contains", "BANK").stdout
    assert "of " in text and "bank" in text.lower()


def test_outputs_refuses_bad_values(demo_db: Path) -> None:
    assert tsqe(demo_db, "outputs", "--label", "passed", code=2).exit_code == 2
    result = tsqe(demo_db, "--suite", "nope", "outputs", code=2)
    assert "error: no suite named 'nope'" in result.output


def test_tree_json_equals_the_core(demo_db: Path) -> None:
    printed = json.loads(tsqe(demo_db, "tree", "--json").stdout)
    database = open_database(demo_db)
    try:
        tree = suite_tree(database)
    finally:
        database.close()
    assert printed["suite"] == tree.suite
    assert printed["counts"]["outputs"] == tree.counts.outputs == 278
    assert printed["counts"]["pass_rate"] == tree.counts.pass_rate
    assert [c["name"] for c in printed["categories"]] == [c.name for c in tree.categories]
    items = [i for c in printed["categories"] for p in c["phenomena"] for i in p["items"]]
    assert len(items) == 78 and sum(i["counts"]["outputs"] for i in items) == 278
    text = tsqe(demo_db, "tree").stdout
    assert "Ambiguity" in text and "amb-01" in text and "all" in text


def test_tree_most_undecided_first_only_undecided_and_searched(demo_db: Path) -> None:
    printed = json.loads(tsqe(demo_db, "tree", "--order", "undecided", "--undecided-only", "--json").stdout)
    undecided = [c["counts"]["undecided"] for c in printed["categories"]]
    assert undecided == sorted(undecided, reverse=True) and all(undecided)
    found = json.loads(tsqe(demo_db, "tree", "--search", "FLUSSUFER", "--json").stdout)
    assert [i["external_id"] for c in found["categories"] for p in c["phenomena"] for i in p["items"]] == ["amb-01"]
    assert "ordered by suite or undecided" in tsqe(demo_db, "tree", "--order", "size", code=2).output
