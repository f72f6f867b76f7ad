"""Hostile input in the human judgements' files (issue 18's importers under issue 22's rules): WMT's segment scores
(``SYS SID RAW.SCR Z.SCR N``), a plain table of segment scores, WMT's pairwise significance matrix and the system
scores are held to the field limit, read in NFC, and refused in one sentence naming the file and line.

Each refused case exits with status 2 and leaves the database exactly as it was.
"""
from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path

import pytest
from hostile_helpers import rows_of, tsqe, unchanged
from import_helpers import write
from sqlalchemy import select

from store import open_database
from store.models import HumanSegmentScore, HumanSignificance, System
from suite.importers import limits
from suite.importers.wmt import import_wmt

NAME = "Café-MT"
NFD = unicodedata.normalize("NFD", NAME)
LONG = "x" * (limits.MAX_FIELD_CHARS + 1)
SEGMENTS = f"SYS SID RAW.SCR Z.SCR N\n{NAME}.3 1 80 0.5 2\n{NAME}.3 2 70 0.1 1\nsys1.4 1 60 -0.2 3\n"
SIGNIFICANCE = f" {NAME}.3 sys1.4\n{NAME}.3 - 0.7***\nsys1.4 -0.7 -\n"


@pytest.fixture(scope="module")
def suite_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with suite ``t`` (two segments) and the systems ``Café-MT`` (stored composed) and ``sys1``."""
    folder = tmp_path_factory.mktemp("wmt")
    src = write(folder / "newstest2099.de-en.src.de", "Das ist gut.\nEin Haus.\n")
    ref = write(folder / "newstest2099.de-en.ref.A.en", "That is good.\nA house.\n")
    systems = [write(folder / f"newstest2099.de-en.hyp.{name}.en", "That is good.\nA house.\n")
               for name in (NAME, "sys1")]
    db = folder / "t.sqlite"
    database = open_database(db)
    try:
        import_wmt(database, src=src, refs=[ref], systems=systems, name="t")
    finally:
        database.close()
    return db


@pytest.fixture
def db(suite_file: Path, tmp_path: Path) -> Path:
    return Path(shutil.copy(suite_file, tmp_path / "t.sqlite"))


def refused(db: Path, *args: str) -> str:
    return unchanged(db, tsqe(db, "import", "human-scores", *args), rows_of(db))


def stored(db: Path) -> tuple[list[tuple[str, float]], list[tuple[str, str, float | None]]]:
    database = open_database(db)
    try:
        with database.session() as session:
            segments = session.execute(select(System.name, HumanSegmentScore.score)
                                       .join(System, System.id == HumanSegmentScore.system_id)
                                       .order_by(HumanSegmentScore.score)).all()
            names = dict(session.execute(select(System.id, System.name)).all())
            pairs = sorted((names[row.system_id], names[row.other_id], row.p_below)
                           for row in session.scalars(select(HumanSignificance)))
    finally:
        database.close()
    return [(name, score) for name, score in segments], pairs


# --- the field limit -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("option", "text", "line"), [
    ("--segments", SEGMENTS + f"sys1.4 2 {LONG} 0.1 1\n", 5),
    ("--significance", SIGNIFICANCE + f"{LONG}\n", 4),
    ("", f"RAW.SCR Z.SCR N SYS N.ALL\n79.4 0.113 959 {LONG} 1270\n", 2),
])
def test_a_line_over_the_field_limit_is_refused(db: Path, tmp_path: Path, option: str, text: str, line: int) -> None:
    path = write(tmp_path / "human.csv", text)
    stderr = refused(db, *([option] if option else []), str(path))
    assert stderr == (f"error: {path}:{line}: the line is longer than {limits.MAX_FIELD_CHARS:,} characters; a line "
                      f"holds one sentence\n")


def test_a_segment_table_field_over_the_limit_is_refused(db: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "seg.tsv", f"system\titem_id\tscore\n{NAME}\t1\t0.5\nsys1\t1\t{LONG}\n")
    stderr = refused(db, "--segments", str(path))  # read row by row, as every table: the table reader's one line
    assert stderr == (f"error: {path}:3: a field is longer than {limits.MAX_FIELD_CHARS:,} characters; this is not a "
                      f"table of sentences\n")


# --- wrong column counts and values that are not numbers ---------------------------------------------------------

@pytest.mark.parametrize(("option", "name", "text", "message"), [
    ("--segments", "seg.csv", SEGMENTS.replace("60 -0.2 3", "60 -0.2"),
     "4: expected five fields (SYS SID RAW.SCR Z.SCR N), found 4"),
    ("--segments", "seg.tsv", f"system\titem_id\tscore\n{NAME}\t1\t0.5\textra\n",
     "2: expected 3 fields (system, item_id, score), found 4"),
    ("--significance", "sig.csv", SIGNIFICANCE.replace("- 0.7***", "- 0.7*** 0.1"),
     "2: expected 2 cells after the system name, found 3"),
    ("", "sys.csv", "RAW.SCR Z.SCR N SYS N.ALL\n79.4 0.113 959 A.15\n",
     "2: expected five fields (RAW.SCR Z.SCR N SYS N.ALL), found 4"),
    ("--segments", "seg.csv", SEGMENTS.replace("70 0.1 1", "70 0,1 1"), "3: Z.SCR '0,1' is not a number"),
    ("--segments", "seg.csv", SEGMENTS.replace("70 0.1 1", "70 0.1 one"),
     "3: N 'one' is not a whole number of judgements"),
    ("--segments", "seg.tsv", f"system\titem_id\tscore\n{NAME}\t1\thigh\n", "2: score 'high' is not a number"),
    ("--segments", "seg.tsv", f"system\titem_id\tscore\n{NAME}\t1\tinf\n", "2: score 'inf' is not a finite number"),
    ("--significance", "sig.csv", SIGNIFICANCE.replace("0.7***", "x***"), "2: the difference 'x***' is not a number"),
    ("", "sys.csv", "RAW.SCR Z.SCR N SYS N.ALL\n79.4 NaN 959 A.15 1270\n", "2: Z.SCR 'NaN' is not a finite number"),
])
def test_a_wrong_column_count_or_a_non_number_is_refused_with_file_and_line(db: Path, tmp_path: Path, option: str,
                                                                           name: str, text: str,
                                                                           message: str) -> None:
    path = write(tmp_path / name, text)
    stderr = refused(db, *([option] if option else []), str(path))
    assert stderr == f"error: {path}:{message}\n"


# --- NFC ---------------------------------------------------------------------------------------------------------

def test_decomposed_system_names_are_matched_as_nfc(db: Path, tmp_path: Path) -> None:
    """A file written on a Mac names the system decomposed: it is the suite's composed ``Café-MT`` (WMT's ``.3``
    suffix dropped as usual), not an unknown system whose scores are ignored."""
    segments = write(tmp_path / "seg.csv", SEGMENTS.replace(NAME, NFD))
    significance = write(tmp_path / "sig.csv", SIGNIFICANCE.replace(NAME, NFD))
    assert NFD in segments.read_text(encoding="utf-8")
    code, stderr = tsqe(db, "import", "human-scores", "--segments", str(segments), "--significance",
                        str(significance))
    assert code == 0, stderr
    assert "is not in suite" not in stderr
    assert stored(db) == ([("sys1", -0.2), (NAME, 0.1), (NAME, 0.5)], [(NAME, "sys1", 0.001), ("sys1", NAME, None)])


def test_decomposed_names_in_a_table_and_in_a_rename_are_matched_as_nfc(db: Path, tmp_path: Path) -> None:
    table = write(tmp_path / "seg.tsv", f"system\titem_id\tscore\n{NFD} v2\t1\t0.5\nsys1\t2\t0.25\n")
    code, stderr = tsqe(db, "import", "human-scores", "--segments", str(table), "--rename", f"{NFD} v2={NFD}")
    assert code == 0, stderr
    assert "is not in suite" not in stderr
    assert stored(db)[0] == [("sys1", 0.25), (NAME, 0.5)]
