"""Difficulty-aware BERTScore (Zhan et al., 2021, "Difficulty-Aware Machine Translation Evaluation").

A reference token that most of the K compared systems fail to match is difficult and weighs more:

    d(t)  = 1 - mean_k max_h sim(t, h)                       over the K systems' hypotheses h
    DA-R  = (1/|ref|) * sum_t d(t) * max_h sim(t, h)
    DA-P  = (1/|hyp|) * sum_h w(h) * max_t sim(h, t),  w(h) = d of the same reference token, else 1
    DA-F  = 2 * mean(DA-P) * mean(DA-R) / (mean(DA-P) + mean(DA-R))   per system, over its segments

The formulas mirror the authors' code (github.com/NLP2CT/Difficulty-Aware-MT-Evaluation,
``da_bert_score/score_diffculty.py`` and ``score.py``; read at commit fbd26df of the Ririkoo mirror) exactly,
including where it says more than, or differs from, the paper:

1. Sentence- vs system-level F. The paper defines DA-F per segment; the code (``bert_score_with_diff``)
   reports a system's DA-F as the harmonic mean of its *segment-averaged* DA-P and DA-R. tsqe does the
   same. Vanilla "F" is reported as the code's CLI does: the mean of segment F (``bert_score.score``),
   not the harmonic mean of mean P and mean R.
2. Repeated reference tokens. For the precision weight the code keys difficulties by token id and, when a
   token occurs again, replaces its weight by ``(previous + new) / 2`` - a running pairwise average, not
   the mean over occurrences (for three occurrences a, b, c it gives ((a + b)/2 + c)/2). tsqe does the
   same, keyed by the model's token string (one-to-one with the id for vocabulary tokens).
3. Hypothesis tokens absent from the reference get weight 1 (the code's default; its optional
   ``--ref_diff`` variant, the weight of the best-matching reference token, is not offered).
4. Normalisation. The code divides by the token count (``range_one`` off), not by the sum of weights, so
   DA scores are not in [0, 1]-comparable with vanilla BERTScore; its ``softmax_norm``/``max_norm``
   options are off by default and not offered. When all weights of a segment are 0 (every system matched
   it perfectly) its DA-R (and a DA-P whose weights are all 0) is 0, as in the code.
5. Baseline rescaling. The authors' CLI forces ``rescale_with_baseline=True`` and rescales token
   similarities with the F baseline when bert_score ships one for the model; for models without a baseline
   file (any local model, including tsqe's default MiniLM) it silently keeps raw cosines. tsqe never
   rescales, so it matches the code on every model bert_score has no baseline for, and differs from the
   paper's numbers, which used roberta-large with rescaled similarities.
6. Special tokens. The code drops the first and last token ([CLS]/[SEP]) of each side from the scored
   tokens (``[1:-1]``) while their similarities stay in the maxima; tsqe leaves out exactly the tokens
   bert_score gives idf weight 0 ([CLS]/[SEP]), which is the same for BERT/RoBERTa-style tokenizers.
7. Empty hypotheses. The code sets an empty hypothesis's reference-token similarities to 0 (they count
   in the difficulty mean) and its DA-P to 0; tsqe does the same.
8. Several references. The code's DA path only works with one reference (it keys difficulty on
   ``ref[0]``); tsqe uses each item's first reference under the reference choice (``suite.references``:
   by default the first of kind standard, or the first of the chosen set) for difficulty and DA scores,
   while vanilla P/R/F take bert_score's maximum over all the chosen references.
9. Missing outputs. The code requires every system to translate every segment; in a test suite a system
   may lack an item, so difficulty is averaged over the systems that have an output for the item and a
   system's averages run over the items it translated.

The difficulty is computed over the systems passed in (the paper's "top-K" setting is just K systems).
Embeddings come from the shared cache, so DA-BERTScore after vanilla BERTScore embeds nothing new.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import select

from filters.bertscore import (
    SentenceEmbedding,
    embedding_cache,
    greedy_match,
    prf,
    single_threaded_blas,
)
from filters.metrics.signature import Signature
from filters.metrics.spec_types import MetricOptions
from store import Database
from store.models import Item, Output, System, SystemOutput
from suite.errors import TsqeError
from suite.references import RefChoice, references_of
from suite.suites import find_suite, suite_systems
from suite.tables import Cell, Column, Table
from suite.tasks import Cancelled, TaskState, progress_of

SCORE_KEYS = ("P", "R", "F", "DA-P", "DA-R", "DA-F")
ITEM_CHUNK = 500


@dataclass
class ItemDifficulty:
    difficulty: np.ndarray
    da_p: np.ndarray
    da_r: np.ndarray


def repeated_token_weights(tokens: Sequence[str], difficulty: np.ndarray) -> dict[str, float]:
    """Difficulty by token, a repeated token's weight being the original code's running pairwise average."""
    weights: dict[str, float] = {}
    for token, d in zip(tokens, difficulty):
        weights[token] = (weights[token] + float(d)) / 2 if token in weights else float(d)
    return weights


def difficulty_scores(ref_tokens: Sequence[str], ref_max: np.ndarray, hyp_tokens: Sequence[Sequence[str]],
                      hyp_max: Sequence[np.ndarray]) -> ItemDifficulty:
    """DA-P and DA-R of K hypotheses of one segment, from the token similarity maxima alone.

    ``ref_max`` is (K x scored reference tokens): each reference token's best similarity to each
    hypothesis (all zero for an empty hypothesis); ``hyp_max[k]`` holds each scored token of hypothesis k's
    best similarity to the reference. Special tokens are already left out of both.
    """
    ref_max = np.asarray(ref_max, dtype=np.float64).reshape(len(hyp_tokens), len(ref_tokens))
    difficulty = 1.0 - ref_max.mean(axis=0) if len(hyp_tokens) else np.zeros(len(ref_tokens))
    if len(ref_tokens) == 0 or difficulty.sum() == 0:
        da_r = np.zeros(len(hyp_tokens))
    else:
        da_r = ref_max @ difficulty / len(ref_tokens)
    weights = repeated_token_weights(ref_tokens, difficulty)
    da_p = np.zeros(len(hyp_tokens))
    for k, (tokens, maxima) in enumerate(zip(hyp_tokens, hyp_max)):
        if len(tokens) == 0:
            continue
        w = np.array([weights.get(t, 1.0) for t in tokens])
        if w.sum() != 0:
            da_p[k] = float(np.mean(np.asarray(maxima, dtype=np.float64) * w))
    return ItemDifficulty(difficulty=difficulty, da_p=da_p, da_r=da_r)


@dataclass
class DifficultyResult:
    systems: list[str]
    system_scores: dict[str, dict[str, float]]
    token_difficulty: dict[str, list[tuple[str, float]]]
    signature: Signature
    items_scored: dict[str, int] = field(default_factory=dict)
    refs: RefChoice = field(default_factory=RefChoice.default)
    segments: dict[str, dict[int, np.ndarray]] = field(default_factory=dict)
    """Per system, per item position: [P, R, F, DA-P, DA-R] of its output (the system averages' terms)."""

    def weights(self) -> list[float]:
        """Every reference token's difficulty weight, item by item (Zhan et al.'s Figure 3 counts these)."""
        return [weight for tokens in self.token_difficulty.values() for _token, weight in tokens]

    def segment(self, system: str, position: int) -> tuple[float, float]:
        """The BERTScore F and DA-F of one output (DA-F the harmonic mean of its own DA-P and DA-R), the scores
        Zhan et al.'s Table 3 prints for a segment."""
        row = self.segments.get(system, {}).get(position)
        if row is None:
            raise TsqeError(f"system {system} has no output scored at position {position}")
        da_p, da_r = float(row[3]), float(row[4])
        return float(row[2]), 2 * da_p * da_r / (da_p + da_r) if da_p + da_r != 0 else 0.0

    def ranked(self) -> list[str]:
        """Systems by DA-F, best first (ties in the order they were given)."""
        return sorted(self.systems, key=lambda s: -self.system_scores[s]["DA-F"])

    def to_table(self) -> Table:
        """Per system vanilla and difficulty-aware P, R, F and the items it was scored on, best DA-F first.

        The reference tokens' difficulties are not a table; the JSON document of ``tsqe difficulty`` has them.
        """
        columns = [Column("system", "text"), *(Column(k, "number", 4) for k in SCORE_KEYS), Column("items", "count")]
        body = [[Cell(name), *(Cell(self.system_scores[name][k]) for k in SCORE_KEYS),
                 Cell(self.items_scored.get(name, 0))] for name in self.ranked()]
        return Table(title="Difficulty-aware BERTScore per system", columns=columns, body=body,
                     notes=[f"Model: {self.signature}.",
                            f"References: {self.refs.describe()} (the first of each item).",
                            "DA-F: harmonic mean of the segment-averaged DA-P and DA-R, as in the authors' code."])

    def to_dict(self) -> dict[str, object]:
        """The document of ``tsqe difficulty --json``: the per-system scores and each item's reference tokens
        with their difficulty."""
        return {"signature": str(self.signature), "refs": self.refs.label, "systems": self.systems,
                "scores": self.system_scores,
                "items": {item: [[token, round(d, 6)] for token, d in tokens]
                          for item, tokens in self.token_difficulty.items()}}


@dataclass
class _ItemData:
    external_id: str
    position: int
    references: list[str]
    outputs: dict[str, str]  # system -> text


def _load_items(db: Database, suite_name: str | None, systems: Sequence[str] | None,
                refs: RefChoice) -> tuple[list[str], list[_ItemData]]:
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        chosen = suite_systems(session, suite_id, systems)
        if not chosen:
            raise TsqeError("no systems to compare: import system outputs first")
        items: dict[int, _ItemData] = {
            item_id: _ItemData(external_id, position, [], {}) for item_id, external_id, position in session.execute(
                select(Item.id, Item.external_id, Item.position).where(Item.suite_id == suite_id)
                .order_by(Item.position))}
        try:
            references = references_of(session, suite_id, refs)
        except TsqeError as error:
            raise TsqeError(f"difficulty-aware BERTScore compares contextual embeddings with references, and "
                            f"{error}") from error
        for item_id, texts in references.items():
            items[item_id].references.extend(texts)
        for item_id, system, text in session.execute(
                select(SystemOutput.item_id, System.name, Output.text)
                .join(System, System.id == SystemOutput.system_id)
                .join(Output, Output.id == SystemOutput.output_id)
                .where(System.suite_id == suite_id, System.name.in_(chosen))):
            items[item_id].outputs[system] = text
    usable = [item for item in items.values() if item.references and item.outputs]
    if not usable:
        raise TsqeError(f"no item has both a reference ({refs.describe()}) and an output of the chosen systems")
    return chosen, usable


def da_bertscore(db: Database, *, suite_name: str | None = None, systems: Sequence[str] | None = None,
                 refs: RefChoice | None = None, options: MetricOptions | None = None,
                 task: TaskState | None = None) -> DifficultyResult:
    """Vanilla and difficulty-aware BERTScore per system, difficulty computed over ``systems`` (all) against
    the first reference of each item under ``refs`` (the default references when None)."""
    task = progress_of(task)
    refs = refs or RefChoice.default()
    if len(refs.sets) > 1:
        raise TsqeError(f"token difficulty is computed against one reference set at a time, not {refs.label}: "
                        "choose one set")
    options = options or MetricOptions()
    chosen, items = _load_items(db, suite_name, systems, refs)
    cache = embedding_cache(options.model, options.layers, options.device, options.embeddings, db)
    counts = dict.fromkeys(chosen, 0)
    segments: dict[str, dict[int, np.ndarray]] = {name: {} for name in chosen}
    token_difficulty: dict[str, list[tuple[str, float]]] = {}
    try:
        for start in range(0, len(items), ITEM_CHUNK):
            task.progress(start, len(items), f"difficulty-aware BERTScore of item {start:,} of {len(items):,}")
            chunk = items[start:start + ITEM_CHUNK]
            embeddings = cache.lookup({t for item in chunk for t in (*item.references, *item.outputs.values())})
            with single_threaded_blas():
                _score_chunk(chunk, embeddings, segments, token_difficulty)
            cache.clear()
        task.progress(len(items), len(items), f"difficulty-aware BERTScore of {len(items):,} items")
    except Cancelled:  # the embeddings it stored go too: a cancelled run leaves the database as it was
        cache.forget_added()
        raise
    system_scores = {}
    for name in chosen:
        counts[name] = len(segments[name])
        total = np.zeros(len(SCORE_KEYS) - 1)
        for row in segments[name].values():  # in item order, as the averages always summed
            total += row
        p, r, f, da_p, da_r = total / counts[name] if counts[name] else np.full(5, np.nan)
        da_f = 2 * da_p * da_r / (da_p + da_r) if da_p + da_r != 0 else 0.0
        system_scores[name] = dict(zip(SCORE_KEYS, map(float, (p, r, f, da_p, da_r, da_f))))
    signature = Signature.parse(f"da-bertscore|{cache.spec.signature}").with_fields(*refs.signature_fields())
    return DifficultyResult(systems=chosen, system_scores=system_scores, token_difficulty=token_difficulty,
                            signature=signature, items_scored=counts, refs=refs, segments=segments)


def _score_chunk(chunk: list[_ItemData], embeddings: dict[str, SentenceEmbedding],
                 segments: dict[str, dict[int, np.ndarray]], token_difficulty: dict[str, list[tuple[str, float]]]
                 ) -> None:
    for item in chunk:
        names = list(item.outputs)
        scores, token_difficulty[item.external_id] = _score_item(item, names, embeddings)
        for name, row in zip(names, scores):
            segments[name][item.position] = row


def _score_item(item: _ItemData, names: list[str],
                embeddings: dict[str, SentenceEmbedding]) -> tuple[np.ndarray, list[tuple[str, float]]]:
    """Per system a row [P, R, F, DA-P, DA-R], and the reference tokens with their difficulty."""
    hyps = [embeddings[item.outputs[name]] for name in names]
    units = [h.unit for h in hyps]
    vanilla = np.full((len(names), 3), -np.inf)
    first_ref_max = None
    first_hyp_max: list[np.ndarray] = []
    for n, ref_text in enumerate(item.references):
        reference = embeddings[ref_text]
        hyp_max, ref_max = greedy_match(reference.unit, units)
        for k, hyp in enumerate(hyps):
            vanilla[k] = np.maximum(vanilla[k], prf(hyp_max[k], hyp.scored, ref_max[k], reference.scored))
        if n == 0:
            first_ref_max, first_hyp_max = ref_max, hyp_max
    reference = embeddings[item.references[0]]
    assert first_ref_max is not None
    ref_max = first_ref_max[:, reference.scored].astype(np.float64)
    ref_max[[h.empty for h in hyps]] = 0.0
    ref_tokens = [t for t, s in zip(reference.tokens, reference.scored) if s]
    da = difficulty_scores(
        ref_tokens, ref_max, [[t for t, s in zip(h.tokens, h.scored) if s] for h in hyps],
        [first_hyp_max[k][h.scored] for k, h in enumerate(hyps)])
    return (np.column_stack([vanilla, da.da_p, da.da_r]),
            list(zip(ref_tokens, map(float, da.difficulty))))
