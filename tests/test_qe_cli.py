from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from qe_testdata import ItemSpec, add_qe, make_suite
from typer.testing import CliRunner, Result

from cli.main import app
from store import Database


@pytest.fixture
def cli(db: Database, tmp_path: Path) -> Callable[..., Result]:
    ids = make_suite(db, [
        ItemSpec("1", "Ambiguity", "lexical", {"a": ("pass", ("S1", "S2")), "b": ("fail", ("S3",)),
                                               "c": ("fail", ("S4",))}),
        ItemSpec("2", "Negation", "negation", {"d": ("pass", ("S1",)), "e": ("fail", ("S2",))}),
    ])
    add_qe(db, "first", {o: float(len(t)) + (1.0 if t in "ad" else 0.0) for (_, t), o in ids.items()})
    add_qe(db, "second", {o: (1.0 if t in ("b", "d") else 0.0) for (_, t), o in ids.items()})
    url = str(db.engine.url)
    runner = CliRunner()

    def run(*args: str) -> Result:
        return runner.invoke(app, ["--db", url, *args])

    return run


def test_pairs_to_stdout_and_file(cli: Callable[..., Result], tmp_path: Path) -> None:
    result = cli("pairs")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout), delimiter="\t"))
    assert [(r["item_id"], r["pass_output"], r["fail_output"], r["pass_systems"]) for r in rows] == [
        ("1", "a", "b", "S1,S2"), ("1", "a", "c", "S1,S2"), ("2", "d", "e", "S1")]
    out = tmp_path / "pairs.tsv"
    assert cli("pairs", "--out", str(out)).exit_code == 0
    assert len(pd.read_csv(out, sep="\t")) == 3


def test_accuracy_json_and_options(cli: Callable[..., Result]) -> None:
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


def test_accuracy_text_xlsx_and_plot(cli: Callable[..., Result], tmp_path: Path) -> None:
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


def test_stability_command(cli: Callable[..., Result]) -> None:
    result = cli("stability", "--splits", "10", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["splits"] == 10


def test_unknown_qe_and_format_are_clear_errors(cli: Callable[..., Result]) -> None:
    result = cli("accuracy", "--qe", "third")
    assert result.exit_code == 2
    assert "error: no QE system named 'third' (known: first, second)" in result.stderr
    result = cli("accuracy", "--format", "pdf")
    assert result.exit_code == 2 and "--format 'pdf' is not one of" in result.stderr


def test_end_to_end_through_the_importers(db: Database, tmp_path: Path) -> None:
    """Suite, outputs, reviewed labels and QE scores imported from files, then `tsqe accuracy`."""
    from suite.importers import import_outputs, import_qe_scores, import_reviews, import_suite

    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    import_suite(db, write("suite.tsv", "id\tcategory\tphenomenon\tsource\tpositive_regex\n"
                                        "1\tA\ta\tDas Haus.\thouse\n2\tB\tb\tNein.\tNo\n"), name="s",
                 source_lang="de", target_lang="en")
    import_outputs(db, write("outputs.tsv", "item_id\tsystem\toutput\n1\tS1\tThe house.\n1\tS2\tThe house.\n"
                                            "1\tS3\tThe home.\n1\tS4\tA building.\n2\tS1\tNo.\n2\tS2\tYes.\n"))
    import_reviews(db, write("reviews.tsv", "item_id\tsystem\tlabel\treviewer\n1\tS1\tpass\tann\n"
                                            "1\tS3\tfail\tann\n1\tS4\tfail\tann\n2\tS1\tpass\tann\n2\tS2\tfail\tann\n"))
    import_qe_scores(db, write("qe.tsv", "item_id\tsystem\tscore\n1\tS1\t0.1\n1\tS2\t0.1\n1\tS3\t0.5\n"
                                         "1\tS4\t0.05\n2\tS1\t0.2\n2\tS2\t0.9\n"), name="ter-like",
                     lower_is_better=True)
    runner = CliRunner()
    pairs = runner.invoke(app, ["--db", str(db.engine.url), "pairs"])
    assert [line.split("\t")[3:] for line in pairs.stdout.splitlines()[1:]] == [
        ["The house.", "The home.", "S1,S2", "S3"], ["The house.", "A building.", "S1,S2", "S4"],
        ["No.", "Yes.", "S1", "S2"]]
    result = runner.invoke(app, ["--db", str(db.engine.url), "accuracy", "--format", "json", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert [(r["category"], r["amount"], r["accuracy"]["ter-like"]) for r in document["rows"]] == [
        ("A", 2, 0.5), ("B", 1, 1.0)]
    assert document["total"]["accuracy"]["ter-like"] == pytest.approx(2 / 3)
    assert document["weighed"]["accuracy"]["ter-like"] == 0.75
    assert document["higher_is_better"] == {"ter-like": False}
