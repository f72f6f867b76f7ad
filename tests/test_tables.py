"""Every table of the project in every format, on the demo suite; suite order; the CLI writes what render gives."""
from __future__ import annotations

import csv
import html
import io
import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from sqlalchemy import delete, insert, select
from typer.testing import CliRunner

from cli.main import app
from filters.correlation import correlate
from filters.metrics.da_bertscore import da_bertscore
from filters.qe_proxy import store_metric_as_qe
from filters.scoring import score_outputs
from filters.variance import variance_filter
from qe.accuracy import pairwise_accuracy
from qe.evaluation import AccuracyOptions, accuracy, read_inputs
from qe.pairs import build_pairs
from qe.stability import ranking_stability
from store import Database, open_database
from store.models import HumanScore, System
from suite.demo import create_demo
from suite.errors import TsqeError
from suite.qe_scores import read_qe_scores
from suite.reading.report import systems_report
from suite.tables import FORMATS, Table, render, suffix_format, write_table

DEMO_TSV = Path(__file__).resolve().parents[1] / "suite" / "demo" / "suite.tsv"
HUMAN = {"Lindenbaum-NMT": 0.4, "Rheinfall-LLM": 0.3, "Online-X": -0.1, "Baseline-SMT": -0.6}
TABLES = ("systems", "accuracy", "stability", "variance", "correlation", "difficulty")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The demo suite with two metric proxies as QE systems and made-up human scores of its four systems."""
    path = tmp_path_factory.mktemp("tables") / "demo.sqlite"
    db = open_database(path)
    create_demo(db)
    store_metric_as_qe(db, "chrf")
    store_metric_as_qe(db, "bleu", name="sentence BLEU")
    with db.transaction() as session:
        ids = {name: id_ for name, id_ in session.execute(select(System.name, System.id))}
        session.execute(delete(HumanScore))  # the demo's own (invented) human scores make way for these
        session.execute(insert(HumanScore), [{"system_id": ids[name], "kind": "z", "lp": "de-en", "score": score}
                                             for name, score in HUMAN.items()])
    db.close()
    yield path


def _builders(db: Database) -> dict[str, Callable[[], Table]]:
    """Each table built as the CLI builds it with the options of :data:`CLI_OPTIONS`."""
    return {
        "systems": lambda: systems_report(db).to_table(),
        "accuracy": lambda: accuracy(read_inputs(db, None), AccuracyOptions(bootstrap=100, seed=1)).to_table(),
        "stability": lambda: ranking_stability(build_pairs(db), read_qe_scores(db), splits=20, seed=1).to_table(),
        "variance": lambda: variance_filter(score_outputs(db, "chrf"), drop=0.5).to_table(),
        "correlation": lambda: correlate(db, "chrf").to_table(),
        "difficulty": lambda: da_bertscore(db).to_table(),
    }


CLI_OPTIONS = {
    "systems": ["report", "systems"],
    "accuracy": ["accuracy", "--bootstrap", "100", "--seed", "1"],
    "stability": ["stability", "--splits", "20", "--seed", "1"],
    "variance": ["variance", "--metric", "chrf", "--drop", "0.5"],
    "correlation": ["correlate", "--metric", "chrf"],
    "difficulty": ["difficulty"],
}


@pytest.fixture(scope="module")
def tables(demo: Path) -> Iterator[dict[str, Table]]:
    db = open_database(demo)
    yield {name: build() for name, build in _builders(db).items()}
    db.close()


def _csv_rows(table: Table) -> list[list[str]]:
    return list(csv.reader(io.StringIO(render(table, "csv"))))


def _same(xlsx_value: object, csv_text: str) -> bool:
    if xlsx_value is None:
        return csv_text == ""
    if isinstance(xlsx_value, bool):
        return str(xlsx_value) == csv_text
    if isinstance(xlsx_value, (int, float)):
        return math.isclose(float(xlsx_value), float(csv_text), rel_tol=1e-12)
    return str(xlsx_value) == csv_text


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", TABLES)
def test_every_table_renders_in_every_format(tables: dict[str, Table], name: str, fmt: str, tmp_path: Path) -> None:
    table = tables[name]
    rows = table.body + table.footer
    got: Any  # a spreadsheet's row and the expected one, or a cell of the JSON and the table's
    want: Any
    assert table.body, f"the {name} table of the demo suite is empty"
    shown = [c.name for c in table.columns if c.kind != "flag"]
    if fmt == "xlsx":
        path = write_table(table, tmp_path / "table.xlsx")
        workbook = openpyxl.load_workbook(path)
        sheet = workbook.worksheets[0]
        values = [list(row) for row in sheet.iter_rows(values_only=True)]
        expected = _csv_rows(table)
        assert [str(v) for v in values[0]] == expected[0]
        assert len(values) == len(expected) == 1 + len(rows)
        for got, want in zip(values[1:], expected[1:]):
            assert all(_same(g, w) for g, w in zip(got, want, strict=True)), (got, want)
        assert [row[0].value for row in workbook["notes"].iter_rows(min_row=2)] == table.notes
        return
    text = render(table, fmt)
    assert text.endswith("\n")
    if fmt in ("csv", "tsv"):
        parsed = list(csv.reader(io.StringIO(text), delimiter="," if fmt == "csv" else "\t"))
        assert {c.name for c in table.columns} <= set(parsed[0])  # plus intervals and bold spelled out
        assert len(parsed) == 1 + len(rows)
        assert [r[0] for r in parsed[1:]] == ["" if row[0].value is None else str(row[0].value) for row in rows]
    elif fmt == "json":
        document = json.loads(text)
        assert [c["name"] for c in document["columns"]] == [c.name for c in table.columns]
        assert document["notes"] == table.notes
        for got_rows, want_rows in ((document["body"], table.body), (document["footer"], table.footer)):
            for got_row, want_row in zip(got_rows, want_rows, strict=True):
                for got, want in zip(got_row, want_row, strict=True):
                    missing = want.value is None or (isinstance(want.value, float) and math.isnan(want.value))
                    assert got["value"] == (None if missing else want.value)
                    assert got.get("bold", False) == want.bold and got.get("mark", "") == want.mark
                    if want.ci is not None:
                        assert got["ci"] == pytest.approx(list(want.ci), nan_ok=True)
    else:
        escape = {"md": lambda s: s.replace("|", "\\|").replace("*", "\\*").replace("_", "\\_").replace("<", "&lt;"),
                  "html": html.escape,
                  "latex": lambda s: s.replace("&", r"\&").replace("_", r"\_").replace("%", r"\%"),
                  "text": lambda s: s}[fmt]
        for column in shown:
            assert escape(column) in text, column
        first_cells = {str(row[0].value) for row in table.body if row[0].value is not None}
        assert all(escape(cell) in text for cell in first_cells)


def _suite_order(column: int) -> list[str]:
    with DEMO_TSV.open(encoding="utf-8", newline="") as file:
        return list(dict.fromkeys(row[column] for row in list(csv.reader(file, delimiter="\t"))[1:]))


def test_categories_and_phenomena_in_suite_order(demo: Path, tables: dict[str, Table]) -> None:
    categories = _suite_order(1)
    assert categories != sorted(categories)  # the check below would not tell suite order from alphabetical
    for name in ("systems", "accuracy", "stability"):
        assert [row[0].value for row in tables[name].body] == categories, name
    db = open_database(demo)
    try:
        phenomena = systems_report(db, by="phenomenon").to_table()
        accuracy = pairwise_accuracy(build_pairs(db), read_qe_scores(db), by="phenomenon", bootstrap=0).to_table()
    finally:
        db.close()
    in_suite = _suite_order(2)
    assert [row[1].value for row in phenomena.body] == in_suite
    with_pairs = [row[1].value for row in accuracy.body]
    assert with_pairs == [p for p in in_suite if p in with_pairs]  # phenomena without pairs have no row


def test_no_category_is_named_the_same_everywhere(db: Database) -> None:
    from qe_testdata import ItemSpec, add_qe, make_suite

    ids = make_suite(db, [ItemSpec("1", "A", "x", {"p": ("pass", ("S1",)), "f": ("fail", ("S2",))})])
    add_qe(db, "q", {ids["1", "p"]: 1.0, ids["1", "f"]: 0.0})
    pairs = build_pairs(db)
    pairs.outputs.item_categories[0] = None  # an item of a plain test set: no phenomenon, no category
    pairs.outputs.item_phenomena[0] = None
    qe = read_qe_scores(db)
    assert pairwise_accuracy(pairs, qe, bootstrap=0).to_table().body[0][0].value == "(no category)"
    by_phenomenon = pairwise_accuracy(pairs, qe, by="phenomenon", bootstrap=0).to_table()
    assert [c.value for c in by_phenomenon.body[0][:2]] == ["(no category)", "(no phenomenon)"]


@pytest.mark.parametrize("name", TABLES)
def test_the_cli_writes_what_render_gives(demo: Path, tables: dict[str, Table], name: str, tmp_path: Path) -> None:
    for fmt, suffix in (("csv", ".csv"), ("latex", ".tex")):
        out = tmp_path / f"{name}{suffix}"
        result = CliRunner().invoke(app, ["--db", str(demo), *CLI_OPTIONS[name], "--format", fmt, "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert out.read_bytes() == render(tables[name], fmt).encode("utf-8")
    result = CliRunner().invoke(app, ["--db", str(demo), *CLI_OPTIONS[name], "--format", "md"])
    assert result.exit_code == 0 and result.stdout == render(tables[name], "md")


def test_suffixes_and_bad_formats(tables: dict[str, Table], tmp_path: Path) -> None:
    assert [suffix_format(f"t{s}") for s in (".txt", ".csv", ".tsv", ".json", ".md", ".tex", ".html", ".xlsx")] == \
        list(FORMATS)
    with pytest.raises(TsqeError, match="cannot tell the table format"):
        write_table(tables["correlation"], tmp_path / "table.pdf")
    with pytest.raises(TsqeError, match="workbook"):
        render(tables["correlation"], "xlsx")
    with pytest.raises(TsqeError, match="unknown table format"):
        render(tables["correlation"], "pdf")
    assert not (tmp_path / "table.pdf").exists()
    written = write_table(tables["correlation"], tmp_path / "table.tex")
    assert written.read_text(encoding="utf-8") == render(tables["correlation"], "latex")


def test_the_out_suffix_names_the_format_and_json_keeps_richer_documents(demo: Path, tables: dict[str, Table],
                                                                          tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    assert CliRunner().invoke(app, ["--db", str(demo), "report", "systems", "--out", str(out)]).exit_code == 0
    assert out.read_text(encoding="utf-8") == render(tables["systems"], "md")
    document = json.loads(CliRunner().invoke(app, ["--db", str(demo), "report", "systems", "--format", "json"]).stdout)
    assert document["overall"]["systems"]["Online-X"]["excluded_by_label"]["unknown"] >= 0  # counts beyond the table
    table_json = CliRunner().invoke(app, ["--db", str(demo), "correlate", "--metric", "chrf", "--format", "json"])
    assert table_json.stdout == render(tables["correlation"], "json")


def test_a_results_own_document_is_its_json_and_only_its_json(demo: Path, tmp_path: Path) -> None:
    """The rule both front-ends write by: JSON is the result's own document when it has one, every other
    format is the table's."""
    db = open_database(demo)
    try:
        report = systems_report(db)
    finally:
        db.close()
    table, document = report.to_table(), report.to_json() + "\n"
    assert render(table, "json", document=document) == document != render(table, "json")
    assert write_table(table, tmp_path / "report.json", document=document).read_bytes() == document.encode("utf-8")
    assert render(table, "csv", document=document) == render(table, "csv")
    written = write_table(table, tmp_path / "report.md", document=document)
    assert written.read_bytes() == render(table, "md").encode("utf-8")


def test_only_reference_metrics_become_qe_proxies(demo: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.sqlite"  # the shared demo keeps its two QE systems for the other tests
    copy.write_bytes(demo.read_bytes())
    db = open_database(copy)
    try:
        with pytest.raises(TsqeError, match="cannot be stored as a QE system"):
            store_metric_as_qe(db, "label")
        info = store_metric_as_qe(db, "ter", name="TER proxy")
        assert (info.kind, info.higher_is_better, info.scores) == ("metric", False, 278)
        assert info.meta["signature"].startswith("ter|")
    finally:
        db.close()
