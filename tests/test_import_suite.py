from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import SUITE_JSON, small_suite, snapshot, write
from openpyxl import Workbook
from sqlalchemy import func, select

from store import Database
from store.models import Category, Item, KnownTranslation, ManualLabel, Output, Phenomenon, Reference, Rule, Suite
from suite.editing.history import suite_history
from suite.editing.suite_edit import rename_suite, set_languages
from suite.errors import InputFileError, TsqeError
from suite.importers import import_suite
from suite.suites import SuiteInfo, split_language_pair, suite_info


def problems_of(excinfo: pytest.ExceptionInfo[InputFileError]) -> list[str]:
    return [str(problem) for problem in excinfo.value.problems]


def test_dfki_happy_path(db: Database, tmp_path: Path) -> None:
    path = write(tmp_path / "de-en" / "items.json", SUITE_JSON)
    result = import_suite(db, path)
    assert result.warnings == []
    assert result.counts["items_added"] == 3 and result.counts["categories"] == 3
    # "Future" occurs under two categories: two phenomena, each belonging to its category.
    assert result.counts["phenomena"] == 3
    with db.session() as session:
        suite = session.scalar(select(Suite))
        assert suite is not None
        assert (suite.name, suite.source_lang, suite.target_lang) == ("de-en", "de", "en")
        items = session.scalars(select(Item).order_by(Item.position)).all()
        assert [(i.external_id, i.position, i.source) for i in items] == [
            ("1", 0, "Ihr Mann kam."), ("2", 1, "Er wird laufen. "), ("3", 2, "Er wird nicht laufen.")]
        assert [(r.polarity, r.pattern, r.valid, r.position) for r in items[0].rules] == [
            ("positive", "husband", True, 0), ("negative", r"\bman\b", True, 1)]
        # The empty negative token of item 2 says nothing and is left out.
        assert sorted((k.kind, k.text) for k in items[1].known_translations) == [
            ("bad", "He runs."), ("good", "He will run.")]
        assert items[1].phenomenon is not None and items[1].phenomenon.category.name == "Verb tense"
        assert items[2].phenomenon is not None
        assert items[2].phenomenon.name == "Future" and items[2].phenomenon.category.name == "Negation"


def test_dfki_invalid_regex_is_kept_as_invalid_rule_with_warning(db: Database, tmp_path: Path) -> None:
    path = write(tmp_path / "s.json", SUITE_JSON.replace('"will run"', '"will (run"'))
    result = import_suite(db, path)
    assert len(result.warnings) == 1
    assert str(result.warnings[0]).startswith(f"{path}:3: positive regex 'will (run' of item '2' does not compile (")
    assert result.counts["invalid_rules"] == 1
    with db.session() as session:
        rule = session.scalar(select(Rule).where(Rule.pattern == "will (run"))
        assert rule is not None
        assert rule.valid is False and rule.error is not None and "missing )" in rule.error


@pytest.mark.parametrize(("text", "expected"), [
    (SUITE_JSON.replace('"Er wird laufen. ",', '"Er wird laufen. "'), ":3: invalid JSON: Expecting ',' delimiter"),
    (SUITE_JSON.replace('"id": "3", ', ""), ":4: missing key(s) id"),
    (SUITE_JSON.replace('"id": "3"', '"id": "1"'), ":4: duplicate item id '1' (first at line 2)"),
    (SUITE_JSON.replace('"positive_tokens": ["He will run."]', '"positive_tokens": "He will run."'),
     ":3: positive_tokens must be a list of strings"),
    (SUITE_JSON.replace('"source_sentence": "Ihr Mann kam."', '"source_sentence": " "'),
     ":2: source_sentence is empty"),
    (SUITE_JSON.replace('"langpair": "deen", "category": "Negation"', '"langpair": "ende", "category": "Negation"'),
     ":4: langpair 'ende' differs from 'deen' of the item at line 2; a suite has one language pair"),
    (SUITE_JSON.replace('"phenomenon": "Future", "source_sentence": "Er wird nicht',
                        '"phenomenon": "Future", "colour": "red", "source_sentence": "Er wird nicht'),
     ":4: unknown key(s) 'colour'"),
    ('{"data": []}', ": expected a JSON object with an \"items\" list (the DFKI test-suite format)"),
])
def test_dfki_malformed_file_is_rejected_and_changes_nothing(db: Database, tmp_path: Path, text: str,
                                                             expected: str) -> None:
    small_suite(db, tmp_path)
    before = snapshot(db)
    path = write(tmp_path / "bad" / "items.json", text)
    with pytest.raises(InputFileError) as excinfo:
        import_suite(db, path)
    assert problems_of(excinfo)[0].startswith(f"{path}{expected}")
    assert snapshot(db) == before


