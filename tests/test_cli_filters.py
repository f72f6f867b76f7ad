from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import insert, select, update
from suite_builder import add_reference_set, build_suite
from typer.testing import CliRunner, Result

from cli.main import app
from filters.metrics import get_metric
from store import open_database
from store.models import HumanScore, HumanScoreSet, Suite, System
from suite.suites import UNKNOWN_LANGUAGE

REFS = [["The committee approved the budget."], ["She has lived in Berlin for ten years."]]
OUTPUTS = {"good": ["The committee approved the budget.", "She has lived in Berlin for ten years."],
           "fair": ["The committee passed the budget.", "She lives in Berlin since ten years."],
           "poor": ["Committee budget.", "She Berlin."]}


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "cli.sqlite"
    database = open_database(path)
    build_suite(database, "wmt", REFS, OUTPUTS)
    with database.transaction() as session:
        ids = dict(session.execute(select(System.name, System.id)).all())
        session.execute(insert(HumanScore), [{"system_id": ids[n], "kind": "z", "lp": "de-en", "score": s}
                                             for n, s in (("good", 0.3), ("fair", 0.1), ("poor", -0.5))])
        session.execute(insert(HumanScoreSet).values(suite_id=session.scalar(select(Suite.id)), kind="z",
                                                     source="test"))
    database.close()
    return path


def run(db_path: Path, *args: str) -> Result:
    return CliRunner().invoke(app, ["--db", str(db_path), *args])


