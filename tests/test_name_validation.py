"""One validation of every name at import (issue 27, ``store.names``): systems, QE systems, suites, reference sets
and reviewers are refused when longer than their column on every database (a 200,000-character system name was
kept by SQLite and "this is a bug" on PostgreSQL), refused with the file and line when they hold a control
character, and stripped of blanks around them with a word in the import's summary."""
from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import SUITE_JSON, small_suite, snapshot, write
from reviewing import review_output
from sqlalchemy import select
from typer.testing import CliRunner

from cli.main import app
from store import Database
from store.domain import Label, NameKind
from store.models import ManualLabel, QESystem, Reference, Suite, System
from store.names import BadName, check_name, name_length
from suite.editing.review import reviewer_name
from suite.errors import InputFileError, TsqeError
from suite.importers import import_outputs, import_qe_scores, import_reviews, import_suite
from suite.importers.challenge import import_challenge
from suite.importers.mtme import import_mtme
from suite.importers.wmt import import_wmt_xml

DATA = Path(__file__).parent / "data" / "hostile_names"
HUGE = "x" * 200_000
"""Generated, not a file: a system name of 200,000 characters."""


@pytest.fixture
def db(any_db: Database) -> Database:
    """Every test of this module that takes a database runs on SQLite and on PostgreSQL."""
    return any_db


def test_the_limits_are_the_columns() -> None:
    assert {kind: name_length(kind) for kind in NameKind} == {
        NameKind.SYSTEM: 200, NameKind.QE_SYSTEM: 200, NameKind.SUITE: 200, NameKind.REFERENCE_SET: 100,
        NameKind.REVIEWER: 200}
    assert check_name("  sysA ", NameKind.SYSTEM).text == "sysA"
    assert check_name("a" * 200, NameKind.SYSTEM).note is None
    for bad in ("a\x1b[31mb", "bell\x07", "nul\x00", "line\nbreak", "tab\t", "sep\u2028", "lone\ud800", "",
                "   ", "a" * 201):
        with pytest.raises(BadName):
            check_name(bad, NameKind.SYSTEM)
    assert check_name("zwj\u200dok", NameKind.SYSTEM).text == "zwj\u200dok"  # a format character some scripts need


def test_a_200000_character_system_name_is_refused_with_its_line_on_every_database(db: Database,
                                                                                    tmp_path: Path) -> None:
    small_suite(db, tmp_path, outputs=False)
    before = snapshot(db)
    xml = write(tmp_path / "huge.xml", (DATA / "tab_system.xml").read_text(encoding="utf-8").replace(
        "bad&#9;name", HUGE))
    with pytest.raises(InputFileError) as refused:
        import_wmt_xml(db, [xml], name="nt")
    assert f"{xml}:19: the system name 'xxxx" in str(refused.value)
    assert "has 200,000 characters; a system name holds at most 200" in str(refused.value)
    assert "bug" not in str(refused.value)
    path = write(tmp_path / "o.tsv", f"item_id\tsystem\toutput\n1\tA\tok\n2\t{'x' * 5_000}\tHe will run.\n")
    with pytest.raises(InputFileError, match="o.tsv:3: the system name 'xxx.*has 5,000 characters"):
        import_outputs(db, path)
    assert snapshot(db) == before


def test_a_control_character_in_a_system_name_is_refused_with_its_line(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path, outputs=False)
    before = snapshot(db)
    path = write(tmp_path / "o.tsv", "item_id\tsystem\toutput\n1\tA\tok\n2\tevil\x1b]0;owned\x07\tHe will run.\n")
    with pytest.raises(InputFileError) as refused:
        import_outputs(db, path)
    assert f"{path}:3: the system name 'evil\\x1b]0;owned\\x07' holds the control character U+001B" in str(
        refused.value)
    assert snapshot(db) == before
    with pytest.raises(InputFileError, match=r"tab_system.xml:19: the system name 'bad\\tname' holds the control "
                                             r"character U\+0009"):
        import_wmt_xml(db, [DATA / "tab_system.xml"], name="nt")
    assert snapshot(db) == before


def test_blanks_around_a_system_name_are_stripped_and_said(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path, outputs=False)
    result = import_outputs(db, write(tmp_path / "o.tsv", "item_id\tsystem\toutput\n1\t sysA \tok\n2\tsysA\tyes\n"))
    with db.session() as session:
        assert list(session.scalars(select(System.name))) == ["sysA"]
    assert any("spaces around them" in warning.message for warning in result.warnings)