def test_dfki_reports_every_problem_at_once(db: Database, tmp_path: Path) -> None:
    text = (SUITE_JSON.replace('"category": "Ambiguity"', '"category": ""')
            .replace('"phenomenon": "Future", "source_sentence": "Er wird nicht laufen."',
                     '"phenomenon": "Future", "source_sentence": 42'))
    path = write(tmp_path / "s.json", text)
    with pytest.raises(InputFileError) as excinfo:
        import_suite(db, path)
    assert problems_of(excinfo) == [f"{path}:2: category is empty",
                                    f"{path}:4: source_sentence must be a string, not 42"]
    assert str(excinfo.value) == "\n".join(problems_of(excinfo))


GENERIC_TSV = (
    "ID\tCategory\tPhenomenon\tSource\tpositive_regex\tnegative_regex\treference\tgood_translations\tbad_translations\n"
    "a1\tAmbiguity\tLexical ambiguity\tIhr Mann kam.\thusband\t\\bman\\b\tHer husband came.\t"
    "Her husband came. ||| Her spouse came.\tHer man came.\n"
    "\n"
    "a2\tNegation\tFuture\tEr wird nicht laufen.\t(won't|will not) run\t\t\t\t\n"
)


def test_generic_tsv_happy_path(db: Database, tmp_path: Path) -> None:
    result = import_suite(db, write(tmp_path / "mini.tsv", GENERIC_TSV), source_lang="de", target_lang="en")
    assert result.counts["items_added"] == 2 and result.counts["references"] == 1
    assert result.counts["known_translations"] == 3 and result.counts["rules"] == 3
    with db.session() as session:
        assert session.scalar(select(Suite.name)) == "mini"
        item = session.scalar(select(Item).where(Item.external_id == "a1"))
        assert item is not None
        assert sorted((k.kind, k.text) for k in item.known_translations) == [
            ("bad", "Her man came."), ("good", "Her husband came."), ("good", "Her spouse came.")]
        assert [(r.kind, r.text) for r in item.references] == [("standard", "Her husband came.")]


def test_generic_csv_and_xlsx_read_alike(db: Database, tmp_path: Path) -> None:
    csv_text = 'id,category,phenomenon,source,positive_regex\nx1,Ambiguity,Lexical,"Ihr Mann, sagte sie.",husband\n'
    import_suite(db, write(tmp_path / "c.csv", csv_text), source_lang="de", target_lang="en")
    workbook = Workbook()
    sheet = workbook.active
    sheet.append(["id", "category", "phenomenon", "source", "positive_regex", "negative_regex"])
    sheet.append([1001, "Ambiguity", "Lexical", "Ihr Mann, sagte sie.", "husband"])
    sheet.append([1002, "Ambiguity", "Lexical", "", "husband"])
    workbook.save(tmp_path / "x.xlsx")
    with pytest.raises(InputFileError) as excinfo:
        import_suite(db, tmp_path / "x.xlsx", source_lang="de", target_lang="en")
    assert problems_of(excinfo) == [f"{tmp_path / 'x.xlsx'}:3: empty source"]
    sheet.delete_rows(3)
    workbook.save(tmp_path / "x.xlsx")
    import_suite(db, tmp_path / "x.xlsx", source_lang="de", target_lang="en")
    with db.session() as session:
        assert sorted(session.execute(select(Suite.name, Item.external_id, Item.source).join(Item.suite))) == [
            ("c", "x1", "Ihr Mann, sagte sie."), ("x", "1001", "Ihr Mann, sagte sie.")]


