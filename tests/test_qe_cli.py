from __future__ import annotations

import csv
import io
import json

import pandas as pd
import pytest
from qe_testdata import ItemSpec, add_qe, make_suite
from typer.testing import CliRunner

from cli.main import _register_commands, app


@pytest.fixture
def cli(db, tmp_path):  # type: ignore[no-untyped-def]
    ids = make_suite(db, [
        ItemSpec("1", "Ambiguity", "lexical", {"a": ("pass", ("S1", "S2")), "b": ("fail", ("S3",)),
                                               "c": ("fail", ("S4",))}),
        ItemSpec("2", "Negation", "negation", {"d": ("pass", ("S1",)), "e": ("fail", ("S2",))}),
    ])
    add_qe(db, "first", {o: float(len(t)) + (1.0 if t in "ad" else 0.0) for (_, t), o in ids.items()})
    add_qe(db, "second", {o: (1.0 if t in ("b", "d") else 0.0) for (_, t), o in ids.items()})
    _register_commands()
    url = str(db.engine.url)
    runner = CliRunner()

    def run(*args: str):  # type: ignore[no-untyped-def]
        return runner.invoke(app, ["--db", url, *args])

    return run


def test_pairs_to_stdout_and_file(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    result = cli("pairs")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout), delimiter="\t"))
    assert [(r["item_id"], r["pass_output"], r["fail_output"], r["pass_systems"]) for r in rows] == [
        ("1", "a", "b", "S1,S2"), ("1", "a", "c", "S1,S2"), ("2", "d", "e", "S1")]
    out = tmp_path / "pairs.tsv"
    assert cli("pairs", "--out", str(out)).exit_code == 0
    assert len(pd.read_csv(out, sep="\t")) == 3


def test_accuracy_json_and_options(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("accuracy", "--format", "json", "--qe", "second,first", "--ties", "wrong", "--bootstrap", "50",
                 "--seed", "9")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["qe_systems"] == ["second", "first"] and document["ties"] == "wrong"
    assert document["total"]["accuracy"] == {"first": 1.0, "second": pytest.approx(1 / 3)}
    again = json.loads(cli("accuracy", "--format", "json", "--qe", "second,first", "--ties", "wrong",
                           "--bootstrap", "50", "--seed", "9").stdout)
    assert again == document
    phenomena = json.loads(cli("accuracy", "--format", "json", "--category", "Ambiguity").stdout)
    assert [r["phenomenon"] for r in phenomena["rows"]] == ["lexical"]


def test_accuracy_text_xlsx_and_plot(cli, tmp_path) -> None:  # type: ignore[no-untyped-def]
    text = cli("accuracy")
    assert text.exit_code == 0 and "Total" in text.stdout and "weighed" in text.stdout
    result = cli("accuracy", "--format", "xlsx")
    assert result.exit_code == 2 and "error: --format xlsx writes a workbook" in result.stderr
    out = tmp_path / "table.xlsx"
    assert cli("accuracy", "--format", "xlsx", "--out", str(out)).exit_code == 0
    assert list(pd.read_excel(out)["category"]) == ["Ambiguity", "Negation", "Total", "weighed"]
    latex = tmp_path / "table.tex"
    assert cli("accuracy", "--format", "latex", "--out", str(latex)).exit_code == 0
    assert r"\toprule" in latex.read_text()
    png = tmp_path / "accuracy.png"
    assert cli("plot", "accuracy", "--out", str(png), "--bootstrap", "20").exit_code == 0
    assert png.read_bytes().startswith(b"\x89PNG")


def test_stability_command(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("stability", "--splits", "10", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["splits"] == 10


def test_unknown_qe_and_format_are_clear_errors(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("accuracy", "--qe", "third")
    assert result.exit_code == 2
    assert "error: unknown QE system(s): third (known: first, second)" in result.stderr
    result = cli("accuracy", "--format", "pdf")
    assert result.exit_code == 2 and "--format 'pdf' is not one of" in result.stderr
