"""``tsqe import challenge``: DEMETR, ACES and the contrastive TSV as suites labelled by construction, and their
accuracy tables equal to sacrebleu called directly."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from import_helpers import demetr_record, snapshot, write
from reviewing import review_output
from sacrebleu.metrics import BLEU, CHRF
from sqlalchemy import select
from typer.testing import CliRunner

from cli.main import app
from filters.qe_proxy import store_metric_as_qe
from qe.aces_score import ACES_WEIGHTS
from qe.evaluation import AccuracyOptions, accuracy, read_inputs
from qe.pairs import build_pairs
from store import Database
from store.domain import Label, Polarity
from store.models import AutoLabel, ConstructedLabel, Item, ManualLabel, Output, Reference, Suite, System
from suite.editing.api import add_rule
from suite.editing.items import remove_item, restore_removed_item
from suite.editing.review import explain
from suite.engine.labelling import label_counts, relabel
from suite.engine.preview import Draft, DraftRule, preview_item, preview_scope
from suite.engine.rules import RuleSpec
from suite.errors import InputFileError, TsqeError
from suite.importers.challenge import import_challenge
from suite.tasks import Progress, TaskState

CONTRASTIVE = (
    "id\tsource\treference\tgood\tbad\tcategory\tphenomenon\tlanguage_pair\n"
    "n1\tEr kam nicht.\tHe did not come.\tHe didn't come.\tHe came.\tmeaning\tnegation\tde-en\n"
    "n2\tSie schläft nicht.\tShe is not sleeping.\tShe does not sleep.\tShe sleeps.\tmeaning\tnegation\tde-en\n"
    "t1\tIl est venu.\tHe came.\tHe came.\tHe comes.\tmeaning\ttense\tfr-en\n"
    "p1\tDas ist gut.\tThat is good.\tThat is good.\tThat is good.\tform\tpunctuation\tde-en\n"
    "p2\tJa.\tYes.\tYes.\tYes\tform\tpunctuation\tde-en\n"
)


def items_of(db: Database, suite: str) -> list[tuple[Any, ...]]:
    with db.session() as session:
        return [tuple(row) for row in session.execute(
            select(Item.external_id, Item.source, Item.source_lang, Item.target_lang).join(Suite)
            .where(Suite.name == suite).order_by(Item.position))]


def labels_by_system(db: Database, suite: str) -> dict[tuple[str, str], tuple[str, str | None]]:
    """(item, system) -> (automatic label, its reason)."""
    from store.models import SystemOutput
    with db.session() as session:
        rows = session.execute(
            select(Item.external_id, System.name, AutoLabel.label, AutoLabel.reason)
            .select_from(SystemOutput).join(System, System.id == SystemOutput.system_id)
            .join(Item, Item.id == SystemOutput.item_id).join(Suite, Suite.id == Item.suite_id)
            .outerjoin(AutoLabel, AutoLabel.output_id == SystemOutput.output_id).where(Suite.name == suite))
        return {(item, system): (label, reason) for item, system, label, reason in rows}


def test_contrastive_tsv_is_a_suite_labelled_by_construction(any_db: Database, tmp_path: Path) -> None:
    db = any_db
    path = write(tmp_path / "set.tsv", CONTRASTIVE)
    result = import_challenge(db, path, "contrastive-tsv")
    assert (result.suite, result.format, result.items, result.pairs) == ("set", "contrastive-tsv", 5, 4)
    assert (result.source_lang, result.target_lang) == ("mul", "en")
    assert result.identical == ["p1"] and result.unchecked == []
    assert (result.categories, result.phenomena, result.references) == (2, 3, 5)
    assert items_of(db, "set") == [("n1", "Er kam nicht.", "de", None), ("n2", "Sie schläft nicht.", "de", None),
                                   ("t1", "Il est venu.", "fr", None), ("p1", "Das ist gut.", "de", None),
                                   ("p2", "Ja.", "de", None)]
    with db.session() as session:
        assert session.scalar(select(Suite.challenge)) == "contrastive-tsv"
        assert sorted(session.scalars(select(System.name))) == ["bad", "good"]
        assert session.scalar(select(ManualLabel.output_id)) is None  # a fact of the data, not a review
        assert len(session.scalars(select(ConstructedLabel.output_id)).all()) == 8
        assert sorted(session.execute(select(Reference.set_name, Reference.text))) == [
            ("contrastive-tsv", text) for text in sorted(
                ["He did not come.", "She is not sleeping.", "He came.", "That is good.", "Yes."])]
    labels = labels_by_system(db, "set")
    assert labels[("n1", "good")] == ("pass", "good translation by construction (challenge set)")
    assert labels[("n1", "bad")] == ("fail", "bad translation by construction (challenge set)")
    assert labels[("p1", "good")] == labels[("p1", "bad")] == (None, None)  # identical: one output, unknown
    assert label_counts(db) == {"pass": 4, "fail": 4, "conflict": 0, "unknown": 1, "error": 0}
    pairs = build_pairs(db)
    assert list(pairs.frame()[["item_id", "pass_output", "fail_output", "pass_systems", "fail_systems"]]
                .itertuples(index=False, name=None)) == [
        ("n1", "He didn't come.", "He came.", "good", "bad"),
        ("n2", "She does not sleep.", "She sleeps.", "good", "bad"),
        ("t1", "He came.", "He comes.", "good", "bad"), ("p2", "Yes.", "Yes", "good", "bad")]


def test_a_rule_or_a_relabel_never_overrides_the_construction_but_a_reviewer_does(db: Database,
                                                                                   tmp_path: Path) -> None:
    import_challenge(db, write(tmp_path / "set.tsv", CONTRASTIVE), "contrastive-tsv")
    with db.session() as session:
        n1 = session.scalar(select(Item.id).where(Item.external_id == "n1"))
        bad = session.scalar(select(Output.id).where(Output.item_id == n1, Output.text == "He came."))
    assert n1 is not None and bad is not None
    add_rule(db, n1, polarity=Polarity.POSITIVE, pattern="came", author="ann")  # matches the bad translation
    relabel(db)
    assert labels_by_system(db, "set")[("n1", "bad")][0] == "fail"
    # the detail panel, the editor's preview and its scope say the same as labelling does
    assert explain(db, bad).decision.reason == "bad translation by construction (challenge set)"
    draft = Draft((DraftRule(RuleSpec(Polarity.NEGATIVE, "didn't")),))
    assert preview_item(db, n1, draft).flips == {}
    scope = preview_scope(db, n1, (DraftRule(RuleSpec(Polarity.NEGATIVE, ".")),), "suite")
    assert scope.flips == {"unknown->fail": 1}  # p1 only
    review_output(db, bad, Label.PASS, reviewer="ann", expected_version=0)
    assert label_counts(db)["pass"] == 5
    assert build_pairs(db).frame()["item_id"].tolist() == ["n2", "t1", "p2"]


def test_removing_and_restoring_an_item_keeps_its_construction_and_languages(db: Database, tmp_path: Path) -> None:
    import_challenge(db, write(tmp_path / "set.tsv", CONTRASTIVE), "contrastive-tsv")
    before = labels_by_system(db, "set")
    with db.session() as session:
        t1 = session.scalar(select(Item.id).where(Item.external_id == "t1"))
    assert t1 is not None
    remove_item(db, t1, author="ann")
    assert ("t1", "good") not in labels_by_system(db, "set")
    restore_removed_item(db, "t1", author="ann")
    assert labels_by_system(db, "set") == before
    assert ("t1", "Il est venu.", "fr", None) in items_of(db, "set")


def direct(metric: BLEU | CHRF, hypothesis: str, reference: str) -> float:
    return float(metric.sentence_score(hypothesis, [reference]).score)


def direct_accuracy(examples: list[tuple[str, str, str, str]], metric: BLEU | CHRF) -> tuple[float, float]:
    """(accuracy under ties wrong, tie rate) over (row, reference, good, bad), computed with sacrebleu alone."""
    margins = np.array([direct(metric, good, ref) - direct(metric, bad, ref) for _, ref, good, bad in examples])
    return float(np.mean(margins > 0)), float(np.mean(margins == 0))


def metric_table(db: Database, suite: str, **options: Any) -> dict[str, Any]:
    store_metric_as_qe(db, "chrf", suite_name=suite)
    store_metric_as_qe(db, "bleu", suite_name=suite)
    result = accuracy(read_inputs(db, suite), AccuracyOptions(bootstrap=0, **options))
    return result.to_dict()


def test_accuracy_equals_sacrebleu_called_directly_and_counts_a_tie_as_wrong(db: Database, tmp_path: Path) -> None:
    import_challenge(db, write(tmp_path / "set.tsv", CONTRASTIVE), "contrastive-tsv")
    document = metric_table(db, "set", by="phenomenon")
    assert document["ties"] == "wrong" and document["ties_default"] is True
    examples = [(phenomenon, ref, good, bad) for phenomenon, ref, good, bad in (
        ("negation", "He did not come.", "He didn't come.", "He came."),
        ("negation", "She is not sleeping.", "She does not sleep.", "She sleeps."),
        ("tense", "He came.", "He came.", "He comes."), ("punctuation", "Yes.", "Yes.", "Yes"))]
    for row in document["rows"]:
        ours = [e for e in examples if e[0] == row["phenomenon"]]
        for name, metric in (("chrf", CHRF()), ("bleu", BLEU(effective_order=True))):
            expected_accuracy, expected_ties = direct_accuracy(ours, metric)
            assert row["accuracy"][name] == pytest.approx(expected_accuracy, abs=1e-12)
            assert row["tie_rate"][name] == pytest.approx(expected_ties, abs=1e-12)
    for name, metric in (("chrf", CHRF()), ("bleu", BLEU(effective_order=True))):
        assert document["total"]["accuracy"][name] == pytest.approx(direct_accuracy(examples, metric)[0])
    half = accuracy(read_inputs(db, "set"), AccuracyOptions(bootstrap=0, ties="half")).to_dict()
    assert half["ties_default"] is False and half["total"]["accuracy"]["bleu"] >= document["total"]["accuracy"]["bleu"]


def tsv_rows(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.strip().split("\n")]


def test_the_table_shows_tie_rates_and_says_which_rule_it_uses(db: Database, tmp_path: Path) -> None:
    import_challenge(db, write(tmp_path / "set.tsv", CONTRASTIVE), "contrastive-tsv")
    store_metric_as_qe(db, "bleu")
    result = accuracy(read_inputs(db, None), AccuracyOptions(bootstrap=0))
    table = result.to_table()
    assert [c.name for c in table.columns] == ["category", "amount", "bleu", "bleu ties", "too_few"]
    assert "ties counted as wrong (0: the published convention of challenge sets, DEMETR's and ACES's); the " \
           "default for a suite imported as a challenge set (contrastive-tsv)." in table.notes[0]
    assert "a tie: both scores equal" in table.notes[1]
    chosen = accuracy(read_inputs(db, None), AccuracyOptions(bootstrap=0, ties="half")).to_table()
    assert chosen.notes[0].endswith("ties counted half (0.5: a coin flip, the chance level of QE).")


def imported_qe(db: Database, tmp_path: Path, scores: dict[tuple[str, str], float], **options: Any) -> None:
    from suite.importers import import_qe_scores
    lines = "".join(f"{item}\t{system}\t{score!r}\n" for (item, system), score in scores.items())
    import_qe_scores(db, write(tmp_path / "qe.tsv", "item_id\tsystem\tscore\n" + lines), name="toy", **options)


def test_a_difference_within_the_tie_margin_is_a_tie(db: Database, tmp_path: Path) -> None:
    import_challenge(db, write(tmp_path / "set.tsv", CONTRASTIVE), "contrastive-tsv")
    imported_qe(db, tmp_path, {("n1", "good"): 0.5 + 4e-7, ("n1", "bad"): 0.5, ("n2", "good"): 0.9,
                               ("n2", "bad"): 0.1, ("t1", "good"): 0.3, ("t1", "bad"): 0.3 + 2e-7,
                               ("p2", "good"): 0.2, ("p2", "bad"): 0.7})
    inputs = read_inputs(db, None)
    exact = accuracy(inputs, AccuracyOptions(bootstrap=0, ties="wrong")).total
    assert (exact.accuracy["toy"], exact.tie_rate["toy"]) == (0.5, 0.0)
    margin = accuracy(inputs, AccuracyOptions(bootstrap=0, ties="wrong", tie_epsilon=1e-6))
    assert (margin.total.accuracy["toy"], margin.total.tie_rate["toy"]) == (0.25, 0.5)
    assert "a tie: scores at most 1e-06 apart" in margin.to_table().notes[1]
    assert accuracy(inputs, AccuracyOptions(bootstrap=0, ties="half", tie_epsilon=1e-6)).total.accuracy["toy"] == 0.5
    dropped = accuracy(inputs, AccuracyOptions(bootstrap=0, ties="drop", tie_epsilon=1e-6)).total
    assert (dropped.accuracy["toy"], dropped.counted["toy"]) == (0.5, 2)


def test_a_qe_system_keeps_the_tie_margin_it_was_imported_with(db: Database, tmp_path: Path) -> None:
    import_challenge(db, write(tmp_path / "set.tsv", CONTRASTIVE), "contrastive-tsv")
    imported_qe(db, tmp_path, {("n1", "good"): 0.5 + 4e-7, ("n1", "bad"): 0.5}, tie_epsilon=1e-6)
    assert read_inputs(db, None).systems["toy"].tie_epsilon == 1e-6
    assert accuracy(read_inputs(db, None), AccuracyOptions(bootstrap=0)).total.tie_rate["toy"] == 1.0


def test_dropping_every_tie_of_a_row_flags_it_too_small(db: Database, tmp_path: Path) -> None:
    rows = "".join(f"x{i}\tQuelle {i}.\tThe ref {i}.\tGood {i}.\tBad {i}.\tc\tp\tde-en\n" for i in range(40))
    import_challenge(db, write(tmp_path / "big.tsv", CONTRASTIVE.split("\n")[0] + "\n" + rows), "contrastive-tsv")
    imported_qe(db, tmp_path, {(f"x{i}", system): 0.5 for i in range(40) for system in ("good", "bad")})
    inputs = read_inputs(db, None)
    half = accuracy(inputs, AccuracyOptions(bootstrap=0, ties="half")).rows[0]
    assert (half.amount, half.accuracy["toy"], half.too_few) == (40, 0.5, False)
    dropped = accuracy(inputs, AccuracyOptions(bootstrap=0, ties="drop"))
    row = dropped.rows[0]
    assert (row.amount, row.counted["toy"], row.too_few) == (40, 0, True)
    assert np.isnan(row.accuracy["toy"]) and dropped.to_dict()["rows"][0]["too_few"] is True



def test_demetr_files_unchecked_and_identical_examples(db: Database, tmp_path: Path) -> None:
    folder = tmp_path / "demetr" / "dataset"
    folder.mkdir(parents=True)
    write(folder / "minor_id14_word_swap.json", json.dumps([
        demetr_record(1), demetr_record(2, pert_check=False), demetr_record(3, lang_tag="hindi"),
        demetr_record(4, pert_sent="The translation 4.")]))
    write(folder / "critical_id8_negation.json", json.dumps([
        demetr_record(1, severity="critical", pert_id=8, pert_name="critical_id8_negation", lang_tag="german")]))
    write(folder / "base_id35_reference.json", json.dumps([
        demetr_record(1, severity="base", pert_id=35, pert_name="base_id35_reference", pert_sent="")]))
    result = import_challenge(db, tmp_path / "demetr", "demetr")
    assert (result.suite, result.items, result.pairs) == ("demetr", 5, 4)
    assert result.unchecked == ["minor_id14_word_swap:2"] and result.identical == ["minor_id14_word_swap:4"]
    assert [row[0] for row in items_of(db, "demetr")] == [
        "minor_id14_word_swap:1", "minor_id14_word_swap:3", "minor_id14_word_swap:4", "critical_id8_negation:1",
        "base_id35_reference:1"]  # minor, major, critical, base: the paper's order
    assert {row[2] for row in items_of(db, "demetr")} == {"de", "hi"}
    with db.session() as session:
        assert session.execute(select(Suite.source_lang, Suite.target_lang)).one() == ("mul", "en")
    assert labels_by_system(db, "demetr")[("base_id35_reference:1", "bad")][0] == "fail"  # the empty translation
    again = import_challenge(db, tmp_path / "demetr", "demetr", name="all", include_unchecked=True)
    assert (again.items, again.unchecked) == (6, [])


def test_a_demetr_file_the_streaming_parser_refuses_is_read_whole_and_each_example_imported_once(
        db: Database, tmp_path: Path) -> None:
    """The examples are parsed one at a time (``ijson``), which refuses the ``NaN`` Python's JSON reader accepts:
    the examples given before it are not given twice when the rest comes from reading the file whole."""
    records = [demetr_record(1), demetr_record(2), demetr_record(3)]
    text = json.dumps(records).replace('"data_source": "WMT"}]', '"data_source": NaN}]')
    path = write(tmp_path / "minor_id14_word_swap.json", text)
    result = import_challenge(db, path, "demetr")
    assert result.items == 3
    assert [row[0] for row in items_of(db, "minor_id14_word_swap")] == [
        "minor_id14_word_swap:1", "minor_id14_word_swap:2", "minor_id14_word_swap:3"]


def test_a_set_changed_between_checking_and_writing_is_refused_and_changes_nothing(db: Database,
                                                                                   tmp_path: Path) -> None:
    """The set is read twice, to check and then to write a chunk at a time; a file changed in between (a duplicate
    id now) must not be written half."""
    path = write(tmp_path / "set.tsv", CONTRASTIVE)
    before = snapshot(db)

    def change_it(progress: Progress) -> None:
        if progress.message.startswith("writing"):
            path.write_text(CONTRASTIVE.replace("n2\t", "n1\t"), encoding="utf-8")

    with pytest.raises(TsqeError, match="the set changed while it was being imported; nothing was changed"):
        import_challenge(db, path, "contrastive-tsv", task=TaskState(change_it))
    assert snapshot(db) == before


@pytest.mark.parametrize(("records", "message"), [
    ([demetr_record(1, severity="huge")], "example 1: unknown severity 'huge'"),
    ([demetr_record(1, lang_tag="klingon")], "example 1: unknown lang_tag 'klingon'"),
    ([{"id": 1}], "example 1: missing field(s) src_sent, eng_sent"),
    ([demetr_record(1), demetr_record(1)], "example id 'minor_id14_word_swap:1' again"),
    ({"id": 1}, "expected a JSON list of examples"),
])
def test_a_broken_demetr_file_is_refused_and_changes_nothing(db: Database, tmp_path: Path, records: Any,
                                                            message: str) -> None:
    path = write(tmp_path / "broken.json", json.dumps(records))
    before = snapshot(db)
    with pytest.raises(InputFileError) as excinfo:
        import_challenge(db, path, "demetr")
    assert message in str(excinfo.value) and str(path) in str(excinfo.value)
    assert snapshot(db) == before


def test_a_broken_table_names_file_and_line(db: Database, tmp_path: Path) -> None:
    text = CONTRASTIVE.replace("t1\tIl est venu.", "t1\t").replace("\tde-en\np2", "\tdeutsch\np2")
    path = write(tmp_path / "set.tsv", text)
    with pytest.raises(InputFileError) as excinfo:
        import_challenge(db, path, "contrastive-tsv")
    assert str(excinfo.value).split("\n") == [f"{path}:4: empty source",
                                              f"{path}:5: language pair 'deutsch' is not written like de-en"]
    with pytest.raises(TsqeError, match="unknown challenge-set format 'xml'"):
        import_challenge(db, path, "xml")


ACES_TSV = (
    "source\tgood-translation\tincorrect-translation\treference\tphenomena\tlangpair\n"
    "Er kam.\tHe came.\tHe came home.\tHe came.\taddition\tde-en\n"
    "Er kam heim.\tHe came home.\tHe came.\tHe came home.\tomission\tde-en\n"
    "Sie sang laut.\tShe sang loudly.\tShe sang.\tShe sang loudly.\tomission\tde-en\n"
    "Die Bank.\tThe bank.\tThe bench.\tThe bank.\tambiguous-translation-wrong-sense-frequent\tde-fr\n"
    "Ja!\tYes!\tYes?\tYes!\tpunctuation:statement-to-question\tde-en\n"
    "Neu.\tNew.\tNeu.\tNew.\tinvented-phenomenon\tde-en\n"
)


def test_aces_tsv_and_its_score_equal_a_direct_computation(db: Database, tmp_path: Path) -> None:
    result = import_challenge(db, write(tmp_path / "aces.tsv", ACES_TSV), "aces")
    assert (result.items, result.pairs, result.source_lang, result.target_lang) == (6, 6, "de", "mul")
    assert [w.message for w in result.warnings] == [
        "phenomenon 'invented-phenomenon' is not one of ACES's: its category is 'other', which the ACES score "
        "does not weigh"]
    with db.session() as session:
        places = session.execute(select(Item.external_id, Item.target_lang).order_by(Item.position)).all()
    assert places[3] == ("4", "fr") and places[0] == ("1", "en")
    store_metric_as_qe(db, "chrf")
    table = accuracy(read_inputs(db, None), AccuracyOptions(bootstrap=0))
    assert [row.name for row in table.rows] == ["addition", "omission", "mistranslation", "punctuation", "other"]
    chrf = CHRF()
    tau: dict[str, list[float]] = {}
    for line in tsv_rows(ACES_TSV)[1:]:
        source, good, bad, ref, phenomenon, _ = line
        concordant = direct(chrf, good, ref) > direct(chrf, bad, ref)
        tau.setdefault(phenomenon, []).append(1.0 if concordant else -1.0)
    category = {"addition": "addition", "omission": "omission", "punctuation:statement-to-question": "punctuation",
                "ambiguous-translation-wrong-sense-frequent": "mistranslation"}
    expected = sum(ACES_WEIGHTS[category[p]] * np.mean(t) for p, t in tau.items() if p in category)
    assert table.aces_score == {"chrf": pytest.approx(expected)}
    rendered = table.to_table()
    assert rendered.footer[-1][0].value == "ACES score" and rendered.footer[-1][2].kind == "number"
    assert "ACES score: ACES's summary score" in rendered.notes[-1]


def test_a_table_suite_without_rule_columns_imports(db: Database, tmp_path: Path) -> None:
    from suite.importers import import_suite
    path = write(tmp_path / "plain.tsv", "id\tcategory\tphenomenon\tsource\tgood_translations\tbad_translations\n"
                                         "a1\tc\tp\tEr kam.\tHe came.\tHe comes.\n")
    import_suite(db, path, source_lang="de", target_lang="en")
    with db.session() as session:
        assert session.scalar(select(Item.external_id)) == "a1"


def test_the_command_reports_what_it_left_out(tmp_path: Path) -> None:
    path = write(tmp_path / "set.tsv", CONTRASTIVE)
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "t.sqlite"), "import", "challenge", str(path),
                                      "--format", "contrastive-tsv", "--name", "mine"])
    assert result.exit_code == 0, result.output
    assert "suite 'mine' (contrastive-tsv): 5 items, 4 pass/fail pairs" in result.output
    assert "1 item whose good and bad translations are the same text (kept, no pair): p1" in result.output
    assert "ties count as wrong in this suite's accuracy tables" in result.output


def test_real_demetr_files_equal_sacrebleu(db: Database, shared_data: Path) -> None:
    """The two DEMETR files in ../shared: 1,987 checked examples (12 + 1 unchecked left out), and per
    perturbation the accuracy of chrF and BLEU under ties wrong equals sacrebleu called directly."""
    folder = shared_data / "demetr"
    result = import_challenge(db, folder, "demetr")
    assert (result.items, result.pairs, len(result.unchecked), result.identical) == (1987, 1987, 13, [])
    document = metric_table(db, "demetr", by="phenomenon")
    examples: dict[str, list[tuple[str, str, str, str]]] = {}
    for file in sorted((folder / "dataset").glob("*.json")):
        for record in json.loads(file.read_text(encoding="utf-8")):
            if record["pert_check"]:
                examples.setdefault(record["pert_name"], []).append(
                    (record["pert_name"], record["eng_sent"].strip(), record["mt_sent"].strip(),
                     record["pert_sent"].strip()))
    assert {row["phenomenon"]: row["amount"] for row in document["rows"]} == {
        "major_id17_tense": 988, "critical_id8_negation": 999}
    for row in document["rows"]:
        for name, metric in (("chrf", CHRF()), ("bleu", BLEU(effective_order=True))):
            expected_accuracy, expected_ties = direct_accuracy(examples[row["phenomenon"]], metric)
            assert row["accuracy"][name] == pytest.approx(expected_accuracy, abs=1e-12)
            assert row["tie_rate"][name] == pytest.approx(expected_ties, abs=1e-12)


def test_bertscore_ties_a_case_perturbation_exactly_and_keeps_its_tie_margin(db: Database, tmp_path: Path) -> None:
    """Under the uncased MiniLM, a translation and its lower-cased copy tokenise alike: they share one cached
    embedding and score exactly alike, a tie whatever the margin (DEMETR's case perturbations were 'decided' by
    float noise of about 1e-7 before); the QE system keeps BERTScore's tie margin from the registry, 1e-6."""
    from filters.metrics import MetricOptions, metric_spec

    rows = "".join(f"c{i}\tQuelle {i}.\t{ref}\t{good}\t{good.lower()}\tminor\tcase\tde-en\n" for i, (ref, good) in
                   enumerate([("The Bank of England raised rates.", "The Bank of England raised its rates."),
                              ("Paris is in France.", "Paris lies in France."),
                              ("He met Anna on Monday.", "He met Anna on Monday.")]))
    rows += "t1\tEr kam.\tHe came.\tHe came.\tHe comes.\tmajor\ttense\tde-en\n"
    import_challenge(db, write(tmp_path / "case.tsv", CONTRASTIVE.split("\n")[0] + "\n" + rows), "contrastive-tsv")
    store_metric_as_qe(db, "bertscore-f", options=MetricOptions(embeddings="none"))
    inputs = read_inputs(db, None)
    system = inputs.systems["bertscore-f"]
    assert system.tie_epsilon == metric_spec("bertscore-f").tie_epsilon == 1e-6
    scores = system.by_output()
    with db.session() as session:
        texts = dict(session.execute(select(Output.text, Output.id)).all())
    for good in ("The Bank of England raised its rates.", "Paris lies in France.", "He met Anna on Monday."):
        assert scores[texts[good]] == scores[texts[good.lower()]]
    result = accuracy(inputs, AccuracyOptions(by="phenomenon", bootstrap=0))
    case, tense = result.rows
    assert (case.tie_rate["bertscore-f"], case.accuracy["bertscore-f"]) == (1.0, 0.0)
    assert (tense.tie_rate["bertscore-f"], tense.accuracy["bertscore-f"]) == (0.0, 1.0)
    assert "a tie: scores at most 1e-06 apart" in result.to_table().notes[1]
