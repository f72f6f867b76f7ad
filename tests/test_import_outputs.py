from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from import_helpers import OUTPUTS_TSV, small_suite, snapshot, write
from sqlalchemy import func, select

from store import Database
from store.models import Base, Item, ManualLabel, Output, System, SystemOutput
from suite.errors import InputFileError, TsqeError
from suite.importers import import_outputs
from suite.importers import outputs as outputs_importer


@pytest.fixture
def db(any_db: Database) -> Database:
    """Every test of this module that takes a database runs on SQLite and on PostgreSQL."""
    return any_db


def outputs_by_system(db: Database) -> dict[tuple[str, str], str]:
    with db.session() as session:
        rows = session.execute(select(Item.external_id, System.name, Output.text)
                               .join(SystemOutput, SystemOutput.output_id == Output.id)
                               .join(System, System.id == SystemOutput.system_id)
                               .join(Item, Item.id == SystemOutput.item_id))
        return {(item, system): text for item, system, text in rows}


def count(db: Database, model: type[Base]) -> int:
    with db.session() as session:
        counted = session.scalar(select(func.count()).select_from(model))
        assert counted is not None
        return counted


def test_tsv_merges_identical_outputs_and_keeps_empty_and_quoted_ones(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path, outputs=False)
    result = import_outputs(db, write(tmp_path / "o.tsv", OUTPUTS_TSV))
    assert result.counts == {"rows": 9, "systems": 3, "systems_added": 3, "distinct_outputs": 7, "outputs_added": 7,
                             "system_outputs_added": 9, "system_outputs_changed": 0, "system_outputs_unchanged": 0,
                             "outputs_removed": 0}
    stored = outputs_by_system(db)
    assert stored[("1", "B")] == "Her husband came."  # stripped, and shared with system A
    assert stored[("2", "B")] == 'He said "run".'
    assert stored[("2", "C")] == ""
    assert count(db, Output) == 7 and count(db, SystemOutput) == 9
    with db.session() as session:
        shared = session.execute(select(SystemOutput.output_id).join(Item).where(Item.external_id == "1")).all()
        assert len({row[0] for row in shared}) == 2


@pytest.mark.parametrize(("text", "expected"), [
    ("item\tsystem\toutput\n1\tA\tx\n", [":1: unknown column(s) 'item'; expected item_id, system, output",
                                         ":1: missing column(s) item_id in the header"]),
    ("item_id\tsystem\toutput\n1\tA\tx\n9\tA\ty\n", [":3: unknown item id '9'"]),
    ("item_id\tsystem\toutput\n1\tA\tx\n2\tA\ty\n1\tA\tz\n",
     [":4: duplicate output of system 'A' for item '1' (first at line 2)"]),
    ("item_id\tsystem\toutput\n1\tA\tx\tsurplus\n", [":2: expected 3 fields (item_id, system, output), found 4"]),
    ("item_id\tsystem\toutput\n1\tA\tx\n2\t\ty\n", [":3: empty system"]),
    ('item_id\tsystem\toutput\n1\tA\tx\n2\tA\t"He said "run""\n',
     [":3: malformed quoting: a field that starts with a double quote must end with one, "
      "and quotes inside it must be doubled"]),
    ('item_id\tsystem\toutput\n1\tA\tx\n2\tA\t"He said\n3\tA\ty\n',
     [":3: malformed quoting (it is never closed): a field that starts with a double quote must end with one, "
      "and quotes inside it must be doubled"]),
    ("", [": empty file: expected a header row with the columns item_id, system, output"]),
])
def test_malformed_tsv_is_rejected_and_changes_nothing(db: Database, tmp_path: Path, text: str,
                                                       expected: list[str]) -> None:
    small_suite(db, tmp_path)
    before = snapshot(db)
    path = write(tmp_path / "bad.tsv", text)
    with pytest.raises(InputFileError) as excinfo:
        import_outputs(db, path)
    assert [str(p) for p in excinfo.value.problems] == [f"{path}{message}" for message in expected]
    assert snapshot(db) == before


