"""Tables printed to a terminal (issues 27 and 31): control characters from the data shown as visible escapes,
and a table wider than the terminal printed in blocks of columns that fit, names whole; files keep the text and
the full layout."""
from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import small_suite, write
from typer.testing import CliRunner

from cli.main import app
from store import open_database
from suite.engine.labelling import label_suite
from suite.importers import import_outputs
from suite.tables import Cell, Column, Table, render_text, terminal_text

HOSTILE = "evil\x1b]0;owned\x07\x1b[2J\u202eoh"
SYSTEMS = [f"Online-{letter}" for letter in "ABCDEFGHIJKLMNOPQRS"]  # 19 systems, as DFKI de-en has


def wide_table() -> Table:
    columns = [Column("category", "text"), Column("items", "count")]
    for name in SYSTEMS:
        columns += [Column(name, "fraction"), Column(f"{name} pass", "count"), Column(f"{name} judged", "count")]
    body = [[Cell(f"Category {r}"), Cell(10), *[Cell(v) for _ in SYSTEMS for v in (0.5, 5, 10)]] for r in range(3)]
    return Table(title="Pass rate per system: dfki", columns=columns, body=body, notes=["a note"])


def test_terminal_text_escapes_every_control_character() -> None:
    assert terminal_text(HOSTILE) == "evil\\e]0;owned\\x07\\e[2J\\u202eoh"
    assert terminal_text("tab\there\nline\x00\x7f\x9b") == "tab\\there\\nline\\x00\\x7f\\x9b"
    assert terminal_text("Grüße, 日本語 ✓") == "Grüße, 日本語 ✓"


@pytest.mark.parametrize("width", [80, 200])
def test_a_wide_table_is_printed_in_blocks_that_fit_with_names_whole(width: int) -> None:
    text = render_text(wide_table(), width=width)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    assert "…" not in text
    for name in SYSTEMS:
        assert any(name in line for line in lines)
    assert text.count("Category 2") == text.count("Pass rate per system: dfki (")  # row labels in every block
    assert text.rstrip().endswith("a note") and text.count("a note") == 1


def test_a_file_keeps_the_full_layout() -> None:
    text = render_text(wide_table())
    assert "(1/" not in text and all(f"{name} judged" in text for name in SYSTEMS)
    assert len(text.splitlines()[2]) > 400


def test_report_systems_fits_columns_and_outputs_escape_control_characters(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    db = open_database(tmp_path / "t.sqlite")
    small_suite(db, tmp_path, outputs=False)
    rows = "".join(f"{item}\t{name}\tHe will run {item}.\n" for item in (1, 2, 3) for name in SYSTEMS)
    import_outputs(db, write(tmp_path / "o.tsv", "item_id\tsystem\toutput\n" + rows +
                             f"1\tOnline-A2\t{HOSTILE}\n"))
    label_suite(db)
    db.close()
    runner = CliRunner()
    for columns in ("80", "200"):
        monkeypatch.setenv("COLUMNS", columns)
        result = runner.invoke(app, ["--db", str(tmp_path / "t.sqlite"), "report", "systems"])
        assert result.exit_code == 0, result.output
        assert max(len(line) for line in result.stdout.splitlines()) <= int(columns)
        assert "…" not in result.stdout and all(name in result.stdout for name in SYSTEMS)
    monkeypatch.delenv("COLUMNS")
    out = tmp_path / "report.txt"
    written = runner.invoke(app, ["--db", str(tmp_path / "t.sqlite"), "report", "systems", "--out", str(out)])
    assert written.exit_code == 0
    assert "(1/" not in out.read_text(encoding="utf-8")
    shown = runner.invoke(app, ["--db", str(tmp_path / "t.sqlite"), "outputs", "--item", "1"])
    assert shown.exit_code == 0, shown.output
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout and "\\e]0;owned\\x07" in shown.stdout
    exported = tmp_path / "labels.tsv"
    assert runner.invoke(app, ["--db", str(tmp_path / "t.sqlite"), "export", "labels", str(exported)]).exit_code == 0
    assert HOSTILE in exported.read_text(encoding="utf-8")  # a file keeps the text as it is
