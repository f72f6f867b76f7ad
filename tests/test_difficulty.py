from __future__ import annotations

import numpy as np
import pytest
from suite_builder import add_reference_set, build_suite

from filters import bertscore
from filters.bertscore import greedy_match
from filters.metrics.da_bertscore import da_bertscore, difficulty_scores, repeated_token_weights
from filters.scoring import score_outputs
from store import Database


def test_greedy_match_on_known_similarities() -> None:
    e = np.eye(3)
    reference = e  # three orthonormal reference tokens
    hyp_a = np.array([[0.8, 0.6, 0.0], [0.0, 0.0, 1.0]])
    hyp_b = np.array([[0.6, 0.0, 0.8]])
    hyp_max, ref_max = greedy_match(reference, [hyp_a, hyp_b])
    np.testing.assert_allclose(hyp_max[0], [0.8, 1.0])
    np.testing.assert_allclose(hyp_max[1], [0.8])
    np.testing.assert_allclose(ref_max, [[0.8, 0.6, 1.0], [0.6, 0.0, 0.8]])


def test_da_formulas_hand_checked() -> None:
    # reference "a b a", two systems; each reference token's best similarity to each system:
    ref_max = np.array([[0.9, 0.5, 0.7], [0.7, 0.3, 0.5]])
    result = difficulty_scores(["a", "b", "a"], ref_max, [["a", "c"], ["b"]], [np.array([0.8, 0.6]), np.array([0.5])])
    # d = 1 - mean over systems = [0.2, 0.6, 0.4]
    np.testing.assert_allclose(result.difficulty, [0.2, 0.6, 0.4])
    # DA-R = (1/3) sum d * maxsim
    np.testing.assert_allclose(result.da_r, [(0.9 * 0.2 + 0.5 * 0.6 + 0.7 * 0.4) / 3,
                                             (0.7 * 0.2 + 0.3 * 0.6 + 0.5 * 0.4) / 3])
    # DA-P: "a" weighs (0.2 + 0.4)/2 = 0.3, "c" is not in the reference -> 1, "b" weighs 0.6
    np.testing.assert_allclose(result.da_p, [(0.8 * 0.3 + 0.6 * 1.0) / 2, 0.5 * 0.6])


def test_repeated_reference_tokens_use_the_original_running_average() -> None:
    weights = repeated_token_weights(["a", "b", "a", "a"], np.array([0.1, 0.5, 0.2, 0.6]))
    assert weights == pytest.approx({"a": ((0.1 + 0.2) / 2 + 0.6) / 2, "b": 0.5})  # not the mean 0.3


def test_degenerate_segments() -> None:
    # every system matched every token perfectly: all weights 0, so DA-R = 0 and DA-P of matched tokens = 0
    perfect = difficulty_scores(["x", "y"], np.ones((2, 2)), [["x", "y"], ["x", "z"]],
                                [np.ones(2), np.array([1.0, 0.5])])
    np.testing.assert_allclose(perfect.da_r, [0.0, 0.0])
    np.testing.assert_allclose(perfect.da_p, [0.0, (0 * 1.0 + 1 * 0.5) / 2])
    # an empty hypothesis has zero similarities (they count in the difficulty) and DA-P 0
    empty = difficulty_scores(["x"], np.array([[0.8], [0.0]]), [["x"], []], [np.array([0.8]), np.array([])])
    np.testing.assert_allclose(empty.difficulty, [0.6])
    np.testing.assert_allclose(empty.da_p, [0.8 * 0.6, 0.0])
    np.testing.assert_allclose(empty.da_r, [0.8 * 0.6, 0.0])


REFS = [["The committee approved the budget on Tuesday."], ["She has lived in Berlin for ten years."],
        ["The results were better than expected.", "Results exceeded expectations."]]
OUTPUTS = {
    "good": ["The committee approved the budget on Tuesday.", "She has been living in Berlin for ten years.",
             "The results were better than expected."],
    "fair": ["On Tuesday the committee passed the budget.", "She lives in Berlin since ten years.",
             "The results were better than anticipated."],
    "poor": ["Committee budget Tuesday.", "She in Berlin ten.", "Results good."],
}


