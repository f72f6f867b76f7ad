"""Every output format of the accuracy table carries the right numbers; the plot file is written."""
from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from qe_testdata import ItemSpec, add_qe, make_suite

from qe.accuracy import AccuracyResult, pairwise_accuracy
from qe.pairs import build_pairs
from qe.plots import save_accuracy_plot
from store import Database
from suite.errors import TsqeError
from suite.qe_scores import read_qe_scores
from suite.tables import render, write_table


@pytest.fixture
def result(db: Database) -> AccuracyResult:
    """Category "A & B" (2 pairs): hi right on both, lo right on one; category "C_1" (1 pair): both right."""
    ids = make_suite(db, [
        ItemSpec("1", "A & B", "x", {"p": ("pass", ("S1",)), "f": ("fail", ("S2",)), "g": ("fail", ("S3",))}),
        ItemSpec("2", "C_1", "y", {"p": ("pass", ("S1",)), "f": ("fail", ("S2",))}),
    ])
    add_qe(db, "hi", {ids["1", "p"]: 1.0, ids["1", "f"]: 0.0, ids["1", "g"]: 0.5, ids["2", "p"]: 1, ids["2", "f"]: 0})
    add_qe(db, "lo", {ids["1", "p"]: 0.7, ids["1", "f"]: 0.0, ids["1", "g"]: 0.9, ids["2", "p"]: 0, ids["2", "f"]: 1},
           higher_is_better=False)
    return pairwise_accuracy(build_pairs(db), read_qe_scores(db), bootstrap=100, seed=3)


def test_json_schema(result: AccuracyResult) -> None:
    document = json.loads(result.to_json())
    assert document["by"] == "category" and document["ties"] == "half"
    assert document["qe_systems"] == ["hi", "lo"]
    first = document["rows"][0]
    assert set(first) >= {"category", "phenomenon", "amount", "accuracy", "ci", "best"}
    assert (first["category"], first["phenomenon"], first["amount"]) == ("A & B", None, 2)
    assert first["accuracy"] == {"hi": 1.0, "lo": 0.5}
    assert first["best"] == ["hi"]  # one item: the bootstrap cannot vary, 1.0 beats 0.5 every time
    assert first["ci"]["hi"] == [1.0, 1.0]
    assert first["too_few"] is True
    assert document["total"]["amount"] == 3
    assert document["total"]["accuracy"] == {"hi": 1.0, "lo": pytest.approx(2 / 3)}
    assert document["weighed"]["accuracy"] == {"hi": 1.0, "lo": 0.75}
    for block in [*document["rows"], document["total"], document["weighed"]]:
        for name in document["qe_systems"]:
            low, high = block["ci"][name]
            assert 0 <= low <= block["accuracy"][name] <= high <= 1


def test_csv_and_tsv(result: AccuracyResult) -> None:
    for fmt, delimiter in (("csv", ","), ("tsv", "\t")):
        rows = list(csv.DictReader(io.StringIO(render(result.to_table(), fmt)), delimiter=delimiter))
        assert [r["category"] for r in rows] == ["A & B", "C_1", "Total", "weighed"]
        assert [r["amount"] for r in rows] == ["2", "1", "3", ""]
        assert float(rows[0]["lo"]) == 0.5 and float(rows[2]["lo"]) == pytest.approx(2 / 3)
        assert float(rows[3]["lo"]) == 0.75
        assert rows[0]["hi best"] == "True" and rows[0]["lo best"] == "False"
        assert {"hi ci_low", "hi ci_high", "too_few"} <= set(rows[0])


def test_latex_uses_booktabs_bold_and_escapes(result: AccuracyResult) -> None:
    latex = render(result.to_table(), "latex")
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert rule in latex
    line = next(line for line in latex.splitlines() if line.startswith(r"A \& B"))
    assert r"\textbf{100.0}" in line and "50.0 " in line and r"\textbf{50.0}" not in line
    assert r"\textsuperscript{\dag{}}" in line
    assert r"C\_1" in latex
    assert "66.7" in next(line for line in latex.splitlines() if line.startswith("Total"))


def test_markdown_and_text_show_percentages(result: AccuracyResult) -> None:
    markdown = render(result.to_table(), "md")
    assert "| A & B | 2† | **100.0** [100.0, 100.0] | 50.0 [50.0, 50.0] |" in markdown
    assert "| weighed |  | **100.0**" in markdown
    text = render(result.to_table(), "text")
    assert "100.0*" in text and "66.7" in text and "weighed" in text


def test_html_is_self_contained(result: AccuracyResult) -> None:
    page = render(result.to_table(), "html")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert "http" not in page and "<script" not in page and "<link" not in page
    assert "A &amp; B" in page and "<strong>100.0</strong>" in page

    cells: list[str] = []

    class Cells(HTMLParser):
        def handle_data(self, data: str) -> None:
            cells.append(data.strip())

    Cells().feed(page)
    assert "66.7" in cells


def test_xlsx_reads_back_with_pandas(result: AccuracyResult, tmp_path: Path) -> None:
    path = tmp_path / "accuracy.xlsx"
    write_table(result.to_table(), path)
    frame = pd.read_excel(path, sheet_name=0)
    assert list(frame["category"]) == ["A & B", "C_1", "Total", "weighed"]
    assert list(frame["lo"]) == pytest.approx([0.5, 1.0, 2 / 3, 0.75])
    assert "too few pairs" in " ".join(pd.read_excel(path, sheet_name="notes")["notes"])


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_is_written(result: AccuracyResult, tmp_path: Path, suffix: str) -> None:
    path = save_accuracy_plot(result, tmp_path / f"accuracy{suffix}")
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in data[:2000]
    with pytest.raises(TsqeError, match="must end in"):
        save_accuracy_plot(result, tmp_path / "accuracy.gif")
