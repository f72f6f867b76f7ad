"""Hostile and broken input files, through the command line, against a database holding the demo suite.

``tests/data/bad/EXPECTED.tsv`` lists each file, the command that reads it, a fragment of the expected
message and its line (empty for a problem of the whole file). Every one must be refused with
``FILE:LINE: message`` (or ``FILE: message``) on stderr and exit status 2, without a traceback, leaving
every table as it was. Files too large to commit are generated into the test's temporary folder.
"""
from __future__ import annotations

import csv
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from import_helpers import snapshot
from sqlalchemy import select
from typer.testing import CliRunner, Result

from cli.main import app
from store import Database, open_database
from store.models import AutoLabel, Item, Output
from suite.demo import create_demo
from suite.engine import labelling

BAD = Path(__file__).parent / "data" / "bad"
TEN_MB = "a" * (10 * 1024 * 1024)
GENERATED: dict[str, Callable[[], str]] = {
    "outputs_10mb_line.tsv":
        lambda: f"item_id\tsystem\toutput\namb-01\tOnline-X\tThe bench.\namb-02\tOnline-X\t{TEN_MB}\n",
    "suite_10mb_line.tsv": lambda: f"id\tcategory\tphenomenon\tsource\tpositive_regex\nx\tA\tB\t{TEN_MB}\tbench\n",
    "outputs_wide_row.tsv": lambda: "item_id\tsystem\toutput\namb-01\tX\t" + "\t" * 100_000 + "\n",
}


def expected_rows() -> list[dict[str, str]]:
    with (BAD / "EXPECTED.tsv").open(encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file, dialect="excel-tab", quoting=csv.QUOTE_NONE))


@pytest.fixture(scope="module")
def demo_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    database = open_database(path)
    create_demo(database)
    database.close()
    return path


def tsqe(db: Path, *args: str) -> Result:
    return CliRunner().invoke(app, ["--db", str(db), *args])


def test_the_corpus_covers_every_importer() -> None:
    rows = expected_rows()
    assert len(rows) >= 30
    commands = {" ".join(row["command"].split()[:2]) for row in rows}
    assert commands == {"import suite", "import outputs", "import qe", "import labels", "import wmt",
                        "import human-scores"}
    listed = {row["file"] for row in rows}
    on_disk = {path.name for path in BAD.iterdir() if path.is_file() and path.name != "EXPECTED.tsv"}
    assert on_disk <= listed and listed - on_disk == set(GENERATED)
    assert {Path(name).suffix for name in listed} >= {".json", ".tsv", ".csv", ".xlsx", ".txt"}


@pytest.mark.parametrize("row", expected_rows(), ids=lambda row: row["file"])
def test_bad_file_is_refused_with_its_location_and_changes_nothing(row: dict[str, str], demo_database: Path,
                                                                   tmp_path: Path) -> None:
    db = tmp_path / "tsqe.sqlite"
    shutil.copy(demo_database, db)
    path = BAD / row["file"]
    if row["file"] in GENERATED:
        path = tmp_path / row["file"]
        path.write_text(GENERATED[row["file"]](), encoding="utf-8")
    database = open_database(db)
    before = snapshot(database)
    try:
        args = shlex.split(row["command"].replace("{file}", str(path)).replace("{ok}", str(BAD / "ok")))
        result = tsqe(db, *args)
        location = f"{path}:{row['line']}" if row["line"] else str(path)
        assert result.exit_code == 2, result.output
        assert isinstance(result.exception, SystemExit)
        assert "Traceback" not in result.output
        assert result.stderr.startswith("error: ")
        assert f"{location}: {row['message']}" in result.stderr
        assert snapshot(database) == before
    finally:
        database.close()


def _crlf_bom(text: str) -> str:
    return "\ufeff" + text.replace("\n", "\r\n")


SUITE_TSV = ("id\tcategory\tphenomenon\tsource\tpositive_regex\tnegative_regex\treference\n"
             "x-01\tAmbiguity\tLexical ambiguity\tDie Bank.\t\\bbench\\b\t\\bbank\\b\tThe bench.\n"
             "\n"
             "x-02\tAmbiguity\tLexical ambiguity\t\"Das Schloss,\nzweizeilig.\"\t\\block\\b\t\tThe lock.\n")


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".json"])
def test_byte_order_mark_crlf_and_blank_lines_are_accepted(db: Database, tmp_path: Path, suffix: str) -> None:
    """Files saved by Windows tools import exactly like clean ones (the CR of a CRLF is not part of a field)."""
    clean_text = SUITE_TSV if suffix != ".csv" else SUITE_TSV.replace("\t", ",")
    if suffix == ".json":
        clean_text = ('{"items": [\n{"id": "x-01", "langpair": "de-en", "category": "Ambiguity", '
                      '"phenomenon": "Lexical ambiguity", "source_sentence": "Die Bank.", '
                      '"positive_regex": "\\\\bbench\\\\b"}\n]}\n')
    clean = tmp_path / f"clean{suffix}"
    clean.write_text(clean_text, encoding="utf-8", newline="")
    windows = tmp_path / f"windows{suffix}"
    windows.write_text(_crlf_bom(clean_text), encoding="utf-8", newline="")
    for path in (clean, windows):
        assert tsqe(tmp_path / "t.sqlite", "import", "suite", str(path), "--source-lang", "de",
                    "--target-lang", "en").exit_code == 0
    copy = open_database(tmp_path / "t.sqlite")
    try:
        with copy.session() as session:
            rows = session.execute(select(Item.suite_id, Item.external_id, Item.source).order_by(Item.id)).all()
    finally:
        copy.close()
    by_suite: dict[int, list[tuple[str, str]]] = {}
    for suite_id, external_id, source in rows:
        by_suite.setdefault(suite_id, []).append((external_id, source))
    first, second = by_suite.values()
    assert first == second
    assert all("\r" not in source and "\ufeff" not in external_id for external_id, source in first)