def test_da_bertscore_on_a_suite(db: Database, encoded: list[str]) -> None:
    import bert_score

    build_suite(db, "t", REFS, OUTPUTS)
    vanilla = score_outputs(db, "bertscore-f")
    encoded.clear()
    result = da_bertscore(db)
    assert encoded == []  # DA-BERTScore after vanilla BERTScore embeds nothing new
    assert result.systems == ["fair", "good", "poor"]
    model = str(bertscore.default_model_dir())
    for name, texts in OUTPUTS.items():
        p, r, f = bert_score.score(texts, REFS, model_type=model, num_layers=6)
        scores = result.system_scores[name]
        assert (scores["P"], scores["R"], scores["F"]) == pytest.approx(
            (p.mean().item(), r.mean().item(), f.mean().item()), abs=1e-5)
        assert scores["DA-F"] == pytest.approx(
            2 * scores["DA-P"] * scores["DA-R"] / (scores["DA-P"] + scores["DA-R"]))
    assert np.nanmean(vanilla.matrix()[2], axis=0) == pytest.approx(
        [result.system_scores[s]["F"] for s in ["fair", "good", "poor"]], abs=1e-6)
    ranking = sorted(result.systems, key=lambda s: result.system_scores[s]["DA-F"], reverse=True)
    assert ranking == ["good", "fair", "poor"]
    tokens = result.token_difficulty["2"]
    assert [t for t, _ in tokens] == ["she", "has", "lived", "in", "berlin", "for", "ten", "years", "."]
    by_token = dict(tokens)
    assert by_token["lived"] > by_token["berlin"]  # only one system says "lived"; all say "Berlin"
    # difficulty over a subset of systems changes the weights but not the vanilla scores
    top2 = da_bertscore(db, systems=["good", "fair"])
    assert top2.system_scores["good"]["F"] == pytest.approx(result.system_scores["good"]["F"])
    assert top2.system_scores["good"]["DA-R"] != pytest.approx(result.system_scores["good"]["DA-R"])
    assert encoded == []


def test_da_bertscore_per_output_is_the_papers_segment_score_and_a_qe_proxy(db: Database) -> None:
    """``tsqe qe metric --metric da-bertscore-f``: each output's segment DA-F (harmonic mean of its DA-P and
    DA-R), the difficulty over every system of the suite; not cached, since it moves when a system is added."""
    from sqlalchemy import func, select

    from filters.qe_proxy import store_metric_as_qe
    from store.models import MetricScore
    from suite.qe_scores import read_qe_scores

    build_suite(db, "t", REFS, OUTPUTS)
    result = da_bertscore(db)
    info = store_metric_as_qe(db, "da-bertscore-f", name="da-f")
    assert info.meta["signature"].startswith("da-bertscore-f|model:") and "|difficulty:all-systems" in \
        info.meta["signature"] and info.meta["tie_epsilon"] == 1e-6
    scores = score_outputs(db, "da-bertscore-f")
    for row in scores.rows:
        p, r = result.segments[row.system][row.position][[3, 4]]
        assert row.score == pytest.approx(2 * p * r / (p + r))
    (stored,) = read_qe_scores(db, names=["da-f"])
    assert stored.by_output() == {row.output_id: pytest.approx(row.score) for row in scores.rows}
    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(MetricScore)
                              .where(MetricScore.signature.like("da-bertscore%"))) == 0


def test_da_system_scores_resample_and_join_reference_sets(db: Database) -> None:
    from filters.metrics import suite_metric
    from suite.references import RefChoice
    from suite.tasks import TaskState

    build_suite(db, "t", REFS, OUTPUTS)
    add_reference_set(db, "para", "paraphrase", ["On Tuesday, the budget was approved by the committee.",
                                                 "For ten years she has been living in Berlin.",
                                                 "The results exceeded what was expected."])
    metric = suite_metric("da-bertscore-f")
    task = TaskState()
    own = metric.system_scores(db, ["fair", "good", "poor"], RefChoice.default(), suite_name=None, task=task)
    assert own is not None
    assert own.statistics is not None
    again = own.statistics.scores(np.ones((1, len(own.statistics.items))))
    assert {s: v[0] for s, v in again.items()} == pytest.approx(own.scores)
    paraphrase = metric.system_scores(db, ["fair", "good", "poor"], RefChoice.parse("para"), suite_name=None,
                                      task=task)
    assert paraphrase is not None
    assert paraphrase.signature.get("refs") == "para"
    joined = metric.system_scores(db, ["fair", "good", "poor"], RefChoice.parse("standard+para", "mean"),
                                  suite_name=None, task=task)
    assert joined is not None
    standard = metric.system_scores(db, ["fair", "good", "poor"], RefChoice.parse("standard"), suite_name=None,
                                    task=task)
    assert standard is not None
    assert joined.scores == pytest.approx({s: (standard.scores[s] + paraphrase.scores[s]) / 2 for s in OUTPUTS})
    assert str(joined.signature).endswith("|refs:standard+para|combine:mean")
    with pytest.raises(Exception, match="one reference set at a time"):
        da_bertscore(db, refs=RefChoice.parse("standard+para"))
    tokens = da_bertscore(db, refs=RefChoice.parse("para")).token_difficulty["2"]
    assert [t for t, _ in tokens][:3] == ["for", "ten", "years"]  # the chosen set's reference, not the first
