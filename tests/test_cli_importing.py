from __future__ import annotations

import json
from pathlib import Path

from import_helpers import OUTPUTS_TSV, SUITE_JSON, write
from typer.testing import CliRunner, Result

from cli.main import app


def tsqe(db: Path, *args: object) -> Result:
    return CliRunner().invoke(app, ["--db", str(db), *map(str, args)])


def test_import_status_export_end_to_end(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    suite = write(tmp_path / "de-en" / "items.json", SUITE_JSON.replace('"will run"', '"will (run"'))
    result = tsqe(db, "import", "suite", suite)
    assert result.exit_code == 0, result.output
    assert "suite 'de-en': 3 items in the file (3 added, 0 updated, 0 unchanged)" in result.stdout
    assert f"{suite}:3: warning: positive regex 'will (run' of item '2' does not compile" in result.stderr

    result = tsqe(db, "import", "outputs", write(tmp_path / "o.tsv", OUTPUTS_TSV))
    assert result.exit_code == 0, result.output
    assert "9 system outputs of 3 systems (3 new)" in result.stdout and "7 distinct outputs" in result.stdout

    result = tsqe(db, "import", "qe", write(tmp_path / "q.tsv", "item_id\tsystem\tscore\n1\tA\t0.3\n"),
                  "--name", "q", "--lower-is-better")
    assert result.exit_code == 0 and "QE system 'q' (new): scores for 1 distinct outputs" in result.stdout

    result = tsqe(db, "import", "labels",
                  write(tmp_path / "r.tsv", "item_id\tsystem\tlabel\treviewer\n1\tA\tpass\tann\n"))
    assert result.exit_code == 0 and "1 added" in result.stdout

    result = tsqe(db, "status", "--json")
    status = json.loads(result.stdout)
    assert (status["items"], status["systems"], status["outputs"], status["system_outputs"]) == (3, 3, 7, 9)
    assert status["invalid_rules"] == 1 and status["labels"]["manual"]["pass"] == 1
    result = tsqe(db, "status")
    assert result.exit_code == 0 and "system outputs" in result.stdout

    result = tsqe(db, "export", "labels", tmp_path / "labels.tsv")
    assert result.exit_code == 0 and "wrote 9 rows" in result.stdout
    header = (tmp_path / "labels.tsv").read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert header[-2:] == ["effective_label", "rule_id"]


def test_bad_input_exits_2_with_file_and_line(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    tsqe(db, "import", "suite", write(tmp_path / "de-en" / "items.json", SUITE_JSON))
    bad = write(tmp_path / "bad.tsv", "item_id\tsystem\toutput\n1\tA\tok\n42\tA\tno\n")
    result = tsqe(db, "import", "outputs", bad)
    assert result.exit_code == 2
    assert result.stderr == f"error: {bad}:3: unknown item id '42'\n"
    result = tsqe(db, "import", "suite", tmp_path / "de-en" / "items.json")
    assert result.exit_code == 2 and "already" in result.stderr
    assert json.loads(tsqe(db, "status", "--json").stdout)["system_outputs"] == 0


def test_plain_text_outputs_with_source(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    tsqe(db, "import", "suite", write(tmp_path / "de-en" / "items.json", SUITE_JSON))
    source = write(tmp_path / "src.de", "Hallo.\nIhr Mann kam.\n")
    result = tsqe(db, "import", "outputs", write(tmp_path / "hyp.X.en", "Hello.\nHer husband came.\n"),
                  "--system", "X", "--source", source)
    assert result.exit_code == 0, result.output
    assert "1 of 2 lines matched an item's source; 1 items got an output, 2 did not" in result.stdout


def test_every_command_has_help() -> None:
    for args in (["import", "suite"], ["import", "outputs"], ["import", "qe"], ["import", "labels"], ["status"],
                 ["export", "labels"]):
        result = CliRunner().invoke(app, [*args, "--help"])
        assert result.exit_code == 0 and "Usage" in result.stdout
