from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from filters.correlation import choose_systems, correlations
from filters.metrics import Signature
from filters.variance import deviations, export_selection, filter_matrix
from store import Database
from suite.errors import TsqeError
from suite.importers.wmt import import_wmt

NAN = math.nan


def test_deviation_is_the_population_std_over_the_scored_systems() -> None:
    std, mean, count = deviations(np.array([[0.1, 0.3, 0.5], [NAN, 0.0, 2.0], [NAN, NAN, NAN], [0.7, NAN, NAN]]))
    # ddof=0: sqrt(((-0.2)^2 + 0 + 0.2^2) / 3), not the sample std sqrt(0.08 / 2) = 0.2
    assert std[0] == pytest.approx(math.sqrt(0.08 / 3))
    assert mean[0] == pytest.approx(0.3)
    assert std[1] == pytest.approx(1.0) and mean[1] == pytest.approx(1.0)
    assert math.isnan(std[2]) and list(count) == [3, 2, 0, 1]
    assert std[3] == 0.0


# Rows built as [m - s, m + s] have population std exactly s.
STDS = {"a": 0.0, "b": 1.0, "c": 1.0, "d": 2.0, "e": 3.0}
MATRIX = np.array([[5 - s, 5 + s] for s in STDS.values()])


def test_items_strictly_above_the_percentile_are_kept() -> None:
    # sorted stds 0, 1, 1, 2, 3; numpy's linear percentile at 60: rank 0.6 * 4 = 2.4 -> 1 + 0.4 * (2 - 1) = 1.4
    result = filter_matrix(list(STDS), MATRIX, drop=0.6, signature=Signature("sig"))
    assert result.threshold == pytest.approx(1.4)
    assert result.kept == ["d", "e"] and result.dropped == 3
    assert [(r.item, r.std, r.mean) for r in result.ranking] == [
        ("e", 3.0, 5.0), ("d", 2.0, 5.0), ("b", 1.0, 5.0), ("c", 1.0, 5.0), ("a", 0.0, 5.0)]
    assert result.to_json("bleu")["kept"] == ["d", "e"]


def test_ties_at_the_percentile_are_dropped() -> None:
    # percentile 50: rank 0.5 * 4 = 2 -> exactly 1.0, shared by b and c; "strictly above" drops both
    result = filter_matrix(list(STDS), MATRIX, drop=0.5)
    assert result.threshold == 1.0
    assert result.kept == ["d", "e"]
    # drop 0 keeps everything above the minimum: the all-alike item goes even then
    assert filter_matrix(list(STDS), MATRIX, drop=0.0).kept == ["b", "c", "d", "e"]


def test_unscored_items_are_neither_ranked_nor_kept() -> None:
    values = np.vstack([MATRIX, [NAN, NAN]])
    result = filter_matrix([*STDS, "z"], values, drop=0.6)
    assert result.unscored == ["z"] and result.kept == ["d", "e"]
    assert [r.item for r in result.ranking] == ["e", "d", "b", "c", "a"]
    with pytest.raises(TsqeError, match="share of items to drop"):
        filter_matrix(list(STDS), MATRIX, drop=1.0)


def test_selection_is_written_in_the_vat_layout(db: Database, tmp_path: Path) -> None:
    systems = tmp_path / "sys"
    systems.mkdir()
    sources = [f"Satz {i}." for i in range(1, 6)]
    (tmp_path / "src.de").write_text("".join(f"{s}\n" for s in sources))
    (tmp_path / "ref.en").write_text("".join(f"Sentence {i}.\n" for i in range(1, 6)))
    for name in ("s1", "s2"):
        (systems / f"newstest2019.{name}.de-en").write_text("".join(f"{name} {i}.\n" for i in range(1, 6)))
    import_wmt(db, src=tmp_path / "src.de", refs=[tmp_path / "ref.en"], systems=[systems], name="newstest2019")
    # item ids are line numbers; give items 2 and 5 the highest deviation
    result = filter_matrix(["1", "2", "3", "4", "5"], np.array([[0, 0], [0, 4], [0, 1], [0, 2], [0, 6]]), drop=0.6)
    assert result.kept == ["2", "5"]
    out = tmp_path / "out"
    written = export_selection(db, result, out, metric="bertscore-r")
    assert sorted(p.name for p in written) == ["bertscore-r_filter-std60.json", "vat_newstest2019-deen-ref.en",
                                              "vat_newstest2019-deen-src.de"]
    assert json.loads((out / "bertscore-r_filter-std60.json").read_text()) == {"de-en": [1, 4]}
    assert (out / "vat_newstest2019-deen-src.de").read_text() == "Satz 2.\nSatz 5.\n"
    assert (out / "vat_newstest2019-deen-ref.en").read_text() == "Sentence 2.\nSentence 5.\n"


def test_system_correlations_match_hand_computed_values() -> None:
    # dx = dy up to one swap: sum dx*dy = 4, sum dx^2 = 5 -> r = 0.8; 5 concordant, 1 discordant -> tau = 4/6
    pearson, spearman, kendall = correlations([1, 2, 3, 4], [1, 3, 2, 4])
    assert pearson == pytest.approx(0.8)
    assert spearman == pytest.approx(0.8)  # ranks are the values here
    assert kendall == pytest.approx(2 / 3)
    assert all(math.isnan(v) for v in correlations([1, 2, 3], [5, 5, 5]))


