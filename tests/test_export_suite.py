"""A suite written by ``export_suite`` imports back to the same items, in every layout."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select, update

from store import Database, open_database
from store.models import Item, KnownTranslation, Reference, Rule, Suite
from suite.demo import DEMO_SUITE, create_demo
from suite.errors import TsqeError
from suite.exporters.suite_file import export_suite
from suite.importers import import_suite


def enrich_demo(db: Database) -> None:
    """The demo plus everything a suite file must carry: ignore-case rules, several rules per polarity,
    references of several kinds and sets, known translations, comments and awkward texts."""
    with db.transaction() as session:
        items = {external_id: id_ for external_id, id_ in session.execute(select(Item.external_id, Item.id))}
        session.execute(update(Rule).where(Rule.item_id == items["amb-01"], Rule.polarity == "negative")
                        .values(ignore_case=True))
        session.execute(insert(Rule), [
            {"item_id": items["amb-01"], "polarity": "positive", "pattern": r"\bseat\b", "ignore_case": True,
             "valid": True, "position": 5},
            {"item_id": items["amb-01"], "polarity": "positive", "pattern": " park bench", "ignore_case": False,
             "valid": True, "position": 6},
            {"item_id": items["amb-02"], "polarity": "negative", "pattern": r"\bpalace\b", "ignore_case": True,
             "valid": True, "position": 7},
            {"item_id": items["amb-02"], "polarity": "negative", "pattern": "=castle", "ignore_case": False,
             "valid": True, "position": 8},
        ])
        session.execute(insert(Reference), [
            {"item_id": items["amb-01"], "text": "The riverside bench had just been painted.", "kind": "paraphrase"},
            {"item_id": items["amb-01"], "text": "Frisch gestrichen: die Bank.", "kind": "back-translation"},
            {"item_id": items["amb-02"], "text": "The garden gate's lock sticks again.", "kind": "paraphrase"},
            {"item_id": items["amb-02"], "text": "The lock of the garden gate jams again.", "kind": "standard",
             "set_name": "ar"},
            {"item_id": items["amb-03"], "text": "She put the bouquet into a vase.", "kind": "paraphrase",
             "set_name": "wmt.p"},
        ])
        session.execute(insert(KnownTranslation), [
            {"item_id": items["amb-01"], "kind": "good", "text": "The bench by the river was freshly painted."},
            {"item_id": items["amb-01"], "kind": "good", "text": "The \"bench\"\tby the river, painted."},
            {"item_id": items["amb-01"], "kind": "bad", "text": "The bank on the riverbank was freshly painted."},
        ])
        session.execute(update(Item).where(Item.id == items["amb-02"])
                        .values(comment="lock vs. castle;\nsee the Duden entry"))
        session.execute(update(Item).where(Item.id == items["amb-03"])
                        .values(source="  Sie stellte den Strauß\tin eine Vase."))


def contents(db: Database, suite_name: str) -> list[tuple[Any, ...]]:
    """Everything a suite file carries about each item, in suite order."""
    with db.session() as session:
        suite = session.scalar(select(Suite).where(Suite.name == suite_name))
        assert suite is not None
        return [(
            item.external_id, item.phenomenon.category.name if item.phenomenon else None,
            item.phenomenon.name if item.phenomenon else None, item.source, item.comment,
            [(r.polarity, r.pattern, r.ignore_case, r.valid, r.error)
             for r in sorted(item.rules, key=lambda r: (r.polarity != "positive", r.position, r.id))],
            [(r.kind, r.text, r.set_name) for r in sorted(item.references, key=lambda r: r.id)],
            [(k.kind, k.text) for k in sorted(item.known_translations, key=lambda k: (k.kind != "good", k.id))],
        ) for item in suite.items]


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".xlsx", ".json"])
def test_import_export_import_is_lossless(db: Database, tmp_path: Path, suffix: str) -> None:
    create_demo(db)
    enrich_demo(db)
    before = contents(db, DEMO_SUITE)
    assert sum(len(item[5]) for item in before) > len(before)  # the demo really has rules
    first = tmp_path / f"first{suffix}"
    assert export_suite(db, first) == len(before)

    again = open_database(tmp_path / "again.sqlite")
    try:
        import_suite(again, first, name="copy", source_lang="de", target_lang="en")
        assert contents(again, "copy") == before
        second = tmp_path / f"second{suffix}"
        export_suite(again, second)
        if suffix != ".xlsx":  # a workbook holds timestamps; its cells are compared through the import above
            assert second.read_bytes() == first.read_bytes()
    finally:
        again.close()


def test_json_keeps_the_dfki_layout_where_items_fit_it(db: Database, tmp_path: Path) -> None:
    create_demo(db)
    enrich_demo(db)
    path = tmp_path / "suite.json"
    export_suite(db, path)
    items = {item["id"]: item for item in json.loads(path.read_text(encoding="utf-8"))["items"]}
    assert set(items["amb-04"]) == {"id", "langpair", "category", "phenomenon", "source_sentence", "positive_regex",
                                    "negative_regex", "positive_tokens", "negative_tokens", "references"}
    assert items["amb-04"]["langpair"] == "de-en"
    assert items["amb-01"]["positive_regex"] == [r"\bbench\b", r"\bseat\b", " park bench"]
    assert items["amb-01"]["positive_ignore_case"] == [False, True, False]
    assert items["amb-01"]["negative_ignore_case"] == [True]


def test_real_dfki_suite_round_trips_through_json_and_tsv(db: Database, tmp_path: Path, shared_data: Path) -> None:
    import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    before = contents(db, "de-en")
    for suffix in (".json", ".tsv"):
        path = tmp_path / f"dfki{suffix}"
        assert export_suite(db, path) == 2767
        again = open_database(tmp_path / f"again{suffix}.sqlite")
        try:
            import_suite(again, path, name="de-en", source_lang="de", target_lang="en")
            assert contents(again, "de-en") == before
        finally:
            again.close()


def test_what_a_layout_cannot_hold_is_refused_before_writing(db: Database, tmp_path: Path) -> None:
    create_demo(db)
    with db.transaction() as session:
        item_id = session.scalar(select(Item.id).where(Item.external_id == "amb-01"))
        session.execute(update(Rule).where(Rule.item_id == item_id, Rule.polarity == "positive")
                        .values(pattern="bench ||| seat"))
    with pytest.raises(TsqeError, match=r"positive pattern of item 'amb-01' \('bench \|\|\| seat'\) cannot be"):
        export_suite(db, tmp_path / "s.tsv")
    assert not (tmp_path / "s.tsv").exists()
    export_suite(db, tmp_path / "s.json")  # JSON lists patterns, so the separator is no problem there
    with pytest.raises(TsqeError, match="unknown suite format '\\.txt'"):
        export_suite(db, tmp_path / "s.txt")
    with db.transaction() as session:
        session.execute(update(Suite).values(source_lang=""))
    with pytest.raises(TsqeError, match="languages of suite 'tsqe-demo-de-en' are unknown"):
        export_suite(db, tmp_path / "t.json")


def test_cli_export_suite_and_suite_edit(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app
    db = str(tmp_path / "t.sqlite")

    def tsqe(*args: str) -> Any:
        return CliRunner().invoke(app, ["--db", db, *args])

    assert tsqe("demo").exit_code == 0
    path = tmp_path / "demo.xlsx"
    result = tsqe("export", "suite", str(path))
    assert result.exit_code == 0 and result.stdout == f"wrote 78 items to {path}\n"
    result = tsqe("--suite", DEMO_SUITE, "suite", "edit", "--name", "original")
    assert result.exit_code == 0 and result.stdout == "suite 'original': de -> en\n"
    result = tsqe("import", "suite", str(path))
    assert result.exit_code == 0
    assert "the file does not name the languages of suite 'demo': they are unknown" in result.stderr
    result = tsqe("--suite", "demo", "status")
    assert "(? -> ?)" in result.stdout
    result = tsqe("--suite", "demo", "suite", "edit", "--source-lang", "de", "--target-lang", "en", "--author", "ada")
    assert result.exit_code == 0 and result.stdout == "suite 'demo': de -> en\n"
    result = tsqe("--suite", "demo", "history")  # without an item: the edits of the suite itself
    assert result.exit_code == 0 and result.stdout.splitlines()[1:] == ["    source lang: — → de · target lang: — → en"]
    assert result.stdout.split()[2:5] == ["ada", "change", "suite"]
    result = tsqe("--suite", "demo", "suite", "edit", "--source-lang", "Deutsch!")
    assert result.exit_code == 2 and "error: source language 'Deutsch!' is not a language code" in result.stderr
