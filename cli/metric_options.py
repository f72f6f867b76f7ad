"""The options every metric command shares: the metric's configuration and the reference choice.

Metric names in help texts come from the registry (``filters.metrics.metric_names``), so a command never
offers a metric the core does not know.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from cli.choices import KNOWN_GOOD, REFERENCE_COMBINATIONS
from filters.metrics import MetricOptions, metric_names

if TYPE_CHECKING:
    from suite.references import RefChoice

MODEL_HELP = "Local Hugging Face model directory for BERTScore (default: the bundled all-MiniLM-L6-v2)."
LAYERS_HELP = "Model layer whose output is used (default: 6 for the bundled model)."
DEVICE_HELP = "Torch device, e.g. cpu or cuda (default: cuda when available)."
EMBEDDINGS_HELP = ("How BERTScore keeps token embeddings: float16 in the database (the default: about 22 KB a "
                   "sentence, scores within 1e-5 of float32), float32 (bert_score's own vectors, twice the size), "
                   "or none (not stored: a later run embeds again).")
TOKENIZE_HELP = "BLEU's sacrebleu tokenizer, e.g. 13a (the default) or intl (Freitag et al. 2020)."
REFS_HELP = (f"Reference set: one set (wmt.p), sets joined by + (ar+wmt), or {KNOWN_GOOD} (the items' known good "
             "translations). Default: every reference of kind standard, pooled.")
COMBINE_HELP = (f"How sets joined by + are combined: {', '.join(REFERENCE_COMBINATIONS)} "
                f"(multi: the metric's own "
                "multi-reference form; max: the best single-set score; mean: their mean).")


def metric_help(**filters: Any) -> str:
    """``One of chrf, bleu, ...`` for the registry's metrics matching ``filters``, QE systems included
    unless only reference-based metrics are asked for."""
    names = ", ".join(metric_names(**filters))
    return f"One of {names}" + ("" if filters.get("needs_references") else ", or qe:NAME (a QE system)") + "."


def model_option() -> Any:
    return typer.Option(None, "--model", help=MODEL_HELP)


def layers_option() -> Any:
    return typer.Option(None, "--layers", help=LAYERS_HELP)


def device_option() -> Any:
    return typer.Option(None, "--device", help=DEVICE_HELP)


def embeddings_option() -> Any:
    return typer.Option(None, "--embeddings", help=EMBEDDINGS_HELP)


def tokenize_option() -> Any:
    return typer.Option(None, "--tokenize", help=TOKENIZE_HELP)


def refs_option(help_text: str = REFS_HELP) -> Any:
    return typer.Option(None, "--refs", help=help_text)


def combine_option() -> Any:
    return typer.Option("multi", "--combine", help=COMBINE_HELP)


def metric_options(model: str | None, layers: int | None, device: str | None = None,
                   tokenize: str | None = None, embeddings: str | None = None) -> MetricOptions:
    return MetricOptions(model=model, layers=layers, device=device, tokenize=tokenize, embeddings=embeddings)


def ref_choice(refs: str | None, combine: str) -> RefChoice:
    from suite.references import RefChoice

    if refs is not None and "," in refs:
        raise typer.BadParameter("one reference entry here: join sets with + (commas list entries side by side "
                                 "only in tsqe correlate)", param_hint="--refs")
    return RefChoice.parse(refs, combine)
