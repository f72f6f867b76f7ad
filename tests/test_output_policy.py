"""A suite's policy for degenerate outputs: empty, placeholder (WMT21's ``####``) and untranslated outputs decided
once, with a count, undoable; Review's filter of them; the migration that adds it changes no label (issue 16)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from import_helpers import small_suite, write
from migration_helpers import at_revision
from sqlalchemy import select, text
from typer.testing import CliRunner

from cli.main import app
from store import Database, open_database
from store.domain import Label, Polarity, TranslationKind
from store.models import LabelFingerprint, Output
from suite.editing.api import add_rule, find_item, suite_history
from suite.editing.history import change_text
from suite.editing.review import explain
from suite.editing.suite_edit import set_output_policy
from suite.engine.labelling import relabel
from suite.engine.output_policy import (
    DegenerateCounts,
    OutputPolicy,
    degenerate_counts,
    output_policy,
)
from suite.engine.preview import draft_of, preview_item
from suite.engine.rules import ItemRule, KnownSpec, RuleSpec, item_fingerprint
from suite.errors import TsqeError
from suite.importers import import_outputs
from suite.reading.browse import OutputFilter, browse_outputs, output_ids, output_rows
from tests.conftest import SHARED_DATA

EXTRA = ("item_id\tsystem\toutput\n"
         "1\tD\t####\n"
         "2\tD\t####\n"
         "3\tD\tEr wird nicht laufen.\n"  # the source itself, which the positive rule below matches
         "1\tE\tIhr Mann kam.\n")


@pytest.fixture
def db(any_db: Database, tmp_path: Path) -> Database:
    small_suite(any_db, tmp_path)
    import_outputs(any_db, write(tmp_path / "extra.tsv", EXTRA))
    add_rule(any_db, find_item(any_db, "3"), Polarity.POSITIVE, r"\bnicht\b", author="ann")
    relabel(any_db)
    return any_db


def labels(db: Database) -> dict[tuple[str, str], tuple[str | None, str | None]]:
    """(item, output) -> (automatic label, what decided it) for every output of the suite."""
    rows = output_rows(db, output_ids(db))
    return {(row.external_id, row.text): (row.auto_label, row.decided_by) for row in rows}


def test_the_default_policy_leaves_the_rules_to_decide(db: Database) -> None:
    """The import listed ``####`` (no letter) as a placeholder, which under the default policy decides nothing."""
    assert output_policy(db) == OutputPolicy(placeholders=("####",))
    found = labels(db)
    assert found[("1", "####")][0] == found[("2", "")][0] == "unknown"  # no rule matches them
    assert found[("3", "Er wird nicht laufen.")][0] == "pass"  # the untranslated output passes by a rule
    assert degenerate_counts(db) == DegenerateCounts(empty=1, placeholder=2, untranslated=2)


def test_empty_and_placeholder_outputs_fail_once_with_a_count_and_undo_restores_every_label(db: Database) -> None:
    before = labels(db)
    change = set_output_policy(db, OutputPolicy(Label.FAIL, Label.UNKNOWN, ("####",)), author="ann")
    assert change.counts == DegenerateCounts(empty=1, placeholder=2, untranslated=2)
    assert change.summary().startswith("3 empty or placeholder outputs fail; 2 outputs identical to the source left")
    after = labels(db)
    assert after[("1", "####")] == after[("2", "####")] == ("fail", "placeholder output")
    assert after[("2", "")] == ("fail", "empty output")
    assert after[("3", "Er wird nicht laufen.")][0] == "pass"
    assert {key: value for key, value in after.items() if key not in {("1", "####"), ("2", "####"), ("2", "")}} \
        == {key: value for key, value in before.items() if key not in {("1", "####"), ("2", "####"), ("2", "")}}
    [entry, *_] = suite_history(db)
    assert change_text(entry) == "empty output: unknown → fail"
    undone = set_output_policy(db, change.before, author="ann")
    assert undone.after == OutputPolicy(placeholders=("####",)) and labels(db) == before


def test_untranslated_outputs_fail_before_any_rule(db: Database) -> None:
    set_output_policy(db, OutputPolicy(untranslated_output=Label.FAIL), author="ann")
    after = labels(db)
    assert after[("3", "Er wird nicht laufen.")] == ("fail", "identical to the source (not translated)")
    assert after[("1", "Ihr Mann kam.")][0] == "fail" and after[("1", "####")][0] == "unknown"
    output_id = next(r.output_id for r in output_rows(db, output_ids(db)) if r.text == "Er wird nicht laufen.")
    assert explain(db, output_id).decision.label == "fail"  # the detail panel's "why" agrees


def test_the_preview_applies_the_policy_as_labelling_does(db: Database) -> None:
    set_output_policy(db, OutputPolicy(Label.FAIL, Label.FAIL, ("####",)), author="ann")
    item_id = find_item(db, "1")
    preview = preview_item(db, item_id, draft_of(db, item_id))
    assert preview.flips == {}
    shown = {o.stored.text: (o.label_after, o.decided_by_after) for o in preview.outputs}
    assert shown["####"] == ("fail", "placeholder output") and shown["Ihr Mann kam."][0] == "fail"