@pytest.mark.parametrize(("text", "expected"), [
    (GENERIC_TSV.replace("bad_translations", "bad_translation"),
     ":1: unknown column(s) 'bad_translation'; expected id, category, phenomenon, source and optionally "
     "positive_regex, negative_regex, flags, reference, reference_kinds, reference_sets, good_translations, "
     "bad_translations, comment"),
    (GENERIC_TSV.replace("\tSource", ""), ":1: missing column(s) source in the header"),
    (GENERIC_TSV.replace("a2\tNegation", "a1\tNegation"), ":4: duplicate item id 'a1' (first at line 2)"),
    (GENERIC_TSV.replace("\t\t\t\t\n", "\t\t\n"),
     ":4: expected 9 fields (id, category, phenomenon, source, positive_regex, negative_regex, reference, "
     "good_translations, bad_translations), found 7"),
    (GENERIC_TSV.replace("a2\tNegation\tFuture", "a2\tNegation\t"), ":4: empty phenomenon"),
])
def test_generic_table_malformed_file_is_rejected_and_changes_nothing(db: Database, tmp_path: Path, text: str,
                                                                      expected: str) -> None:
    small_suite(db, tmp_path)
    before = snapshot(db)
    path = write(tmp_path / "bad.tsv", text)
    with pytest.raises(InputFileError) as excinfo:
        import_suite(db, path, source_lang="de", target_lang="en")
    assert problems_of(excinfo) == [f"{path}{expected}"]
    assert snapshot(db) == before


def test_table_without_languages_leaves_them_unknown_until_set(db: Database, tmp_path: Path) -> None:
    path = write(tmp_path / "mini.tsv", GENERIC_TSV)
    result = import_suite(db, path)
    assert [str(w) for w in result.warnings] == [
        f"{path}:1: the file does not name the languages of suite 'mini': they are unknown until they are set"]
    assert suite_info(db) == SuiteInfo("mini", None, None)
    with db.session() as session:
        assert session.execute(select(Suite.source_lang, Suite.target_lang)).one() == ("", "")
    assert set_languages(db, "DE", None, author="ada") == SuiteInfo("mini", "de", None)
    # An update that names the languages fills in the unknown one and must agree with the known one.
    with pytest.raises(TsqeError, match="suite 'mini' is de-\\?, the file is en-fr"):
        import_suite(db, path, update=True, source_lang="en", target_lang="fr")
    import_suite(db, path, update=True, source_lang="de", target_lang="en")
    assert suite_info(db) == SuiteInfo("mini", "de", "en")
    with pytest.raises(TsqeError, match="source language 'de en' is not a language code"):
        set_languages(db, "de en", "fr", author="ada")
    assert rename_suite(db, "mini-de-en", author="bob") == SuiteInfo("mini-de-en", "de", "en")


def test_renaming_a_suite_and_setting_its_languages_are_in_its_history(any_db: Database, tmp_path: Path) -> None:
    import_suite(any_db, write(tmp_path / "mini.tsv", GENERIC_TSV))
    set_languages(any_db, "de", None, author="ada")
    set_languages(any_db, "de", None, author="ada")  # nothing changes: nothing to record
    rename_suite(any_db, "mini", author="ada")
    set_languages(any_db, None, "EN", suite_name="mini", author="bob")
    rename_suite(any_db, "mini-de-en", author="cleo")
    with pytest.raises(TsqeError, match="an edit needs its author's name"):
        rename_suite(any_db, "other", author=" ")
    history = suite_history(any_db, "mini-de-en")
    assert [(h.entity, h.action, h.author, h.before, h.after) for h in history] == [
        ("suite", "rename", "cleo", {"name": "mini"}, {"name": "mini-de-en"}),
        ("suite", "change", "bob", {"source_lang": "de", "target_lang": None},
         {"source_lang": "de", "target_lang": "en"}),
        ("suite", "change", "ada", {"source_lang": None, "target_lang": None},
         {"source_lang": "de", "target_lang": None}),
    ]
    assert {h.entity_id for h in history} == {suite_info_id(any_db)}