def test_qe_system_names_are_checked(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    scores = write(tmp_path / "qe.tsv", "item_id\tsystem\tscore\n1\tA\t0.5\n")
    before = snapshot(db)
    with pytest.raises(TsqeError, match="the QE system name 'xxx.*has 200,000 characters; a QE system name holds "
                                        "at most 200"):
        import_qe_scores(db, scores, name=HUGE)
    with pytest.raises(TsqeError, match="holds the control character U\\+001B"):
        import_qe_scores(db, scores, name="q\x1b[2J")
    assert snapshot(db) == before
    result = import_qe_scores(db, scores, name="  comet  ")
    assert [w.message for w in result.warnings] == ["blanks around the name '  comet  ' were removed: stored as "
                                                    "'comet'"]
    with db.session() as session:
        assert list(session.scalars(select(QESystem.name))) == ["comet"]


def test_suite_names_are_checked_by_every_importer(db: Database, tmp_path: Path) -> None:
    table = "id\tsource\treference\tgood\tbad\tcategory\tphenomenon\na\tEr kam.\tHe came.\tHe came.\tHe comes.\tx\ty\n"
    challenge = write(tmp_path / "set.tsv", table)
    items = write(tmp_path / "items.json", SUITE_JSON)
    before = snapshot(db)
    for name in (HUGE, "suite\x07", "\n"):
        with pytest.raises(TsqeError, match="suite name"):
            import_challenge(db, challenge, "contrastive-tsv", name=name)
        with pytest.raises(TsqeError, match="suite name"):
            import_suite(db, items, name=name)
        with pytest.raises(TsqeError, match="suite name"):
            import_wmt_xml(db, [DATA / "dotdot.xml"], name=name)
    assert snapshot(db) == before
    result = import_challenge(db, challenge, "contrastive-tsv", name=" spaced ")
    assert result.warnings[0].message == "blanks around the name ' spaced ' were removed: stored as 'spaced'"
    with db.session() as session:
        assert list(session.scalars(select(Suite.name))) == ["spaced"]


def test_an_mtme_folder_naming_a_system_with_a_control_character_is_refused(db: Database, tmp_path: Path) -> None:
    files = {"sources/de-en.txt": "Das ist gut.\n", "references/de-en.r.txt": "That is good.\n",
             "system-outputs/de-en/ok.txt": "This is good.\n", "system-outputs/de-en/b\x07d.txt": "Good.\n"}
    for name, text in files.items():
        write(tmp_path / "in" / name, text)
    before = snapshot(db)
    with pytest.raises(InputFileError, match=r"b\x07d.txt: the system name 'b\\x07d' holds the control character"):
        import_mtme(db, tmp_path / "in", lp="de-en")
    assert snapshot(db) == before


def test_reviewer_names_are_checked_in_the_file_the_command_and_the_core(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    before = snapshot(db)
    labels = write(tmp_path / "l.tsv", "item_id\tsystem\tlabel\treviewer\n1\tA\tpass\tada\n2\tA\tfail\tbob\x1b[8m\n")
    with pytest.raises(InputFileError, match=r"l.tsv:3: the reviewer name 'bob\\x1b\[8m' holds the control character"):
        import_reviews(db, labels)
    assert snapshot(db) == before
    with db.session() as session:
        output_id = session.scalar(select(ManualLabel.output_id)) or 1
    for bad in (HUGE, "eve\x07"):
        with pytest.raises(BadName, match="reviewer name"):
            review_output(db, output_id, Label.PASS, bad)
    assert snapshot(db) == before
    assert reviewer_name("  ada ") == "ada"
    with pytest.raises(BadName, match="needs the reviewer's name"):
        reviewer_name("  ")


def test_the_review_command_refuses_a_long_reviewer_name(tmp_path: Path) -> None:
    db_path = tmp_path / "t.sqlite"
    runner = CliRunner()
    assert runner.invoke(app, ["--db", str(db_path), "demo"]).exit_code == 0
    result = runner.invoke(app, ["--db", str(db_path), "review", "1", "pass", "--reviewer", "r" * 300])
    assert result.exit_code == 2, result.output
    assert "the reviewer name 'rrrr" in result.stderr and "has 300 characters; a reviewer name holds at most 200" in (
        result.stderr)


def test_reference_set_names_are_stripped(db: Database, tmp_path: Path) -> None:
    from suite.importers.references import import_references

    small_suite(db, tmp_path)
    refs = write(tmp_path / "refs.tsv", "item_id\ttext\n1\tHer husband came.\n")
    import_references(db, refs, name=" wmt ")
    with db.session() as session:
        assert set(session.scalars(select(Reference.set_name))) == {"wmt"}
    with pytest.raises(TsqeError, match="reference set name 'yyy.*has 200,000 characters"):
        import_references(db, refs, name="y" * 200_000)
