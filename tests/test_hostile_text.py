"""Text is kept whole (issue 27): a segment with inline markup keeps every word, an entity whose text cannot be
read and a segment id that is not a number are refused with their line, and a NUL or a lone surrogate in any input
is refused with its position, never stored.

The hostile files are in ``tests/data/text``; each refusal exits 2, names the file and the line, and leaves every
table as it was.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hostile_helpers import make_demo_file, rows_of, tsqe, unchanged
from sqlalchemy import select

from store import open_database
from store.models import Item, Output, Reference, System, SystemOutput
from suite.importers.characters import json_escape, unstorable

TEXT = Path(__file__).parent / "data" / "text"


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_file(tmp_path_factory)


def refused(db: Path, *args: str) -> str:
    return unchanged(db, tsqe(db, *args), rows_of(db))


def stored(db: Path) -> tuple[list[str], dict[str, set[str]], list[str]]:
    """Sources, each system's outputs and the references of the database."""
    database = open_database(db)
    try:
        with database.session() as session:
            outputs: dict[str, set[str]] = {}
            for name, text in session.execute(select(System.name, Output.text)
                                              .join(SystemOutput, SystemOutput.system_id == System.id)
                                              .join(Output, Output.id == SystemOutput.output_id)):
                outputs.setdefault(name, set()).add(text)
            return (list(session.scalars(select(Item.source).order_by(Item.id))), outputs,
                    list(session.scalars(select(Reference.text).order_by(Reference.id))))
    finally:
        database.close()


def returned_map(demo_file: Path, tmp_path: Path) -> tuple[Path, Path]:
    db = Path(shutil.copy(demo_file, tmp_path / "t.sqlite"))
    code, stderr = tsqe(db, "export", "testsuite-submission", str(tmp_path / "sent"))
    assert code == 0, stderr
    [map_file] = (tmp_path / "sent").glob("*.map.tsv")
    return db, map_file


# --- WMT XML: the segment's whole text, or a refusal with its line ------------------------------------------------

def test_inline_markup_in_a_wmt_xml_segment_keeps_every_word(tmp_path: Path) -> None:
    """``<seg>Hello <b>big</b> wide world.</seg>`` was stored as "Hello"; now its full text content, with a warning
    that counts the segments read so."""
    db, path = tmp_path / "t.sqlite", TEXT / "wmt_markup.xml"
    code, stderr = tsqe(db, "import", "wmt", "--xml", str(path), "--name", "t")
    assert code == 0, stderr
    sources, outputs, references = stored(db)
    assert sources == ["Hallo große weite Welt."]
    assert outputs == {"sys1": {"Hello big wide world."}}
    assert references == ["That is good."]
    assert (f"{path}:4: warning: 2 segment(s) hold markup (the first <b> here); read as their text content, every "
            f"word kept and the tags left out") in stderr


@pytest.mark.parametrize(("name", "line", "message"), [
    ("wmt_external_dtd.xml", 2, "the file's DOCTYPE names an external DTD ('wmt.dtd'), which tsqe does not read; "
                                "refused, since the entities it defines would be lost (WMT's XML has no DOCTYPE)"),
    ("wmt_external_dtd_parameter.xml", 3, "the file declares an entity ('defs'), which WMT's XML never does"),
    ("wmt_undefined_entity.xml", 4, "not well-formed XML: undefined entity (column 43)"),
    ("wmt_seg_id_superscript.xml", 4, "document 'd1': a <seg> needs a positive number as its id, not '²'"),
    ("wmt_seg_id_huge.xml", 4, "document 'd1': a <seg> needs a positive number as its id, not '99999"),
    ("wmt_nul_reference.xml", 4, "not well-formed XML: reference to invalid character number (column 46)"),
    ("wmt_surrogate_reference.xml", 4, "not well-formed XML: reference to invalid character number (column 46)"),
])
def test_a_wmt_xml_text_that_cannot_be_read_whole_is_refused_with_its_line(tmp_path: Path, name: str, line: int,
                                                                           message: str) -> None:
    """An external DTD's entity was silently dropped (``Das ist`` stored, exit 0), and an id of superscript or
    5,000 digits ended in "this is a bug"."""
    path = TEXT / name
    stderr = refused(tmp_path / "t.sqlite", "import", "wmt", "--xml", str(path), "--name", "t")
    assert stderr.startswith(f"error: {path}:{line}: {message}")


