"""Importers that write a chunk at a time still change nothing when a line near the end of the file is bad.

The chunks are made a few rows long here, so that a file of a few hundred rows has been read (and, for the
streamed readers, partly written into the import's transaction) through many chunks before its bad line: the
same path a file at the size limit takes through chunks of thousands (``bench/import_memory.py`` measures those).
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from hostile_helpers import rows_of, tsqe, unchanged

ITEMS = 60
SYSTEMS = ("Alpha", "Beta")
SMALL_CHUNK = 7


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every streamed importer's chunk a few rows long."""
    for target in ("suite.importers.qe_scores.LOOKUP_CHUNK", "suite.importers.reviews.LOOKUP_CHUNK",
                   "suite.importers.reviews.WRITE_CHUNK", "suite.importers.outputs.CHUNK",
                   "suite.importers.human_scores.WRITE_CHUNK", "suite.importers.suite_import.WRITE_CHUNK"):
        monkeypatch.setattr(target, SMALL_CHUNK)


def item(n: int) -> str:
    return f"s-{n:03d}"


def _suite_file(path: Path, rules: dict[int, str] | None = None) -> Path:
    rules = rules or {}
    path.write_text("id\tcategory\tphenomenon\tsource\tpositive_regex\n" + "".join(
        f"{item(n)}\tLexis\tPhenomenon {n % 4}\tDer Satz {n}.\t{rules.get(n, 'sentence')}\n" for n in range(ITEMS)),
        encoding="utf-8")
    return path


@pytest.fixture
def db(tmp_path: Path, small_chunks: None) -> Path:
    """A suite of 60 items with two systems' outputs, imported through the small chunks."""
    db = tmp_path / "t.sqlite"
    assert tsqe(db, "import", "suite", str(_suite_file(tmp_path / "streamed.tsv")), "--source-lang", "de",
                "--target-lang", "en")[0] == 0
    outputs = tmp_path / "outputs.tsv"
    outputs.write_text("item_id\tsystem\toutput\n" + "".join(
        f"{item(n)}\t{system}\tThe sentence {n}.\n" for system in SYSTEMS for n in range(ITEMS)), encoding="utf-8")
    assert tsqe(db, "import", "outputs", str(outputs))[0] == 0
    return db


# (command, header, a good row of (item, system), the bad row, what the error says of it)
STREAMED = {
    "outputs": (["import", "outputs"], "item_id\tsystem\toutput",
                lambda n, s: f"{item(n)}\t{s}\tAnother sentence {n}.", f"nowhere-1\t{SYSTEMS[0]}\tA sentence.",
                "nowhere-1"),
    "QE scores": (["import", "qe", "--name", "streamed-qe"], "item_id\tsystem\tscore",
                  lambda n, s: f"{item(n)}\t{s}\t0.{n:02d}", f"{item(3)}\t{SYSTEMS[0]}\tgood", "good"),
    "reviews": (["import", "labels"], "item_id\tsystem\tlabel\treviewer",
                lambda n, s: f"{item(n)}\t{s}\t{'pass' if n % 2 else 'fail'}\tann",
                f"{item(3)}\t{SYSTEMS[0]}\tmaybe\tann", "maybe"),
    "segment human scores": (["import", "human-scores", "--segments"], "system\titem_id\tscore",
                             lambda n, s: f"{s}\t{item(n)}\t{n / 10}", f"{SYSTEMS[0]}\t{item(3)}\tgood", "good"),
}


@pytest.mark.parametrize("importer", list(STREAMED))
def test_a_bad_line_near_the_end_of_a_streamed_file_leaves_the_database_unchanged(importer: str, db: Path,
                                                                                 tmp_path: Path) -> None:
    command, header, good, bad, said = STREAMED[importer]
    rows = [good(n, system) for system in SYSTEMS for n in range(ITEMS)]
    rows.insert(len(rows) - 2, bad)  # after 17 chunks of 7 rows, two good rows before the end
    path = tmp_path / "streamed.tsv"
    path.write_text(header + "\n" + "".join(row + "\n" for row in rows), encoding="utf-8")
    before = rows_of(db)
    args = [*command[:2], str(path), *command[2:]] if importer != "segment human scores" else [*command, str(path)]
    stderr = unchanged(db, tsqe(db, *args), before)
    bad_line = len(rows) - 1  # the header is line 1
    assert f"{path}:{bad_line}:" in stderr and said in stderr, stderr
    assert stderr.count("\n") == 1, stderr


def test_a_suite_written_in_chunks_is_the_suite_written_at_once(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Items' rules are written a chunk at a time: an import and an update that changes rules on both sides of
    chunk boundaries store the same rows and history as one written whole (the last item's rule, the highest id,
    is left alone: SQLite gives a removed highest id to the next row, which differs by chunk but means nothing; the
    history's entries come a chunk at a time, so they are compared without their own ids)."""
    first = _suite_file(tmp_path / "streamed.tsv")
    dumps = []
    for chunk in (SMALL_CHUNK, 10 * ITEMS):
        monkeypatch.setattr("suite.importers.suite_import.WRITE_CHUNK", chunk)
        db = tmp_path / f"chunk-{chunk}.sqlite"
        assert tsqe(db, "import", "suite", str(first), "--source-lang", "de", "--target-lang", "en")[0] == 0
        changed = _suite_file(tmp_path / "streamed.tsv", {n: f"sentence {n}" for n in (0, 6, 7, 13, 14, 30)})
        assert tsqe(db, "import", "suite", str(changed), "--update")[0] == 0
        first = _suite_file(tmp_path / "streamed.tsv")
        dumps.append({table: sorted((tuple(value for value in row[table == "history":] if not _is_time(value))
                                     for row in rows), key=repr)
                      for table, rows in rows_of(db).items()})
    assert dumps[0] == dumps[1]
    assert sum(1 for row in dumps[0]["rules"] if any(value == "sentence 13" for value in row)) == 1


def _is_time(value: object) -> bool:
    """Timestamps differ between the two runs."""
    return isinstance(value, datetime)
