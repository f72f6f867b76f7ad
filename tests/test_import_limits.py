"""Every limit applies to every format before anything is written; hostile workbooks are refused in words.

Files that would take gigabytes are built small here: what matters is that the limit is checked, not how far
a file goes past it. Runs that could exhaust memory on code without the limits go to a bounded child process.
"""
from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

import pytest
from hostile_helpers import bounded_tsqe, make_demo_file, rows_of, tsqe, unchanged
from migration_helpers import at_revision
from sqlalchemy import select, text
from workbooks import MAIN, SUITE_HEADER, write_workbook

from store import open_database
from store.models import AutoLabel, Item, Output, Rule, System
from suite.importers import limits


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_file(tmp_path_factory)


def copy(demo: Path, tmp_path: Path) -> Path:
    return Path(shutil.copy(demo, tmp_path / "t.sqlite"))


# --- workbooks ------------------------------------------------------------------------------------------------

def test_a_shared_string_over_the_field_limit_is_refused_in_every_cell_that_uses_it(tmp_path: Path) -> None:
    """The 426 KB workbook whose one 50 MB shared string filled 20,000 cells, in small: the string once, used by
    many cells, each refused before anything is written (it wrote a 22.9 GB write-ahead log)."""
    huge = "x" * (limits.MAX_FIELD_CHARS + 1)
    book = write_workbook(tmp_path / "huge.xlsx",
                          [SUITE_HEADER] + [[f"x-{n}", "C", "P", "#shared:0", "bench"] for n in range(200)],
                          shared=[huge])
    assert book.stat().st_size < 10_000
    db = tmp_path / "t.sqlite"
    result = bounded_tsqe(db, "import", "suite", str(book))
    assert result.returncode == 2, result.stderr[-500:]
    lines = result.stderr.splitlines()
    assert lines[0] == f"error: {book}:2: D2: a cell is longer than 131,072 characters; this is not a table of " \
                       f"sentences"
    assert len(lines) == limits.SHOWN_PROBLEMS + 1 and lines[-1] == "… and 180 more"
    assert not db.exists() or rows_of(db)["items"] == []


def test_a_formula_without_a_value_is_refused_and_cached_values_are_said(tmp_path: Path) -> None:
    without = write_workbook(tmp_path / "without.xlsx", [SUITE_HEADER, ["x-01", "C", "P", "Die Bank.", "bench"],
                                                         ["x-02", "C", "P", "Das Schloss.", ('LOWER("LOCK")', None)]])
    code, stderr = tsqe(tmp_path / "a.sqlite", "import", "suite", str(without))
    assert code == 2
    assert stderr == (f"error: {without}:3: E3: a formula without a value; save the workbook with values (a "
                      f"spreadsheet program does when it saves)\n")
    cached = write_workbook(tmp_path / "cached.xlsx", [SUITE_HEADER, ["x-01", "C", "P", "Das Schloss.",
                                                                      ('LOWER("LOCK")', "lock")]])
    code, stderr = tsqe(tmp_path / "b.sqlite", "import", "suite", str(cached), "--source-lang", "de",
                        "--target-lang", "en")
    assert code == 0, stderr
    assert (f"{cached}: warning: 1 cell(s) hold a formula (E2); the values they had when the workbook was last "
            f"saved were read") in stderr
    database = open_database(tmp_path / "b.sqlite")
    try:
        with database.session() as session:
            assert session.scalar(select(Rule.pattern)) == "lock"
    finally:
        database.close()


LAUGHS = ('<!DOCTYPE lolz [<!ENTITY lol "lol">'
          + "".join(f'<!ENTITY lol{i} "' + f"&lol{'' if i == 1 else i - 1};" * 10 + '">' for i in range(1, 10))
          + "]>")