def test_score_writes_tsv(db_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "chrf.tsv"
    result = run(db_path, "score", "--metric", "chrf", "--out", str(out))
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert lines[0] == "item_id\tsystem\tscore" and len(lines) == 1 + 6
    item, system, score = lines[1].split("\t")
    assert (item, system) == ("1", "fair")
    assert float(score) == pytest.approx(get_metric("chrf").score([OUTPUTS["fair"][0]], [REFS[0]])[0])
    assert str(get_metric("chrf").signature) in result.output  # on stderr


def test_difficulty_top_k_by_human_scores_json(db_path: Path) -> None:
    result = run(db_path, "difficulty", "--systems", "top:2", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["systems"] == ["good", "fair"]
    assert set(document["scores"]["good"]) == {"P", "R", "F", "DA-P", "DA-R", "DA-F"}
    assert [t for t, _ in document["items"]["1"]] == ["the", "committee", "approved", "the", "budget", "."]


def test_difficulty_draws_the_distribution_of_the_weights(db_path: Path, tmp_path: Path) -> None:
    result = run(db_path, "difficulty", "--systems", "top:2", "--figure", str(tmp_path / "weights.svg"), "--json")
    assert result.exit_code == 0, result.output
    assert "<svg" in (tmp_path / "weights.svg").read_text(encoding="utf-8")
    bad = run(db_path, "difficulty", "--figure", str(tmp_path / "weights.gif"))
    assert bad.exit_code == 2 and "must end in one of .png, .svg, .pdf" in bad.output


def test_difficulty_rank_by_file_and_text_report(db_path: Path, tmp_path: Path) -> None:
    ranking = tmp_path / "DA-syslevel.csv"
    ranking.write_text("LP HUMAN SYSTEM\nen-de 9.0 poor\nde-en 0.2 poor\nde-en 0.1 good\nde-en -1 fair\n")
    result = run(db_path, "difficulty", "--systems", "top:2", "--rank-by", str(ranking))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[1].split() == ["system", "P", "R", "F", "DA-P", "DA-R", "DA-F"]
    assert {lines[2].split()[0], lines[3].split()[0]} == {"poor", "good"}
    assert lines[-1].startswith("2\tshe(")


def test_difficulty_errors(db_path: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("LP HUMAN SYSTEM\nde-en high good\n")
    result = run(db_path, "difficulty", "--systems", "top:2", "--rank-by", str(bad))
    assert result.exit_code == 2 and "bad.csv:2: HUMAN 'high' is not a number" in result.output
    result = run(db_path, "difficulty", "--systems", "top:9")
    assert result.exit_code == 2 and "only 3 systems are ranked" in result.output
    result = run(db_path, "difficulty", "--systems", "good,nope")
    assert result.exit_code == 2 and "unknown system(s) nope" in result.output


def test_ranking_by_a_file_needs_the_suites_languages(db_path: Path, tmp_path: Path) -> None:
    """An unknown language is shown as ``?``, as everywhere else, not as an empty string beside a dash."""
    ranking = tmp_path / "DA-syslevel.csv"
    ranking.write_text("LP HUMAN SYSTEM\nde-en 0.2 poor\nde-en 0.1 good\nde-en -1 fair\n")
    database = open_database(db_path)
    with database.transaction() as session:
        session.execute(update(Suite).values(source_lang=UNKNOWN_LANGUAGE))
    database.close()
    result = run(db_path, "difficulty", "--systems", "top:2", "--rank-by", str(ranking))
    assert result.exit_code == 2 and "suite 'wmt' is ?-en: its languages must be known to find its lines in " \
        f"{ranking}" in " ".join(result.output.split())
    assert run(db_path, "suite", "edit", "--source-lang", "de").exit_code == 0
    assert run(db_path, "difficulty", "--systems", "top:2", "--rank-by", str(ranking)).exit_code == 0


def _add_set(db_path: Path, name: str, kind: str, texts: list[str]) -> None:
    database = open_database(db_path)
    add_reference_set(database, name, kind, texts)
    database.close()


PARAPHRASE = ["The budget was approved by the committee.", "For ten years she has been living in Berlin."]


def test_every_metric_command_takes_a_reference_set(db_path: Path, tmp_path: Path) -> None:
    _add_set(db_path, "para", "paraphrase", PARAPHRASE)
    out = tmp_path / "para.tsv"
    result = run(db_path, "score", "--metric", "chrf", "--refs", "para", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert f"{get_metric('chrf').signature}|refs:para|combine:multi" in result.output
    scores = {tuple(line.split("\t")[:2]): float(line.split("\t")[2]) for line in out.read_text().splitlines()[1:]}
    assert scores[("1", "fair")] == pytest.approx(get_metric("chrf").score([OUTPUTS["fair"][0]], [[PARAPHRASE[0]]])[0])

    joined = run(db_path, "correlate", "--metric", "bleu", "--refs", "standard+para", "--combine", "mean", "--json")
    assert joined.exit_code == 0, joined.output
    document = json.loads(joined.stdout)
    assert document["refs"] == "standard+para" and document["signature"].endswith("|refs:standard+para|combine:mean")
    bleu = {name: get_metric("bleu").corpus_score(texts, [[r[0]] for r in REFS]) for name, texts in OUTPUTS.items()}
    para = {name: get_metric("bleu").corpus_score(texts, [[p] for p in PARAPHRASE]) for name, texts in OUTPUTS.items()}
    assert document["scores"] == pytest.approx({name: (bleu[name] + para[name]) / 2 for name in OUTPUTS})

    variance = run(db_path, "variance", "--metric", "chrf", "--refs", "para", "--json")
    assert variance.exit_code == 0, variance.output
    assert json.loads(variance.stdout)["signature"].endswith("|refs:para|combine:multi")
    difficulty = run(db_path, "difficulty", "--refs", "para", "--json")
    assert difficulty.exit_code == 0, difficulty.output
    document = json.loads(difficulty.stdout)
    assert document["refs"] == "para" and [t for t, _ in document["items"]["1"]][:3] == ["the", "budget", "was"]
    qe = run(db_path, "qe", "metric", "--metric", "ter", "--refs", "para", "--name", "ter-para")
    assert qe.exit_code == 0, qe.output
    assert "|refs:para|combine:multi)" in qe.output


def test_a_reference_set_the_suite_lacks_is_an_error_naming_its_sets(db_path: Path) -> None:
    result = run(db_path, "score", "--metric", "chrf", "--refs", "wmt.p")
    assert result.exit_code == 2
    assert "no reference set 'wmt.p' (its sets: standard)" in result.output
    result = run(db_path, "score", "--metric", "chrf", "--refs", "a,b")
    assert result.exit_code == 2 and "join sets with +" in result.output
    result = run(db_path, "score", "--metric", "bleu", "--layers", "3")
    assert result.exit_code == 2 and "bleu compares words with references: it takes no embedding model" in result.output
