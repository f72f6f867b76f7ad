"""tsqe import mqm and tsqe meta-eval --statistic on a small MQM suite."""
from __future__ import annotations

import json
from pathlib import Path

from test_mqm_import import HEADER
from typer.testing import CliRunner, Result

from cli.main import app

SYSTEMS = {"good": ["Hallo Welt.", "Guten Morgen.", "Danke schön.", "Bis bald."],
           "fair": ["Hallo Erde.", "Guten Tag Morgen.", "Danke sehr.", "Bis später bald."],
           "poor": ["Welt.", "Morgen gut.", "Schön.", "Bald."]}
REF = ["Hallo Welt.", "Guten Morgen.", "Danke schön.", "Bis bald."]
ERRORS = {"good": "No-error", "fair": "Minor", "poor": "Major"}


def mqm_file(tmp_path: Path) -> Path:
    lines = [HEADER]
    for seg, ref in enumerate(REF, start=1):
        source = f"Source {seg}."
        lines.append(f"ref\ttalk\t1\t{seg}\tr1\t{source}\t{ref}\tNo-error\tNo-error\t\n")
        for system, texts in SYSTEMS.items():
            severity = ERRORS[system]
            category = "No-error" if severity == "No-error" else "Accuracy/Mistranslation"
            target = texts[seg - 1] if severity == "No-error" else f"<v>{texts[seg - 1]}</v>"
            lines.append(f"{system}\ttalk\t1\t{seg}\tr1\t{source}\t{target}\t{category}\t{severity}\t\n")
    path = tmp_path / "mqm_toy_ende.tsv"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def run(db: Path, *args: str) -> Result:
    return CliRunner().invoke(app, ["--db", str(db), *args])


def test_import_and_statistics(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    imported = run(db, "import", "mqm", str(mqm_file(tmp_path)), "--name", "toy")
    assert imported.exit_code == 0, imported.output
    assert "4 segments, 3 systems, 'ref' as the reference" in imported.output
    result = run(db, "meta-eval", "--suites", "toy", "--metric", "chrf,bleu", "--statistic", "acc-eq,pearson",
                 "--level", "segment", "--group", "item", "--resamples", "50", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output[result.output.index("{"):])
    toy = document["datasets"]["toy"]
    assert toy["human"] == "mqm" and toy["items"] == 4 and toy["systems"] == 3
    cell = toy["metrics"]["chrf"]["acc-eq/item"]
    assert set(cell) == {"value", "epsilon", "rank", "p_vs_best"}
    assert 0.75 < cell["value"] <= 1.0 and cell["epsilon"] is not None  # chrF mostly orders them as MQM does
    assert toy["metrics"]["chrf"]["pearson/item"]["rank"] in (1, 2)
    table = run(db, "meta-eval", "--suites", "toy", "--metric", "chrf,bleu", "--statistic", "spa,acc-eq",
                "--resamples", "20", "--bars", str(tmp_path / "bars"))
    assert table.exit_code == 0, table.output
    assert "chance" in table.output and "ε=" in table.output
    assert sorted(p.name for p in (tmp_path / "bars").iterdir()) == ["toy-system-acc-eq.png", "toy-system-spa.png"]


def test_wrong_choices_exit_2(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    run(db, "import", "mqm", str(mqm_file(tmp_path)), "--name", "toy")
    for args, message in ((("--statistic", "tau"), "statistic 'tau' is not one of"),
                          (("--statistic", "spa", "--level", "segment"), "soft pairwise accuracy compares systems"),
                          (("--statistic", "pearson", "--group", "item"), "nothing to group"),
                          (("--statistic", "pearson", "--human", "da"),
                           "suite 'toy' holds no da human scores (it holds mqm)"),
                          (("--statistic", "pearson", "--human", "mos"), "human score kind 'mos' is not one of")):
        result = run(db, "meta-eval", "--suites", "toy", "--metric", "chrf", *args)
        assert result.exit_code == 2, result.output
        assert message in result.output


def test_a_second_kind_beside_mqm_is_chosen_per_statistic(tmp_path: Path) -> None:
    """DA scores of the same segments imported beside the file's MQM (``--kind da``): every statistic asks which,
    and each is computed on the kind chosen (DA here orders the systems the other way round from MQM)."""
    db = tmp_path / "t.sqlite"
    assert run(db, "import", "mqm", str(mqm_file(tmp_path)), "--name", "toy").exit_code == 0
    da = {"good": 20.0, "fair": 50.0, "poor": 90.0}
    table = tmp_path / "da.tsv"
    table.write_text("system\titem_id\tscore\n" + "".join(f"{system}\t{seg}\t{score + seg}\n" for system, score
                                                           in da.items() for seg in range(1, 5)), encoding="utf-8")
    imported = run(db, "--suite", "toy", "import", "human-scores", "--segments", str(table), "--kind", "da")
    assert imported.exit_code == 0, imported.output
    asked = ("meta-eval", "--suites", "toy", "--metric", "chrf", "--statistic", "pearson", "--level", "segment",
             "--significance", "none", "--json")
    unchosen = run(db, *asked)
    assert unchosen.exit_code == 2
    assert "suite 'toy' holds human scores of 2 kinds (da, mqm): choose the kind to compute on" in unchosen.output
    values = {}
    for kind in ("mqm", "da"):
        result = run(db, *asked, "--human", kind)
        assert result.exit_code == 0, result.output
        toy = json.loads(result.output[result.output.index("{"):])["datasets"]["toy"]
        assert toy["human"] == kind
        values[kind] = toy["metrics"]["chrf"]["pearson"]["value"]
    assert values["mqm"] > 0.5 > -0.5 > values["da"]
    again = run(db, "--suite", "toy", "import", "human-scores", "--segments", str(table), "--kind", "da")
    assert again.exit_code == 0, again.output  # the same kind again replaces it; MQM stays
    assert run(db, *asked, "--human", "mqm").exit_code == 0