def test_a_returned_submission_keeps_the_whole_text_of_a_marked_up_segment(demo_file: Path, tmp_path: Path) -> None:
    db, map_file = returned_map(demo_file, tmp_path)
    path = TEXT / "submission_markup.xml"
    code, stderr = tsqe(db, "import", "outputs", str(path), "--map", str(map_file))
    assert code == 0, stderr
    assert stored(db)[1]["Marked-MT"] == {"The bench on the river bank was freshly painted."}


@pytest.mark.parametrize(("name", "message"), [
    ("submission_seg_id_superscript.xml",
     "5: document 'tsqe-demo-de-en-amb-01': a <seg> needs a positive number as its id, not '¹'"),
    ("submission_external_dtd.xml", "2: the file's DOCTYPE names an external DTD ('http://example.org/wmt.dtd')"),
])
def test_a_returned_submission_that_cannot_be_read_whole_is_refused(demo_file: Path, tmp_path: Path, name: str,
                                                                    message: str) -> None:
    db, map_file = returned_map(demo_file, tmp_path)
    path = TEXT / name
    stderr = refused(db, "import", "outputs", str(path), "--map", str(map_file))
    assert stderr.startswith(f"error: {path}:{message}")


# --- NUL and lone surrogates, in every format -----------------------------------------------------------------------

NUL = "a NUL character, which no sentence holds"


@pytest.mark.parametrize(("name", "args", "where", "message"), [
    ("demetr_nul.json", ("import", "challenge", "{file}", "--format", "demetr"), "20",
     r"column 24: a NUL character written \u0000, which no sentence holds"),
    ("demetr_lone_surrogate.json", ("import", "challenge", "{file}", "--format", "demetr"), "7",
     r"column 34: half of a surrogate pair (U+D83D) alone written \ud83d, which no sentence holds"),
    ("suite_nul_escape.json", ("import", "suite", "{file}"), "5",
     r"column 34: a NUL character written \u0000, which no sentence holds"),
    ("suite_lone_low_surrogate.json", ("import", "suite", "{file}"), "3",
     r"column 32: half of a surrogate pair (U+DC00) alone written \udc00, which no sentence holds"),
    ("outputs_nul.txt", ("import", "outputs", "{file}", "--system", "Nul-MT"), "2", f"column 7: {NUL}"),
    ("references_nul.tsv", ("import", "references", "{file}", "--name", "nul"), "3", f"column 11: {NUL}"),
    ("suite_nul_cell.xlsx", ("import", "suite", "{file}", "--source-lang", "de", "--target-lang", "en"), "",
     "not a valid XLSX workbook (reference to invalid character number: line 1, column 851)"),
    ("mtme_nul", ("import", "mtme", "{file}", "--lp", "de-en"), "system-outputs/de-en/sysB.txt:3",
     f"column 11: {NUL}"),
])
def test_a_nul_or_lone_surrogate_is_refused_with_its_position(demo_file: Path, tmp_path: Path, name: str,
                                                              args: tuple[str, ...], where: str,
                                                              message: str) -> None:
    """DEMETR's and DFKI's JSON stored ``\\u0000`` and ``\\ud83d`` as they decode (a text PostgreSQL cannot store
    and tsqe's own export cannot write); every other format is held to the same check."""
    db = Path(shutil.copy(demo_file, tmp_path / "t.sqlite"))
    path = TEXT / name
    stderr = refused(db, *(str(path) if arg == "{file}" else arg for arg in args))
    location = f"{path}/{where}" if path.is_dir() else f"{path}:{where}" if where else str(path)
    assert stderr.startswith(f"error: {location}: {message}")


def test_a_surrogate_pair_and_an_escaped_backslash_are_kept(tmp_path: Path) -> None:
    """``\\ud83d\\ude00`` is one character (an emoji), and ``\\\\u0000`` is a backslash and the text u0000."""
    db = tmp_path / "t.sqlite"
    code, stderr = tsqe(db, "import", "challenge", str(TEXT / "demetr_pair_and_backslash.json"), "--format", "demetr")
    assert code == 0, stderr
    assert {"The translation \U0001F600 1.", "C:\\u0000 path."} <= set().union(*stored(db)[1].values())


def test_the_one_check_finds_each_unstorable_character_where_it_stands() -> None:
    assert unstorable("fine\ntext") is None and json_escape('"\\\\u0000 \\ud83d\\ude00"') is None
    found = unstorable("one\ntw\x00o")
    assert found is not None and (found.line, found.column, found.what) == (2, 3, "a NUL character")
    lone = json_escape('["ok",\n "\\ud83d\\ud83d\\ude00"]')
    assert lone is not None and (lone.line, lone.column) == (2, 3)
