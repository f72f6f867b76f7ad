"""The command line end to end on the bundled demo suite.

The expected numbers were worked out by hand from suite/demo/*.tsv (see suite/demo/README.md): 78 items,
278 distinct outputs of 4 systems (312 system outputs), 7 reviews.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from cli.main import app

DEMO = "tsqe-demo-de-en"
EFFECTIVE_AFTER_DEMO = {"pass": 177, "fail": 86, "conflict": 4, "unknown": 6, "error": 5}
SYSTEMS = ["Lindenbaum-NMT", "Rheinfall-LLM", "Online-X", "Baseline-SMT"]  # best overall first


def tsqe(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(app, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def demo_db(tmp_path: Path) -> Path:
    db = tmp_path / "demo.sqlite"
    result = tsqe(db, "demo")
    assert f"Created suite '{DEMO}'" in result.stdout
    # the two deliberately broken rules are reported, with file and line
    assert result.stderr.count("suite.tsv:") == 2 and "ne-07" in result.stderr and "mwe-05" in result.stderr
    return db


def _labels(db: Path) -> dict[str, int]:
    return json.loads(tsqe(db, "label", "--json").stdout)


def _export(db: Path, path: Path) -> dict[tuple[str, str], dict[str, str]]:
    tsqe(db, "export", "labels", str(path))
    with path.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file, dialect="excel-tab"))
    return {(row["item_id"], row["system"]): row for row in rows}


def test_demo_holds_what_it_promises(demo_db: Path) -> None:
    status = json.loads(tsqe(demo_db, "status", "--json").stdout)
    assert status["suite"] == DEMO and (status["source_lang"], status["target_lang"]) == ("de", "en")
    assert status["items"] == 78 and status["items"] >= 60
    assert status["categories"] == 10 and status["phenomena"] == 33
    assert status["systems"] == 4
    assert status["outputs"] == 278 and status["system_outputs"] == 312  # identical outputs merged
    assert status["invalid_rules"] == 2
    effective = status["labels"]["effective"]
    assert {label: effective[label] for label in EFFECTIVE_AFTER_DEMO} == EFFECTIVE_AFTER_DEMO
    assert sum(status["labels"]["manual"][label] for label in ("pass", "fail", "unknown")) == 7


def test_label_json_has_every_state_and_relabelling_changes_nothing(demo_db: Path) -> None:
    labels = _labels(demo_db)
    assert labels == EFFECTIVE_AFTER_DEMO
    assert all(n > 0 for n in labels.values())


def test_a_second_demo_is_refused(demo_db: Path) -> None:
    result = CliRunner().invoke(app, ["--db", str(demo_db), "demo"])
    assert result.exit_code == 2
    assert f"already holds a suite named '{DEMO}'" in result.stderr
    assert json.loads(tsqe(demo_db, "status", "--json").stdout)["items"] == 78


def test_report_systems_in_every_format(demo_db: Path, tmp_path: Path) -> None:
    text = tsqe(demo_db, "report", "systems").stdout
    assert "overall (micro)" in text and "Multi-word expressions" in text
    overall = next(line for line in text.splitlines() if "overall (micro)" in line).split()
    assert "94.7*" in overall and "23.9" in overall and "Excluded outputs: Lindenbaum-NMT 2, Rheinfall-LLM 3, " \
        "Online-X 5, Baseline-SMT 7." in text

    md = tsqe(demo_db, "report", "systems", "--format", "md").stdout
    assert "| category | items | " + " | ".join(f"{s} | {s} pass | {s} judged" for s in SYSTEMS) + " |" in md
    # micro: L 72/76, R 70/75 (one unknown reviewed as pass), O 43/73, B 17/71; O and B significantly worse
    assert ("| overall (micro) | 78 | **94.7** | 72 | 76 | **93.3** | 70 | 75 | 58.9 | 43 | 73 | 23.9 | 17 | 71 |"
            in md)
    assert "| Multi-word expressions | 8 | **71.4** | 5 | 7 | **100.0** | 7 | 7 | 16.7 | 1 | 6 | 0.0 | 0 | 7 |" in md

    rows = list(csv.DictReader(io.StringIO(tsqe(demo_db, "report", "systems", "--format", "csv").stdout)))
    assert len(rows) == 10 + 2
    overall_row = next(r for r in rows if r["category"] == "overall (micro)")
    assert (overall_row["Baseline-SMT pass"], overall_row["Baseline-SMT judged"]) == ("17", "71")
    assert overall_row["Online-X best_cluster"] == "False" and overall_row["Rheinfall-LLM best_cluster"] == "True"

    document = json.loads(tsqe(demo_db, "report", "systems", "--format", "json").stdout)
    assert document["systems"] == SYSTEMS
    online = document["overall"]["systems"]["Online-X"]
    assert (online["pass"], online["fail"], online["excluded"], online["best_cluster"]) == (43, 30, 5, False)
    assert document["overall"]["systems"]["Rheinfall-LLM"]["best_cluster"] is True

    by_phenomenon = json.loads(tsqe(demo_db, "report", "systems", "--by", "phenomenon", "--format", "json").stdout)
    assert len(by_phenomenon["rows"]) == 33
    assert by_phenomenon["rows"][0]["category"] == "Ambiguity"

    out = tmp_path / "report.md"
    result = tsqe(demo_db, "report", "systems", "--format", "md", "--out", str(out))
    assert result.stdout == "" and out.read_text(encoding="utf-8") == md
    text_file = tmp_path / "report.txt"
    tsqe(demo_db, "report", "systems", "--out", str(text_file))
    assert text_file.read_text(encoding="utf-8") == text


def test_reviews_survive_export_import_and_relabelling(demo_db: Path, tmp_path: Path) -> None:
    rows = _export(demo_db, tmp_path / "labels.tsv")
    assert len(rows) == 312
    # a review that overrides an automatic pass
    overridden = rows[("ne-03", "Online-X")]
    assert (overridden["auto_label"], overridden["manual_label"], overridden["effective_label"]) == \
        ("pass", "fail", "fail")
    assert overridden["reviewer"] == "jonas.w" and "'wide'" in overridden["comment"] and overridden["reviewed_at"]
    # one distinct output shared by two systems carries one label for both
    assert rows[("ne-07", "Lindenbaum-NMT")]["effective_label"] == "error"
    assert rows[("ne-07", "Online-X")]["output"] == rows[("ne-07", "Lindenbaum-NMT")]["output"]

    review = tmp_path / "review.tsv"
    review.write_text("item_id\tsystem\tlabel\treviewer\tcomment\n"
                      "coe-04\tBaseline-SMT\tpass\ttester\tcapitalised genre names are still right\n",
                      encoding="utf-8")
    tsqe(demo_db, "import", "labels", str(review))
    assert _labels(demo_db) == {**EFFECTIVE_AFTER_DEMO, "pass": 178, "unknown": 5}

    # The linguist fixes the broken rule of ne-07 and makes ne-03's negative rule catch "wide".
    suite_file = Path(__file__).resolve().parents[1] / "suite" / "demo" / "suite.tsv"
    edited = suite_file.read_text(encoding="utf-8")
    edited = edited.replace("\\bhard (drive|disk\\b", "\\bhard (drive|disk)\\b")
    edited = edited.replace("\\b(two|2) (feet|yards)\\b|\\bmiles?\\b",
                            "\\b(two|2) (feet|yards)\\b|\\bmiles?\\b|\\bwide\\b")
    changed = tmp_path / "suite.tsv"
    changed.write_text(edited, encoding="utf-8")
    tsqe(demo_db, "import", "suite", str(changed), "--name", DEMO, "--update")
    # ne-07: two outputs now pass, the reviewed one (auto fail now) stays as reviewed; ne-03: auto conflict
    # under the manual fail
    assert _labels(demo_db) == {"pass": 180, "fail": 86, "conflict": 4, "unknown": 5, "error": 3}

    after = _export(demo_db, tmp_path / "labels-after.tsv")
    ne03 = after[("ne-03", "Online-X")]
    assert (ne03["auto_label"], ne03["manual_label"], ne03["effective_label"]) == ("conflict", "fail", "fail")
    assert ne03["reviewer"] == "jonas.w" and ne03["reviewed_at"] == overridden["reviewed_at"]
    ne07 = after[("ne-07", "Baseline-SMT")]
    assert (ne07["auto_label"], ne07["manual_label"], ne07["reviewer"]) == ("fail", "fail", "jonas.w")
    assert after[("ne-07", "Rheinfall-LLM")]["effective_label"] == "pass"
    assert after[("coe-04", "Baseline-SMT")]["manual_label"] == "pass"
    assert sum(1 for row in after.values() if row["manual_label"]) == 8