@pytest.mark.parametrize("kind", ["billion laughs", "external entity", "broken XML"])
def test_hostile_or_damaged_xml_is_not_a_valid_workbook(kind: str, tmp_path: Path) -> None:
    shared = {"billion laughs": f'<?xml version="1.0"?>{LAUGHS}<sst xmlns="{MAIN}"><si><t>&lol9;</t></si></sst>',
              "external entity": (f'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
                                  f'<sst xmlns="{MAIN}"><si><t>&xxe;</t></si></sst>'),
              "broken XML": "<sst><si>"}[kind]
    book = write_workbook(tmp_path / "x.xlsx", [SUITE_HEADER, ["x", "C", "P", "#shared:0", "b"]], shared_xml=shared)
    result = bounded_tsqe(tmp_path / "t.sqlite", "import", "suite", str(book))
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {book}: not a valid XLSX workbook (") and result.stderr.count("\n") == 1
    assert "root:" not in result.stderr


def test_a_dimension_of_sixteen_thousand_columns_by_a_million_rows_pads_nothing(tmp_path: Path) -> None:
    """openpyxl's read-only sheet padded every row to the declared dimension: 17 billion cells."""
    book = write_workbook(tmp_path / "wide.xlsx", [SUITE_HEADER, ["x-01", "C", "P", "Die Bank.", "bench"]],
                          dimension="A1:XFD1048576")
    result = bounded_tsqe(tmp_path / "t.sqlite", "import", "suite", str(book), "--source-lang", "de",
                          "--target-lang", "en", timeout=60)
    assert result.returncode == 0, result.stderr[-500:]


def test_a_workbook_that_unpacks_past_the_limits_is_refused_before_reading(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    book = write_workbook(tmp_path / "bomb.xlsx", [SUITE_HEADER, ["x", "C", "P", "#shared:0", "b"]],
                          shared=["a" * 3_000_000])
    assert book.stat().st_size < 20_000
    monkeypatch.setattr(limits, "MAX_SHARED_STRINGS_BYTES", 2 * 1024 * 1024)
    from suite.importers import table_files as tables

    monkeypatch.setattr(tables, "MAX_SHARED_STRINGS_BYTES", 2 * 1024 * 1024)
    code, stderr = tsqe(tmp_path / "t.sqlite", "import", "suite", str(book))
    assert code == 2 and stderr == (f"error: {book}: the workbook's shared strings unpack to 2.9 MiB; at most 2 MiB "
                                    f"are read (save it as .tsv)\n")
    monkeypatch.setattr(tables, "MAX_WORKBOOK_BYTES", 1024 * 1024)
    monkeypatch.setattr(tables, "MAX_SHARED_STRINGS_BYTES", 64 * 1024 * 1024)
    code, stderr = tsqe(tmp_path / "t.sqlite", "import", "suite", str(book))
    assert code == 2 and stderr == f"error: {book}: the workbook unpacks to 2.9 MiB; at most 1 MiB are read\n"


# --- text tables ----------------------------------------------------------------------------------------------

def test_a_row_wider_than_any_table_is_refused(demo_file: Path, tmp_path: Path) -> None:
    db = copy(demo_file, tmp_path)
    before = rows_of(db)
    wide = tmp_path / "wide.tsv"
    wide.write_text("item_id\tsystem\toutput\namb-01\tX\t" + "\t" * 100_000 + "\n", encoding="utf-8")
    stderr = unchanged(db, tsqe(db, "import", "outputs", str(wide)), before)
    assert stderr == f"error: {wide}:2: the row has 100,003 fields; a table has at most 64\n"


def test_two_hundred_thousand_identical_rows_print_twenty_problems_and_a_count(tmp_path: Path) -> None:
    rows = limits.MAX_SUITE_ITEMS + 10
    suite = tmp_path / "same.tsv"
    suite.write_text("id\tcategory\tphenomenon\tsource\tpositive_regex\n" + "x-01\tC\tP\tDie Bank.\tbench\n" * rows,
                     encoding="utf-8")
    result = bounded_tsqe(tmp_path / "t.sqlite", "import", "suite", str(suite), timeout=300)
    assert result.returncode == 2
    # an import past 5 s (a loaded machine) also prints plain progress lines ("importing suite: ... (0%, 0:05)")
    lines = [line for line in result.stderr.splitlines() if not line.startswith("importing suite: ")]
    assert lines[0] == (f"error: {suite}:{limits.MAX_SUITE_ITEMS + 2}: the table goes on past "
                        f"{limits.MAX_SUITE_ITEMS:,} rows, the most one file may hold; split it")
    assert lines[1] == f"{suite}:3: duplicate item id 'x-01' (first at line 2)"
    assert len(lines) == limits.SHOWN_PROBLEMS + 1
    assert lines[-1] == f"… and {limits.MAX_SUITE_ITEMS - limits.SHOWN_PROBLEMS:,} more"


def test_a_table_past_the_row_limit_stops_there(demo_file: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from suite.importers import table_files as tables

    monkeypatch.setattr(tables, "MAX_TABLE_ROWS", 5)
    db = copy(demo_file, tmp_path)
    before = rows_of(db)
    outputs = tmp_path / "many.tsv"
    outputs.write_text("item_id\tsystem\toutput\n" + "".join(f"amb-0{n}\tX\tThe bench.\n" for n in range(1, 8)),
                       encoding="utf-8")
    stderr = unchanged(db, tsqe(db, "import", "outputs", str(outputs)), before)
    assert stderr == f"error: {outputs}:7: the table goes on past 5 rows, the most one file may hold; split it\n"


def test_a_file_read_whole_is_bounded_by_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from suite.importers import table_files as tables

    monkeypatch.setattr(tables, "MAX_WHOLE_FILE_BYTES", 1024)
    suite = tmp_path / "big.json"
    suite.write_text('{"items": []}' + " " * 2048, encoding="utf-8")
    code, stderr = tsqe(tmp_path / "t.sqlite", "import", "suite", str(suite))
    assert code == 2 and stderr == f"error: {suite}: the file has 2.0 KiB; at most 1 KiB are read as one text\n"


# --- the same text is the same text ----------------------------------------------------------------------------

def test_an_output_in_nfd_is_the_output_in_nfc_and_matches_an_nfc_pattern(tmp_path: Path) -> None:
    nfc_word, nfd_word = "café", unicodedata.normalize("NFD", "café")
    assert nfc_word != nfd_word
    suite = tmp_path / "suite.tsv"
    suite.write_text(f"id\tcategory\tphenomenon\tsource\tpositive_regex\n{nfc_word}-01\tC\tP\tDer Kaffee.\t"
                     f"\\b{nfc_word}\\b\n", encoding="utf-8")
    outputs = tmp_path / "outputs.tsv"
    outputs.write_text(f"item_id\tsystem\toutput\n{nfd_word}-01\tA\tA {nfd_word}.\n{nfc_word}-01\tB\tA {nfc_word}.\n"
                       f"{nfd_word}-01\t{nfd_word}\tA {nfd_word}.\n", encoding="utf-8")
    db = tmp_path / "t.sqlite"
    assert tsqe(db, "import", "suite", str(suite), "--source-lang", "de", "--target-lang", "en")[0] == 0
    code, stderr = tsqe(db, "import", "outputs", str(outputs))
    assert code == 0, stderr
    assert tsqe(db, "label")[0] == 0
    database = open_database(db)
    try:
        with database.session() as session:
            labels = session.execute(select(Output.text, AutoLabel.label).join(AutoLabel)).all()
            systems = set(session.scalars(select(System.name)))
            assert session.scalar(select(Item.id).where(Item.external_id == f"{nfd_word}-01")) is not None
    finally:
        database.close()
    assert labels == [(f"A {nfc_word}.", "pass")]  # one output, labelled by the pattern
    assert systems == {"A", "B", nfc_word}


def test_migration_0011_normalises_what_was_stored_and_leaves_clashes_apart(tmp_path: Path) -> None:
    nfd = unicodedata.normalize("NFD", "café")
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    with at_revision(url, "0008") as connection:
        connection.execute(text("INSERT INTO categories (id, suite_id, name) VALUES (1, 1, 'C')"))
        connection.execute(text("INSERT INTO phenomena (id, category_id, name) VALUES (1, 1, 'P')"))
        connection.execute(text("INSERT INTO items (id, suite_id, external_id, position, phenomenon_id, source, "
                                "version) VALUES (1, 1, :id, 0, 1, :source, 1)"), {"id": f"{nfd}-01", "source": nfd})
        connection.execute(text("INSERT INTO rules (id, item_id, polarity, pattern, ignore_case, valid, position, "
                                "version) VALUES (1, 1, 'positive', :p, 0, 1, 0, 1)"), {"p": nfd})
        for output_id, value in ((1, f"A {nfd}."), (2, "A café."), (3, f"B {nfd}.")):
            connection.execute(text("INSERT INTO outputs (id, item_id, text) VALUES (:id, 1, :text)"),
                               {"id": output_id, "text": value})
        connection.execute(text("INSERT INTO label_fingerprints (item_id, fingerprint, labelled_through, "
                                "labelled_at) VALUES (1, 'x', 3, CURRENT_TIMESTAMP)"))
        connection.execute(text("INSERT INTO history (suite_id, item_external_id, entity, entity_id, action, author, "
                                "at) VALUES (1, :id, 'item', 1, 'add', 'ann', CURRENT_TIMESTAMP)"),
                           {"id": f"{nfd}-01"})
    database = open_database(tmp_path / "old.sqlite")
    try:
        with database.session() as session:
            texts: dict[int, str] = dict(session.execute(text("SELECT id, text FROM outputs")).all())
            item = session.execute(text("SELECT external_id, source FROM items")).one()
            history = session.scalar(text("SELECT item_external_id FROM history"))
            pattern = session.scalar(text("SELECT pattern FROM rules"))
            fingerprint = session.scalar(text("SELECT fingerprint FROM label_fingerprints"))
    finally:
        database.close()
    assert texts == {1: f"A {nfd}.", 2: "A café.", 3: "B café."}  # output 1 would clash with 2: kept apart
    assert tuple(item) == ("café-01", "café") and history == "café-01" and pattern == "café"
    assert fingerprint == ""  # relabelled by the next run


def test_ids_with_spaces_around_them_are_stripped_and_said(demo_file: Path, tmp_path: Path) -> None:
    db = copy(demo_file, tmp_path)
    outputs = tmp_path / "spaced.tsv"
    outputs.write_text("item_id\tsystem\toutput\n amb-01 \tNew-MT\tThe bench.\namb-02\t New-MT\tThe lock.\n",
                       encoding="utf-8")
    code, stderr = tsqe(db, "import", "outputs", str(outputs))
    assert code == 0, stderr
    assert (f"{outputs}:2: warning: 2 id(s) or name(s) had spaces around them, which were dropped (the first: "
            f"' amb-01 ')") in stderr


def test_shared_strings_are_read_as_openpyxl_reads_them_and_a_missing_one_is_damage(tmp_path: Path) -> None:
    """The shared strings are held compactly (``SharedStrings``) and the sheet is not parsed for its size: what is
    read is what openpyxl's own reader reads (rich-text runs joined, a phonetic run left out, ``_x005F_``), and a
    cell naming a string the table does not hold is a damaged workbook, not another row's string."""
    from suite.importers.result import Problems
    from suite.importers.table_files import read_table

    shared_xml = (f'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="{MAIN}">'
                  "<si><t>Die Bank.</t></si>"
                  "<si><r><t>Die </t></r><r><rPr><b/></rPr><t>Bänke</t></r><rPh sb='0' eb='1'><t>ばんけ</t></rPh></si>"
                  "<si><t>a_x005F_b</t></si></sst>")
    rows = [SUITE_HEADER, ["x-01", "C", "P", "#shared:0", "bench"], ["x-02", "C", "P", "#shared:1", "benches"],
            ["x-03", "C", "P", "#shared:2", "ab"]]
    book = write_workbook(tmp_path / "rich.xlsx", rows, shared_xml=shared_xml)
    problems = Problems(str(book))
    read = read_table(book, problems, SUITE_HEADER)
    assert not problems.errors
    assert [row["source"] for row in read] == ["Die Bank.", "Die Bänke", "a_b"]
    import openpyxl
    expected = [row[3] for row in openpyxl.load_workbook(book, read_only=True).worksheets[0].iter_rows(
        min_row=2, values_only=True)]
    assert expected == ["Die Bank.", "Die Bänke", "a_b"]

    broken = write_workbook(tmp_path / "broken.xlsx", [SUITE_HEADER, ["x-01", "C", "P", "#shared:7", "b"]],
                            shared_xml=shared_xml)
    problems = Problems(str(broken))
    assert read_table(broken, problems, SUITE_HEADER) == []
    assert [problem.message for problem in problems.errors] == [
        "not a valid XLSX workbook (shared string 7 of 3); save the table as .xlsx, or as .tsv or .csv"]
