"""How monotonic each reference set is: Freitag et al. 2020 §7.1, Table 8 (the average absolute distance per
alignment point between the source and a reference; translationese follows the source's word order, so its
distance is small, and the paraphrases' large).

The paper aligns with fast_align trained on the WMT 2014 English-German parallel data; tsqe aligns with eflomal
(a maintained, faster successor on PyPI, same family of models) trained on the suite itself: the source paired
with every reference of every set measured, one corpus for all sets so that each is aligned by the same model.
Nothing is downloaded, but a test set is a small corpus, and its lexical model is weaker than one trained on
millions of sentence pairs. The links are eflomal's forward direction (source -> reference, each reference word
linked to at most one source word), which is fast_align's default output; the paper says neither which direction
nor which symmetrisation it used. The distance of a link (i, j) is |i - j| over token positions (sacrebleu's
tokens, 13a unless told), averaged over every link of the set (the paper's "per alignment point"), not per
sentence. eflomal samples its alignments without a fixed seed, so repeated runs differ in the second decimal.
"""
from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from store import Database
from store.models import Item
from suite.errors import TsqeError
from suite.references import RefChoice, read_references
from suite.suites import find_suite
from suite.tables import Cell, Column, Table

Link = tuple[int, int]


def parse_links(line: str, *, where: str = "alignment") -> list[Link]:
    """One line of Pharaoh links (``0-0 1-2``) as (source, target) positions."""
    links = []
    for pair in line.split():
        source, dash, target = pair.partition("-")
        if not dash or not source.isdigit() or not target.isdigit():
            raise TsqeError(f"{where}: {pair!r} is not a link of the form source-target")
        links.append((int(source), int(target)))
    return links


def distance_sum(links: Sequence[Link]) -> int:
    """The summed absolute distance of the links; zero for a word-by-word translation in the source's order."""
    return sum(abs(source - target) for source, target in links)


@dataclass(frozen=True)
class MonotonicityRow:
    refs: str
    pairs: int
    """Sentence pairs aligned (an item with two references of the set counts twice)."""
    links: int
    distance: float
    """The mean |i - j| over the set's links."""


@dataclass(frozen=True)
class Monotonicity:
    suite: str
    tokenize: str
    rows: list[MonotonicityRow]

    def to_table(self) -> Table:
        return Table(title="Monotonicity of the references (average absolute distance per alignment point)",
                     columns=[Column("references", "text"), Column("distance", "number"), Column("links", "count"),
                              Column("pairs", "count")],
                     body=[[Cell(row.refs), Cell(row.distance), Cell(row.links), Cell(row.pairs)]
                           for row in self.rows],
                     notes=[f"Suite {self.suite}; eflomal's forward links trained on the suite's source paired with "
                            f"every reference measured; sacrebleu's {self.tokenize} tokens. Lower is more monotonic."])

    def to_dict(self) -> dict[str, object]:
        return {"suite": self.suite, "tokenize": self.tokenize,
                "rows": [{"refs": row.refs, "distance": row.distance, "links": row.links, "pairs": row.pairs}
                         for row in self.rows]}


def align(sources: Sequence[str], targets: Sequence[str]) -> list[list[Link]]:
    """eflomal's forward links of each (tokenised) pair, trained on these pairs; files only because eflomal's
    binary reads and writes them."""
    from eflomal import Aligner

    with tempfile.TemporaryDirectory(prefix="tsqe-align-") as folder:
        links = Path(folder) / "forward.links"
        Aligner().align(list(sources), list(targets), links_filename_fwd=str(links))
        lines = links.read_text(encoding="utf-8").splitlines()
    if len(lines) != len(sources):
        raise TsqeError(f"the aligner returned {len(lines)} alignments for {len(sources)} sentence pairs")
    return [parse_links(line, where=f"eflomal's alignment {number}") for number, line in enumerate(lines, 1)]


def monotonicity(db: Database, refs: Sequence[RefChoice], *, tokenize: str = "13a",
                 suite_name: str | None = None) -> Monotonicity:
    """Table 8 for each of ``refs`` (single sets or the default standard references, one row each)."""
    from sacrebleu.metrics.bleu import BLEU

    if not refs:
        raise TsqeError("name at least one reference set to measure")
    joined = [choice.label for choice in refs if len(choice.sets) > 1]
    if joined:
        raise TsqeError(f"monotonicity is measured per reference set, not on joined entries ({', '.join(joined)})")
    with db.session() as session:
        suite = find_suite(session, suite_name)
        sources = {item_id: text for item_id, text in
                   session.execute(select(Item.id, Item.source).where(Item.suite_id == suite.id))}
        chosen = [(choice.label, read_references(session, suite.id, choice)) for choice in refs]
        name = suite.name
    tokenizer = BLEU(tokenize=tokenize).tokenizer
    source_tokens = {item_id: tokenizer(text.strip()) for item_id, text in sources.items()}
    corpus: list[tuple[str, str]] = []
    spans = []
    for _label, by_item in chosen:
        start = len(corpus)
        corpus += [(source_tokens[item_id], tokenizer(text.strip()))
                   for item_id in sorted(by_item) for text in by_item[item_id]]
        spans.append((start, len(corpus)))
    empty = [label for (label, _), (start, end) in zip(chosen, spans) if start == end]
    if empty:
        raise TsqeError(f"suite {name} has no references in {', '.join(empty)}")
    alignments = align([source for source, _ in corpus], [target for _, target in corpus])
    rows = []
    for (label, _), (start, end) in zip(chosen, spans):
        part = alignments[start:end]
        count = sum(len(links) for links in part)
        rows.append(MonotonicityRow(label, end - start, count,
                                    distance_sum([link for links in part for link in links]) / count if count else 0.0))
    return Monotonicity(name, tokenize, rows)