def test_outputs_reviews_and_scores_with_bom_and_crlf_are_accepted(demo_database: Path, tmp_path: Path) -> None:
    db = tmp_path / "tsqe.sqlite"
    shutil.copy(demo_database, db)
    files = {
        "outputs.tsv": "item_id\tsystem\toutput\n\namb-01\tNew-MT\tThe bench was painted.\n",
        "plain.txt": "The bench.\nThe lock.\n",
        "source.de": (BAD / "ok" / "source.de").read_text(encoding="utf-8"),
        "labels.tsv": "item_id\tsystem\tlabel\treviewer\namb-01\tNew-MT\tfail\tann\n",
        "qe.tsv": "item_id\tsystem\tscore\namb-01\tNew-MT\t0.25\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(_crlf_bom(text), encoding="utf-8", newline="")
    commands = [["import", "outputs", "outputs.tsv"],
                ["import", "outputs", "plain.txt", "--system", "Plain-MT", "--source", "source.de"],
                ["import", "labels", "labels.tsv"], ["import", "qe", "qe.tsv", "--name", "Q"]]
    for command in commands:
        args = [str(tmp_path / arg) if "." in arg and not arg.startswith("-") else arg for arg in command]
        result = tsqe(db, *args)
        assert result.exit_code == 0, result.output
    database = open_database(db)
    try:
        with database.session() as session:
            texts = set(session.scalars(select(Output.text).join(Item).where(Item.external_id.in_(["amb-01",
                                                                                                   "amb-02"]))))
    finally:
        database.close()
    assert {"The bench was painted.", "The bench.", "The lock."} <= texts
    assert not any("\r" in text or "\ufeff" in text for text in texts)


@pytest.mark.parametrize("fine_items", [1, 300], ids=["in-process", "forked-workers"])
def test_catastrophic_backtracking_is_stopped_by_the_timeout(tmp_path: Path, fine_items: int,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """``^(a|aa)+$`` on sixty a's and a b would take longer than the universe's age without a limit; it is
    labelled ``error`` (timed out), in-process and in a run large enough for forked workers under the watchdog.

    The watchdog's budget is shortened here: at its real size a chunk of 50 items may run a minute before its
    worker is killed and the chunk redone with per-search timeouts, which is what this test shows happening.
    """
    monkeypatch.setattr(labelling, "WATCHDOG_GRACE", 1.0)
    monkeypatch.setattr(labelling, "WATCHDOG_PER_ITEM", 0.02)
    fine = [f"fine-{n}" for n in range(fine_items)]
    suite = tmp_path / "evil.tsv"
    suite.write_text("id\tcategory\tphenomenon\tsource\tpositive_regex\n"
                     "evil-1\tHostile\tBacktracking\tEin Satz.\t^(a|aa)+$\n"
                     + "".join(f"{name}\tHostile\tBacktracking\tSatz {name}.\tsentence\n" for name in fine),
                     encoding="utf-8")
    outputs = tmp_path / "outputs.tsv"
    outputs.write_text(f"item_id\tsystem\toutput\nevil-1\tA\t{'a' * 60}b\n"
                       + "".join(f"{name}\tA\tAnother sentence.\n" for name in fine), encoding="utf-8")
    db = tmp_path / "tsqe.sqlite"
    assert tsqe(db, "import", "suite", str(suite), "--source-lang", "de", "--target-lang", "en").exit_code == 0
    assert tsqe(db, "import", "outputs", str(outputs)).exit_code == 0
    result = tsqe(db, "label", "--timeout", "0.2")
    assert result.exit_code == 0, result.output
    database = open_database(db)
    try:
        with database.session() as session:
            labels = dict(session.execute(select(Item.external_id, AutoLabel.label)
                                          .join(Output, Output.item_id == Item.id)
                                          .join(AutoLabel, AutoLabel.output_id == Output.id)).all())
            reason = session.scalar(select(AutoLabel.reason).where(AutoLabel.label == "error"))
    finally:
        database.close()
    assert labels == {"evil-1": "error", **{name: "pass" for name in fine}}
    assert reason is not None and "time" in reason


def test_wmt_files_and_human_scores_with_bom_and_crlf_are_accepted(tmp_path: Path) -> None:
    ok = BAD / "ok"
    systems = tmp_path / "systems"
    systems.mkdir()
    for path in (ok / "wmt.src.de", ok / "wmt.ref.en", *sorted((ok / "systems").iterdir())):
        target = systems / path.name if path.parent.name == "systems" else tmp_path / path.name
        target.write_text(_crlf_bom(path.read_text(encoding="utf-8")), encoding="utf-8", newline="")
    scores = tmp_path / "DA-syslevel.csv"
    scores.write_text(_crlf_bom("LP HUMAN SYSTEM\n\nde-en 0.25 online-A.0\n"), encoding="utf-8", newline="")
    db = tmp_path / "tsqe.sqlite"
    result = tsqe(db, "import", "wmt", "--src", str(tmp_path / "wmt.src.de"), "--ref", str(tmp_path / "wmt.ref.en"),
                  "--systems", str(systems), "--name", "w")
    assert result.exit_code == 0, result.output
    assert tsqe(db, "import", "human-scores", str(scores), "--lp", "de-en").exit_code == 0
    database = open_database(db)
    try:
        with database.session() as session:
            sources = list(session.scalars(select(Item.source).order_by(Item.position)))
            outputs = set(session.scalars(select(Output.text)))
    finally:
        database.close()
    assert sources == ["Erster Satz.", "Zweiter Satz.", "Dritter Satz."]
    assert outputs == {"First.", "Second.", "Third."}