def test_not_utf8_is_reported_with_its_line(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    path = tmp_path / "latin1.tsv"
    path.write_bytes("item_id\tsystem\toutput\n1\tA\tx\n2\tA\tgr\u00fc\u00df\n".encode("latin-1"))
    with pytest.raises(InputFileError) as excinfo:
        import_outputs(db, path)
    assert [str(p) for p in excinfo.value.problems] == [
        f"{path}:3: not valid UTF-8 (byte 0xfc); save the file as UTF-8"]


def test_reimport_replaces_links_and_keeps_reviewed_outputs(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    with db.transaction() as session:
        reviewed = session.scalar(select(Output.id).where(Output.text == "He will run.").join(Item)
                                  .where(Item.external_id == "3"))
        session.add(ManualLabel(output_id=reviewed, label="fail", reviewer="ann"))
    again = ("item_id\tsystem\toutput\n"
             "1\tC\tHer husband came.\n"      # C's own text disappears (no other system, no label)
             "3\tC\tHe will not run.\n"       # replaces a reviewed output, which is kept
             "3\tA\tHe won't run.\n"          # unchanged
             "1\tD\tHer husband came.\n")     # new system
    result = import_outputs(db, write(tmp_path / "again.tsv", again))
    assert result.counts == {"rows": 4, "systems": 3, "systems_added": 1, "distinct_outputs": 3, "outputs_added": 1,
                             "system_outputs_added": 1, "system_outputs_changed": 2, "system_outputs_unchanged": 1,
                             "outputs_removed": 1}
    with db.session() as session:
        texts = set(session.scalars(select(Output.text)))
        assert "Her man came." not in texts and "He will not run." in texts
        assert session.get(Output, reviewed) is not None
    assert outputs_by_system(db)[("3", "C")] == "He will not run."


def test_plain_text_aligned_with_item_order(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path, outputs=False)
    result = import_outputs(db, write(tmp_path / "hyp.en", "Her husband came.\n\nHe won't run.\n"), system="X")
    assert result.counts["system_outputs_added"] == 3
    assert outputs_by_system(db) == {("1", "X"): "Her husband came.", ("2", "X"): "", ("3", "X"): "He won't run."}


@pytest.mark.parametrize(("text", "expected"), [
    ("a\nb\n", ":2: the file ends after 2 lines but the suite has 3 items: one output per line in item order was "
               "expected (or give the source file)"),
    ("a\nb\nc\nd\n", ":4: the suite has 3 items but the file goes on: one output per line in item order was "
                     "expected (or give the source file)"),
])
def test_plain_text_with_wrong_line_count_is_rejected(db: Database, tmp_path: Path, text: str, expected: str) -> None:
    small_suite(db, tmp_path)
    before = snapshot(db)
    path = write(tmp_path / "hyp.en", text)
    with pytest.raises(InputFileError) as excinfo:
        import_outputs(db, path, system="X")
    assert [str(p) for p in excinfo.value.problems] == [f"{path}{expected}"]
    assert snapshot(db) == before


def test_plain_text_aligned_by_source_text(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path, outputs=False)
    source = write(tmp_path / "src.de",
                   "Guten Tag.\nEr wird laufen.\nIhr Mann kam.\nEr wird laufen.\nEr wird laufen.\n")
    hyp = write(tmp_path / "hyp.en", "Good day.\nHe will run.\nHer husband came.\nHe will run.\nHe is going to run.\n")
    result = import_outputs(db, hyp, system="X", source=source)
    assert result.counts["lines"] == 5 and result.counts["lines_matched"] == 2
    assert result.counts["items_matched"] == 2 and result.counts["items_unmatched"] == 1
    assert [str(w) for w in result.warnings] == [
        f"{hyp}:5: source line 5 repeats line 2 but is translated differently; kept the output of line 2"]
    assert outputs_by_system(db) == {("1", "X"): "Her husband came.", ("2", "X"): "He will run."}


def test_source_alignment_needs_equal_line_counts_and_a_system(db: Database, tmp_path: Path) -> None:
    small_suite(db, tmp_path)
    before = snapshot(db)
    source = write(tmp_path / "src.de", "Ihr Mann kam.\nEr wird laufen.\n")
    hyp = write(tmp_path / "hyp.en", "Her husband came.\n")
    with pytest.raises(InputFileError) as excinfo:
        import_outputs(db, hyp, system="X", source=source)
    assert [str(p) for p in excinfo.value.problems] == [
        f"{hyp}:2: the file has 1 lines but the source file {source} has 2: they must be line-aligned"]
    with pytest.raises(TsqeError, match="also name its system"):
        import_outputs(db, hyp, source=source)
    assert snapshot(db) == before


def test_line_splitting_ignores_unicode_line_separators(db: Database, tmp_path: Path) -> None:
    """MT outputs may contain U+2028 or form feeds; only newlines end a line."""
    small_suite(db, tmp_path, outputs=False)
    import_outputs(db, write(tmp_path / "hyp.en", "Her\u2028husband came.\nHe\x0cwill run.\nHe won't run.\n"),
                   system="X")
    assert outputs_by_system(db)[("1", "X")] == "Her\u2028husband came."


def test_the_same_system_imported_twice_at_the_same_moment_is_refused_in_words(
        pg: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two people import the same system's file into one suite at once on PostgreSQL; both are held until each
    has read the suite and is about to write. The later one cannot add the system the earlier one just added:
    it is told to import again, and nothing of it is stored; importing it again then changes nothing."""
    small_suite(pg, tmp_path, outputs=False)
    both_writing = threading.Barrier(2, timeout=30)
    write_outputs = outputs_importer.OutputWriter.write

    def writing_when_both_are_here(writer: Any, rows: Any) -> None:
        both_writing.wait()
        write_outputs(writer, rows)

    monkeypatch.setattr(outputs_importer.OutputWriter, "write", writing_when_both_are_here)
    path = write(tmp_path / "outputs.tsv", OUTPUTS_TSV)

    def importing() -> str:
        try:
            return str(import_outputs(pg, path).counts["systems_added"])
        except TsqeError as refused:
            return str(refused)

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(lambda _: importing(), range(2)))
    assert outcomes == [f"{path}: another import added the same system or output to this suite at the same moment; "
                        "nothing was imported from this file: import it again", "3"]
    monkeypatch.undo()
    before = snapshot(pg)
    assert import_outputs(pg, path).counts["systems_added"] == 0
    assert snapshot(pg) == before