def test_review_finds_the_degenerate_outputs_whatever_the_policy(db: Database) -> None:
    def degenerate() -> list[str]:
        return sorted(row.text for row in browse_outputs(db, OutputFilter(degenerate=True), limit=100).rows)

    set_output_policy(db, OutputPolicy(), author="ann")  # the list the import made, emptied
    assert degenerate() == ["", "Er wird nicht laufen.", "Ihr Mann kam."]
    set_output_policy(db, OutputPolicy(placeholders=("####",)), author="ann")
    assert degenerate() == ["", "####", "####", "Er wird nicht laufen.", "Ihr Mann kam."]
    page = browse_outputs(db, OutputFilter(degenerate=True, label=Label.UNKNOWN), limit=1)
    assert page.total == 4 and len(page.rows) == 1  # all but the untranslated output a rule passes
    for sort in ("item", "label", "category", "systems", "text"):
        assert len(output_ids(db, OutputFilter(degenerate=True), sort=sort)) == 5


@pytest.mark.parametrize(("policy", "message"), [
    (dict(empty_output="pass"), "labelled unknown or fail, not 'pass'"),
    (dict(placeholders=("",)), "a placeholder cannot be empty"),
    (dict(placeholders=(" ####",)), "would never match one"),
    (dict(placeholders=("x" * 201,)), "at most 200 characters"),
])
def test_a_bad_policy_is_refused(policy: dict[str, object], message: str) -> None:
    with pytest.raises(TsqeError, match=message):
        OutputPolicy(**policy)  # type: ignore[arg-type]


def test_the_migration_adds_the_policy_without_changing_any_fingerprint(tmp_path: Path) -> None:
    rules, known = [ItemRule(1, RuleSpec(Polarity.POSITIVE, "x"))], [KnownSpec(TranslationKind.GOOD, "y")]
    assert item_fingerprint(rules, known) == item_fingerprint(rules, known, OutputPolicy().fingerprint("Er kam."))
    path = tmp_path / "old.sqlite"
    with at_revision(f"sqlite:///{path}", "0005") as connection:
        connection.execute(text("INSERT INTO items (id, suite_id, external_id, position, source, version) "
                                "VALUES (1, 1, 'a', 0, 'Er kam.', 1)"))
        connection.execute(text("INSERT INTO outputs (id, item_id, text) VALUES (1, 1, '####'), (2, 1, '')"))
    db = open_database(path)
    try:
        relabel(db)
        with db.session() as session:
            stored = dict(session.execute(select(LabelFingerprint.item_id, LabelFingerprint.fingerprint)).all())
        assert output_policy(db) == OutputPolicy()
        relabel(db)  # nothing to do: a default policy is no change
        with db.session() as session:
            assert dict(session.execute(select(LabelFingerprint.item_id, LabelFingerprint.fingerprint)).all()) \
                == stored
            assert session.scalar(select(Output.id).where(Output.text == "####")) == 1
        set_output_policy(db, OutputPolicy(Label.FAIL, placeholders=("####",)), author="ann")
        assert {row.text: row.auto_label for row in output_rows(db, output_ids(db))} == {"####": "fail", "": "fail"}
    finally:
        db.close()


def test_tsqe_suite_edit_sets_the_policy_and_says_how_many_outputs_it_decides(tmp_path: Path) -> None:
    database = tmp_path / "demo.sqlite"
    db = open_database(database)
    small_suite(db, tmp_path)
    import_outputs(db, write(tmp_path / "extra.tsv", EXTRA))
    relabel(db)
    db.close()
    runner = CliRunner()
    result = runner.invoke(app, ["--db", str(database), "suite", "edit", "--empty-output", "fail",
                                 "--placeholder", "####"])
    assert result.exit_code == 0, result.output
    assert "3 empty or placeholder outputs fail" in result.output
    result = runner.invoke(app, ["--db", str(database), "outputs", "--degenerate", "--label", "fail",
                                 "--format", "json"])
    assert json.loads(result.stdout)["total"] == 3
    result = runner.invoke(app, ["--db", str(database), "suite", "edit", "--empty-output", "maybe"])
    assert result.exit_code == 2 and "unknown or fail, not 'maybe'" in result.output
    result = runner.invoke(app, ["--db", str(database), "suite", "edit", "--no-placeholders",
                                 "--empty-output", "unknown"])
    assert result.exit_code == 0 and "(placeholders: none)" in result.output


@pytest.mark.shared
@pytest.mark.skipif(not (SHARED_DATA / "wmt21-news-systems").is_dir(), reason="needs ../shared/data/external")
def test_wmt21s_placeholders_on_dfki_de_en(tmp_path: Path) -> None:
    from suite.importers import import_suite

    db = open_database(tmp_path / "dfki.sqlite")
    try:
        import_suite(db, SHARED_DATA / "mt-testsuite" / "testset" / "de-en" / "items.json", name="de-en")
        import_outputs(db, SHARED_DATA / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv", suite_name="de-en")
        before = relabel(db, workers=0)
        change = set_output_policy(db, OutputPolicy(Label.FAIL, placeholders=("####",)), author="ann")
        assert change.counts.placeholder == 2748  # the UF system's ####
        assert change.labels["unknown"] == before["unknown"] - 2748 and change.labels["fail"] == before["fail"] + 2748
    finally:
        db.close()