def test_top_k_takes_the_best_systems_by_human_score() -> None:
    human = {"a": 0.1, "b": 0.3, "c": -0.2, "d": 0.2}
    assert choose_systems(human) == ["b", "d", "a", "c"]
    assert choose_systems(human, 2) == ["b", "d"]
    with pytest.raises(TsqeError, match="only 4 have human scores"):
        choose_systems(human, 5)
    with pytest.raises(TsqeError, match="at least 2"):
        choose_systems(human, 1)


HUMAN = {"sysA.1": 0.3, "sysB.1": 0.1, "sysC.1": 0.2, "sysD.1": -0.1}
# passes per system over 4 items: A 4, B 2, C 3, D 1 -> pass rates 1.0, 0.5, 0.75, 0.25
PASSES = {"sysA.1": 4, "sysB.1": 2, "sysC.1": 3, "sysD.1": 1}


@pytest.fixture
def labelled(db: Database, tmp_path: Path) -> Database:
    """Four systems with distinct outputs on four items, labelled pass/fail by hand, with human scores."""
    from sqlalchemy import insert, select

    from store.models import AutoLabel, Output, System, SystemOutput
    from suite.importers.human_scores import import_human_scores

    systems = tmp_path / "sys"
    systems.mkdir()
    (tmp_path / "src.de").write_text("".join(f"Satz {i}.\n" for i in range(4)))
    (tmp_path / "ref.en").write_text("".join(f"Sentence {i}.\n" for i in range(4)))
    for name in HUMAN:
        (systems / f"nt.{name}.de-en").write_text("".join(f"{name} {i}\n" for i in range(4)))
    import_wmt(db, src=tmp_path / "src.de", refs=[tmp_path / "ref.en"], systems=[systems], name="nt")
    (tmp_path / "da.csv").write_text("LP HUMAN SYSTEM\n" + "".join(f"de-en {v} {k}\n" for k, v in HUMAN.items()))
    import_human_scores(db, tmp_path / "da.csv", lp="de-en")
    with db.transaction() as session:
        rows = session.execute(select(System.name, Output.id, Output.text)
                               .join(SystemOutput, SystemOutput.system_id == System.id)
                               .join(Output, Output.id == SystemOutput.output_id)).all()
        session.execute(insert(AutoLabel), [
            {"output_id": output_id, "label": "pass" if int(text.split()[-1]) < PASSES[name] else "fail",
             } for name, output_id, text in rows])
    return db


def test_correlate_label_pass_rates_with_human_scores(labelled: Database) -> None:
    from filters.correlation import correlate

    result = correlate(labelled, "label")
    assert result.systems == ["sysA.1", "sysC.1", "sysB.1", "sysD.1"]
    assert result.scores == {"sysA.1": 1.0, "sysC.1": 0.75, "sysB.1": 0.5, "sysD.1": 0.25}
    # human 0.3, 0.2, 0.1, -0.1 vs 1, .75, .5, .25: same order -> tau 1; r by hand:
    # dx = .175, .075, -.025, -.225 ; dy = .375, .125, -.125, -.375
    # sum dx*dy = .065625 + .009375 + .003125 + .084375 = .1625
    # sum dx^2 = .0875, sum dy^2 = .3125 -> r = .1625 / sqrt(.0875 * .3125) = 0.98271...
    assert result.kendall == pytest.approx(1.0)
    assert result.pearson == pytest.approx(0.1625 / math.sqrt(0.0875 * 0.3125))
    top = correlate(labelled, "label", top=3)
    assert top.systems == ["sysA.1", "sysC.1", "sysB.1"] and top.kendall == pytest.approx(1.0)


def test_cli_variance_and_correlate_print_json(labelled: Database, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app
    db_path = str(labelled.engine.url.database)
    runner = CliRunner()
    result = runner.invoke(app, ["--db", db_path, "correlate", "--metric", "label", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["metric"] == "label" and payload["kendall"] == pytest.approx(1.0)
    assert payload["scores"]["sysD.1"] == 0.25
    result = runner.invoke(app, ["--db", db_path, "variance", "--metric", "label", "--drop", "0.5", "--json",
                                 "--vat-dir", str(tmp_path / "vat")])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    # item i passes for systems with more than i passes: 4, 3, 2, 1 of 4 -> std 0, .433, .5, .433
    assert [r["item"] for r in payload["ranking"]] == ["3", "2", "4", "1"]
    assert payload["kept"] == ["3"] and payload["dropped"] == 3
    assert json.loads((tmp_path / "vat" / "label_filter-std50.json").read_text()) == {"de-en": [2]}


def test_corpus_score_is_sacrebleus_with_per_segment_references() -> None:
    from sacrebleu.metrics import BLEU

    from filters.metrics import get_metric

    hypotheses = ["the cat sat on the mat", "a dog barked loudly"]
    references = [["the cat sat on the mat", "a cat sat on a mat"], ["the dog barked"]]
    expected = BLEU(effective_order=True).corpus_score(
        hypotheses, [["the cat sat on the mat", "the dog barked"], ["a cat sat on a mat", None]]).score  # type: ignore[list-item]
    assert get_metric("bleu").corpus_score(hypotheses, references) == pytest.approx(expected)
    assert get_metric("ter").corpus_score(hypotheses, references) > 0


def test_every_listed_metric_is_one_the_core_accepts() -> None:
    """The screens and ``tsqe variance --help`` offer the registry's names: each must be one the core makes."""
    from filters.metrics import MetricOptions, metric_names, metric_spec, suite_metric

    for name in metric_names(qe_systems=["kiwi"]):
        metric = suite_metric(name, MetricOptions(layers=6) if metric_spec(name).needs_model else None)
        assert metric.spec == metric_spec(name)
