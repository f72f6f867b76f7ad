"""The queue by impact (issue 20): undecided outputs of items with outputs of one label only first, each with
the pass/fail pairs its decision would add."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from review_suites import build_review_suite, output_id
from reviewing import review_output
from typer.testing import CliRunner

from cli.main import app
from store import Database, open_database
from store.domain import Label
from suite.engine.label_counts import LabelCounts
from suite.importers import import_outputs
from suite.reading.browse import OutputFilter, browse_outputs, output_ids, output_rows
from suite.reading.impact import PairsAdded, impact_order, pairs_added


@pytest.fixture
def suite(any_db: Database, tmp_path: Path) -> Database:
    build_review_suite(any_db, tmp_path)
    return any_db


def test_pairs_a_decision_adds_are_the_other_label_s_outputs() -> None:
    added = PairsAdded.of(LabelCounts(passed=3, failed=0, unknown=1))
    assert (added.if_pass, added.if_fail, added.one_sided) == (0, 3, True)
    assert added.text() == "+3 if fail" and added.times(2).text() == "+6 if fail"
    assert PairsAdded.of(LabelCounts(passed=2, failed=1)).text() == "+1 if pass · +2 if fail"
    assert PairsAdded.of(LabelCounts(unknown=2)).text() == ""


def test_impact_order_puts_items_with_one_label_first_then_most_pairs() -> None:
    counts = {1: LabelCounts(passed=1, failed=1), 2: LabelCounts(passed=4), 3: LabelCounts(unknown=2),
              4: LabelCounts(passed=5, failed=2), 5: LabelCounts(failed=1)}
    rows = [(10, 1, "unknown"), (11, 1, "pass"), (20, 2, "unknown"), (30, 3, "unknown"), (40, 4, "conflict"),
            (50, 5, None)]
    assert impact_order(rows, counts) == [20, 50, 40, 10, 30, 11]
    assert impact_order(rows, counts, descending=True) == [11, 30, 10, 40, 50, 20]


def test_the_queue_by_impact(suite: Database) -> None:
    running = output_id(suite, "She is running.")
    walk = [output_id(suite, text) for text in ("I shall walk.", "i shall walk", "I Shall Walk.")]
    wants = output_id(suite, "He wants to go.")
    unknown = OutputFilter(label=Label.UNKNOWN)
    assert output_ids(suite, unknown, sort="impact") == [running, *walk, wants]
    assert [r.output_id for r in browse_outputs(suite, unknown, sort="impact", limit=2, offset=1).rows] == walk[:2]
    queue = output_ids(suite, OutputFilter(label=Label.UNKNOWN, grouped=True), sort="impact")
    assert queue == [running, walk[0], wants]
    everything = output_ids(suite, OutputFilter(), sort="impact")
    assert everything[:5] == [running, *walk, wants] and len(everything) == 25
    rows = output_rows(suite, [running, walk[0], output_id(suite, "I went.")])
    added = pairs_added(suite, [(r.output_id, r.item_id, r.effective_label) for r in rows])
    assert added == {running: PairsAdded(0, 3), walk[0]: PairsAdded(1, 3)}
    review_output(suite, running, Label.FAIL, "ada")
    assert output_ids(suite, unknown, sort="impact") == [*walk, wants]


def test_tsqe_outputs_by_impact_says_the_pairs(tmp_path: Path) -> None:
    path = tmp_path / "cli.sqlite"
    db = open_database(path)
    build_review_suite(db, tmp_path)
    db.close()
    result = CliRunner().invoke(app, ["--db", str(path), "outputs", "--label", "unknown", "--sort", "impact",
                                      "--grouped", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [(r["text"], r["pairs_added"], len(r["alike"])) for r in rows] == [
        ("She is running.", {"if_pass": 0, "if_fail": 3}, 0),
        ("I shall walk.", {"if_pass": 3, "if_fail": 9}, 2),
        ("He wants to go.", {"if_pass": 1, "if_fail": 3}, 0)]
    text = CliRunner().invoke(app, ["--db", str(path), "outputs", "--label", "unknown", "--sort", "impact"])
    assert "+3 if fail" in text.stdout


def test_degenerate_outputs_are_never_impact_whatever_their_item_s_counts(suite: Database, tmp_path: Path) -> None:
    """Issue 28: on DFKI de-en, 11 ``####`` placeholders filled the top of the impact order. A placeholder the
    policy leaves ``unknown`` is still undecided, but a pair made of it tells nothing about a metric."""
    from suite.editing.suite_edit import set_output_policy
    from suite.engine.output_policy import OutputPolicy

    placeholders = tmp_path / "placeholders.tsv"
    placeholders.write_text("item_id\tsystem\toutput\nf4\tH\t####\nf1\tH\t####\n", encoding="utf-8")
    import_outputs(suite, placeholders, label=True)
    hashes = [output_id(suite, "####", "f1"), output_id(suite, "####", "f4")]  # in suite order
    running = output_id(suite, "She is running.")
    unknown = OutputFilter(label=Label.UNKNOWN)
    set_output_policy(suite, OutputPolicy(), author="lead")  # the placeholder the import listed, taken off
    before = output_ids(suite, unknown, sort="impact")
    assert before[:2] == [running, hashes[1]]  # f4 has passing outputs only: its #### ranks among the first
    set_output_policy(suite, OutputPolicy(placeholders=("####",)), author="lead")  # still unknown, now degenerate
    ranked = output_ids(suite, unknown, sort="impact")
    assert ranked[-2:] == hashes and ranked[0] == running and set(ranked) == set(before)
    assert output_ids(suite, unknown, sort="impact", descending=True)[:2] == hashes[::-1]
    rows = output_rows(suite, [*hashes, running])
    assert pairs_added(suite, [(r.output_id, r.item_id, r.effective_label) for r in rows]) == \
        {running: PairsAdded(0, 3)}  # no pairs offered beside a placeholder either


def test_a_fresh_import_keeps_outputs_with_no_letter_out_of_the_impact_order(suite: Database, tmp_path: Path) -> None:
    """Issue 28: on DFKI de-en freshly imported, UF's ``####`` was in no policy yet, so it still got the pairs hint
    and filled the top of the impact order. The import lists every new output with no letter (``####``, ``...``)
    as a placeholder, which the default policy leaves to the rules: no label moves, the queue puts them last."""
    from suite.editing.history import suite_history
    from suite.engine.output_policy import OutputPolicy, output_policy

    labels_before = {row.output_id: row.effective_label for row in output_rows(suite, output_ids(suite))}
    outputs = tmp_path / "placeholders.tsv"
    outputs.write_text("item_id\tsystem\toutput\nf4\tH\t####\nf1\tH\t...\nf1\tI\t####\n"
                       "f4\tI\tЖена бежит.\n", encoding="utf-8")
    result = import_outputs(suite, outputs, label=True)
    assert output_policy(suite) == OutputPolicy(placeholders=("####", "..."))
    assert result.counts["placeholders_added"] == 2
    assert "2 output texts with no letter listed as the suite's placeholders" in " ".join(result.summary)
    assert suite_history(suite)[0].entity == "suite"
    degenerate = {output_id(suite, "####", "f1"), output_id(suite, "####", "f4"), output_id(suite, "...", "f1")}
    ranked = output_ids(suite, OutputFilter(label=Label.UNKNOWN), sort="impact")
    assert set(ranked[-3:]) == degenerate and output_id(suite, "Жена бежит.", "f4") in ranked[:-3]
    rows = output_rows(suite, ranked)
    assert set(pairs_added(suite, [(r.output_id, r.item_id, r.effective_label) for r in rows])) & degenerate == set()
    after = {row.output_id: row.effective_label for row in output_rows(suite, output_ids(suite))}
    assert {key: after[key] for key in labels_before} == labels_before
    again = import_outputs(suite, outputs)  # nothing new: the list and the history stay as they are
    assert "placeholders_added" not in again.counts and output_policy(suite) == OutputPolicy(
        placeholders=("####", "..."))


def test_a_suite_that_fails_its_placeholders_keeps_its_own_list(suite: Database, tmp_path: Path) -> None:
    """Listing a placeholder there would relabel every item under an import: the linguist's list is left alone."""
    from suite.editing.suite_edit import set_output_policy
    from suite.engine.output_policy import OutputPolicy, output_policy

    set_output_policy(suite, OutputPolicy(Label.FAIL), author="lead")
    outputs = tmp_path / "placeholders.tsv"
    outputs.write_text("item_id\tsystem\toutput\nf4\tH\t####\n", encoding="utf-8")
    result = import_outputs(suite, outputs, label=True)
    assert output_policy(suite) == OutputPolicy(Label.FAIL) and "placeholders_added" not in result.counts


def test_impact_order_puts_degenerate_outputs_after_every_undecided_one() -> None:
    counts = {1: LabelCounts(passed=4), 2: LabelCounts(unknown=2)}
    rows = [(10, 1, "unknown"), (11, 1, "unknown"), (20, 2, "unknown"), (21, 2, "pass")]
    assert impact_order(rows, counts) == [10, 11, 20, 21]
    assert impact_order(rows, counts, degenerate={10}) == [11, 20, 10, 21]
