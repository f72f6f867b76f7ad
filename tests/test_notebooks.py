"""The example notebooks (issue 31) run, as a reader would run them, with nbclient: on the bundled demo suite
(what they do without ``TSQE_DB``) and, with the real data beside the checkout, on DFKI de-en with the WMT21
systems and on WMT19 en-de with Freitag et al.'s reference sets. Their outputs are stripped in the repository."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

import tsqe

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
ACCURACY = EXAMPLES / "qe-accuracy-per-category.ipynb"
REFERENCES = EXAMPLES / "reference-sets.ipynb"
NOTEBOOKS = [ACCURACY, REFERENCES]


def execute(path: Path, env: dict[str, str], cwd: Path) -> Any:
    """Run every cell in a fresh kernel with ``env`` added to this environment; an error in a cell fails here."""
    notebook = nbformat.read(path, as_version=4)
    saved = dict(os.environ)
    os.environ.update({"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **env})
    for name in ("TSQE_DB", "TSQE_SUITE", "MPLBACKEND"):  # the kernel's own inline backend draws the figures
        if name not in env:
            os.environ.pop(name, None)
    try:
        NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
                       ).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return notebook


def text_of(cell: Any) -> str:
    """What a cell showed: its printed text and its results' plain text (a DataFrame's too)."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        parts.append(output.get("data", {}).get("text/plain", ""))
    return "".join(parts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_notebooks_are_kept_without_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(not cell.outputs and cell.execution_count is None for cell in code)


def test_qe_accuracy_in_five_cells_on_the_demo(tmp_path: Path) -> None:
    notebook = execute(ACCURACY, {}, tmp_path)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert len(code) == 5
    assert "suites: ['tsqe-demo-de-en']" in text_of(code[0])
    table = text_of(code[2])
    assert "Verb tense/aspect/mood" in table and "Total" in table and "demo-qe ci_low" in table
    assert "demo-chrf" in text_of(code[3])
    assert any("image/png" in output.get("data", {}) for output in code[4].outputs)


def test_reference_sets_on_the_demo(tmp_path: Path) -> None:
    notebook = execute(REFERENCES, {}, tmp_path)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert "reference entries ['default', 'standard', 'known-good']" in text_of(code[1])
    ranking = text_of(code[3])
    assert "known-good" in ranking and "bleu" in ranking and "chrf" in ranking


@pytest.mark.shared
def test_qe_accuracy_on_dfki_de_en(shared_data: Path, tmp_path: Path) -> None:
    """The suite imported, labelled and given a QE system through the API, as a reader would prepare it."""
    database = tmp_path / "dfki.sqlite"
    with tsqe.open(database) as db:
        db.import_suite(shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
        suite = db.suite()
        suite.import_outputs(shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv", label=True)
        suite.train_qe(name="pairwise-gb", kind="pairwise-gb", folds=3)
    notebook = execute(ACCURACY, {"TSQE_DB": str(database)}, tmp_path)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert "de-en: 2767 items, 19 MT systems" in text_of(code[1])
    table = text_of(code[2])
    assert "Ambiguity" in table and "pairwise-gb ci_low" in table and "Total" in table


@pytest.mark.shared
def test_reference_sets_on_wmt19_en_de(shared_data: Path, tmp_path: Path) -> None:
    """Freitag et al.'s reference sets of newstest2019 en-de with WMT19's DA scores, imported through the API."""
    wmt19 = shared_data / "global-explainability-metrics" / "WMT19"
    paraphrased = shared_data / "wmt19-paraphrased-references" / "wmt19" / "ende"
    database = tmp_path / "wmt19.sqlite"
    with tsqe.open(database) as db:
        db.import_wmt(name="newstest2019-ende", src=wmt19 / "source" / "newstest2019-ende-src.en",
                      refs=[wmt19 / "references" / "newstest2019-ende-ref.de"], ref_names=["wmt"],
                      systems=[wmt19 / "system-outputs" / "en-de"])
        suite = db.suite()
        for name, stem, kind in (("ar", "ar", "standard"), ("wmt.p", "wmtp", "paraphrase")):
            suite.import_references(paraphrased / f"wmt19-ende-{stem}.ref", name=name, kind=kind)
        suite.import_human_scores(wmt19 / "DA-syslevel.csv", lp="en-de")
    notebook = execute(REFERENCES, {"TSQE_DB": str(database)}, tmp_path)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert "reference entries ['default', 'ar', 'wmt', 'wmt.p']" in text_of(code[1])
    assert "wmt.p" in text_of(code[3])