def test_existing_name_needs_update(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    before = snapshot(db)
    with pytest.raises(TsqeError, match="a suite named 'de-en' exists already"):
        import_suite(db, tmp_path / "de-en" / "items.json")
    with pytest.raises(TsqeError, match=r"items.json is de-en \(langpair\), not en-de"):
        import_suite(db, tmp_path / "de-en" / "items.json", update=True, source_lang="en", target_lang="de")
    english = write(tmp_path / "en" / "items.json", SUITE_JSON.replace('"deen"', '"ende"'))
    with pytest.raises(TsqeError, match="suite 'de-en' is de-en, the file is en-de"):
        import_suite(db, english, name="de-en", update=True)
    assert snapshot(db) == before


def test_update_changes_only_what_changed_and_keeps_outputs_and_labels(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    with db.transaction() as session:
        output_id = session.scalar(select(Output.id).join(Item).where(Item.external_id == "3").limit(1))
        session.add(ManualLabel(output_id=output_id, label="pass", reviewer="ann"))
    with db.session() as session:
        rule_ids_before = dict(session.execute(select(Rule.pattern, Rule.id)).all())
    changed = (SUITE_JSON.replace('"positive_regex": "will run"', '"positive_regex": "will (run|jog)"')
               .replace('{"id": "1", ', '{"id": "4", ')  # item 1 is no longer in the file; item 4 is new
               )
    result = import_suite(db, write(tmp_path / "v2" / "de-en" / "items.json", changed), update=True)
    assert {k: result.counts[k] for k in ("items_added", "items_updated", "items_unchanged", "items_removed")} == {
        "items_added": 1, "items_updated": 1, "items_unchanged": 1, "items_removed": 0}
    with db.session() as session:
        positions = dict(session.execute(select(Item.external_id, Item.position)).all())
        assert positions == {"4": 0, "2": 1, "3": 2, "1": 3}  # file order, then the kept item
        rule_ids = dict(session.execute(select(Rule.pattern, Rule.id)).all())
        assert rule_ids["(won't|will not) run"] == rule_ids_before["(won't|will not) run"]  # untouched
        assert "will run" not in rule_ids and "will (run|jog)" in rule_ids
        assert session.scalar(select(func.count()).select_from(Output)) == 7
        assert session.scalar(select(ManualLabel.label)) == "pass"

    result = import_suite(db, tmp_path / "v2" / "de-en" / "items.json", update=True, remove_missing=True)
    assert result.counts["items_removed"] == 1 and result.counts["outputs_removed"] == 2
    with db.session() as session:
        assert sorted(session.scalars(select(Item.external_id))) == ["2", "3", "4"]
        assert session.scalar(select(func.count()).select_from(Output)) == 5


def test_update_moves_item_to_other_category_and_drops_empty_ones(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path, outputs=False)
    moved = SUITE_JSON.replace('"category": "Negation"', '"category": "Verb tense"')
    result = import_suite(db, write(tmp_path / "v2" / "de-en" / "items.json", moved), update=True)
    assert result.counts["items_updated"] == 1
    with db.session() as session:
        assert sorted(session.scalars(select(Category.name))) == ["Ambiguity", "Verb tense"]
        assert session.scalar(select(func.count()).select_from(Phenomenon)) == 2
        assert session.scalar(select(func.count()).select_from(KnownTranslation)) == 2
        assert session.scalar(select(func.count()).select_from(Reference)) == 0


TABLE_WITH_LISTS = (
    "id\tcategory\tphenomenon\tsource\tpositive_regex\tnegative_regex\tflags\treference\treference_kinds\t"
    "good_translations\n"
    "t1\tA\tB\tDie Bank.\t\\bbench\\b |||  park\tBANK\ti |||  ||| i\tThe bench. ||| A bench.\t ||| paraphrase\t"
    "The bench. ||| The seat.\n"
    "t2\tA\tB\tDas Schloss.\tlock\t\t\tThe lock.\t\t\n"
)


def test_table_cells_hold_several_rules_flags_and_reference_kinds(db: Database, tmp_path: Path) -> None:
    import_suite(db, write(tmp_path / "lists.tsv", TABLE_WITH_LISTS), source_lang="de", target_lang="en")
    with db.session() as session:
        first, second = session.scalars(select(Item).order_by(Item.position)).all()
        assert [(r.polarity, r.pattern, r.ignore_case, r.position) for r in first.rules] == [
            ("positive", r"\bbench\b", True, 0), ("positive", " park", False, 1), ("negative", "BANK", True, 2)]
        assert [(r.kind, r.text) for r in sorted(first.references, key=lambda r: r.id)] == [
            ("standard", "The bench."), ("paraphrase", "A bench.")]
        assert sorted(k.text for k in first.known_translations) == ["The bench.", "The seat."]
        assert [(r.pattern, r.ignore_case) for r in second.rules] == [("lock", False)]
        assert [(r.kind, r.text) for r in second.references] == [("standard", "The lock.")]


def test_strict_refuses_patterns_that_do_not_compile(db: Database, tmp_path: Path) -> None:
    path = write(tmp_path / "s.json", SUITE_JSON.replace('"will run"', '"will (run"'))
    with pytest.raises(InputFileError) as excinfo:
        import_suite(db, path, strict=True)
    assert problems_of(excinfo) == [
        f"{path}:3: positive regex 'will (run' of item '2': pattern does not compile at position 9: missing )"]
    assert snapshot(db)["suites"] == []


@pytest.mark.parametrize(("replace", "expected"), [
    ('"positive_regex": "husband"', '"positive_regex": ["husband", ""]'),
    ('"positive_regex": "husband"', '"positive_regex": "husband", "positive_ignore_case": [1]'),
    ('"positive_regex": "husband"', '"positive_regex": "husband", "references": ["Her husband came."]'),
])
def test_dfki_extensions_are_checked(db: Database, tmp_path: Path, replace: str, expected: str) -> None:
    path = write(tmp_path / "s.json", SUITE_JSON.replace(replace, expected))
    with pytest.raises(InputFileError) as excinfo:
        import_suite(db, path)
    assert problems_of(excinfo)[0].startswith(f"{path}:2: ")
    assert snapshot(db)["suites"] == []


def test_dfki_extensions_are_read(db: Database, tmp_path: Path) -> None:
    path = write(tmp_path / "s.json", SUITE_JSON.replace(
        '"positive_regex": "husband"',
        '"positive_regex": ["husband", "spouse"], "positive_ignore_case": [false, true], '
        '"references": [{"text": "Her husband came."}, {"text": "Her spouse came.", "kind": "formal"}]'))
    import_suite(db, path)
    with db.session() as session:
        item = session.scalar(select(Item).where(Item.external_id == "1"))
        assert item is not None
        assert [(r.polarity, r.pattern, r.ignore_case) for r in item.rules] == [
            ("positive", "husband", False), ("positive", "spouse", True), ("negative", r"\bman\b", False)]
        assert [(r.kind, r.text) for r in sorted(item.references, key=lambda r: r.id)] == [
            ("standard", "Her husband came."), ("formal", "Her spouse came.")]


def suite_info_id(db: Database) -> int:
    with db.session() as session:
        return session.scalar(select(Suite.id)) or 0


def test_a_language_pair_as_a_person_types_it() -> None:
    """What the window asks for when a suite table does not name its languages."""
    assert split_language_pair(" DE - en ") == ("de", "en")
    assert split_language_pair("eng-deu") == ("eng", "deu")
    for wrong in ("deen", "de en", "de-en-us", "d-en", ""):
        with pytest.raises(TsqeError, match="languages are written like de-en"):
            split_language_pair(wrong)
