"""Which n-grams of a system's output match a reference set: Freitag et al. 2020 §7.2 (the 4-grams of the best
WMT19 en-de system that match the standard reference most, and those that match the paraphrased one).

A match is counted as BLEU counts it: per segment, an n-gram of the output matches as often as it occurs in both
the output and the reference, at most (the clipped count); the list sums those over the segments. Tokens are
sacrebleu's, with the tokenizer BLEU uses (``intl`` for the paper's signature, whose 4-grams split punctuation
off: ", sagte er ."). With several references per segment (a joined entry), the clip is the largest count in any
one of them, as multi-reference BLEU clips.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select

from store import Database
from store.models import Item, Output, System, SystemOutput
from suite.errors import TsqeError
from suite.references import RefChoice, read_references
from suite.suites import find_suite
from suite.tables import Cell, Column, Table

Gram = tuple[str, ...]


def ngrams(tokens: Sequence[str], n: int) -> Counter[Gram]:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def matched(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[Sequence[str]]], n: int
            ) -> Counter[Gram]:
    """Clipped matches of each n-gram of the tokenised hypotheses, summed over segments."""
    total: Counter[Gram] = Counter()
    for hypothesis, refs in zip(hypotheses, references):
        clip: Counter[Gram] = Counter()
        for reference in refs:
            clip |= ngrams(reference, n)  # the most any one reference has
        total.update(ngrams(hypothesis, n) & clip)
    return total


@dataclass(frozen=True)
class MatchedNgrams:
    suite: str
    system: str
    refs: str
    n: int
    tokenize: str
    segments: int
    counts: list[tuple[str, int]]
    """Most matched first (ties: the n-gram first seen first), joined with spaces."""

    def to_table(self) -> Table:
        return Table(title=f"{self.n}-grams of {self.system} matching {self.refs} most",
                     columns=[Column("n-gram", "text"), Column("matches", "count")],
                     body=[[Cell(gram), Cell(count)] for gram, count in self.counts],
                     notes=[f"Suite {self.suite}, {self.segments} segments; matches clipped per segment as BLEU "
                            f"clips them; sacrebleu's {self.tokenize} tokens."])

    def to_dict(self) -> dict[str, object]:
        return {"suite": self.suite, "system": self.system, "refs": self.refs, "n": self.n,
                "tokenize": self.tokenize, "segments": self.segments,
                "ngrams": [{"ngram": g, "matches": c} for g, c in self.counts]}


def matched_ngrams(db: Database, system: str, *, refs: RefChoice | None = None, n: int = 4, top: int = 10,
                   tokenize: str = "13a", suite_name: str | None = None) -> MatchedNgrams:
    from sacrebleu.metrics.bleu import BLEU

    if n < 1 or top < 1:
        raise TsqeError(f"the n-gram order and the number shown must be at least 1 (got {n} and {top})")
    choice = refs or RefChoice.default()
    with db.session() as session:
        suite = find_suite(session, suite_name)
        system_id = session.scalar(select(System.id).where(System.suite_id == suite.id, System.name == system))
        if system_id is None:
            names = sorted(session.scalars(select(System.name).where(System.suite_id == suite.id)))
            raise TsqeError(f"suite {suite.name} has no system {system!r} (systems: {', '.join(names)})")
        outputs = session.execute(select(SystemOutput.item_id, Output.text)
                                  .join(Output, Output.id == SystemOutput.output_id)
                                  .join(Item, Item.id == SystemOutput.item_id)
                                  .where(SystemOutput.system_id == system_id).order_by(Item.position)).all()
        references = read_references(session, suite.id, choice)
        name = suite.name
    tokenizer = BLEU(tokenize=tokenize).tokenizer
    pairs = [(text, references[item_id]) for item_id, text in outputs if references.get(item_id)]
    counts = matched([tokenizer(text).split() for text, _ in pairs],
                     [[tokenizer(r).split() for r in refs_of] for _, refs_of in pairs], n)
    best = sorted(counts.items(), key=lambda kv: -kv[1])[:top]  # stable: first seen first among equals
    return MatchedNgrams(name, system, choice.label, n, tokenize, len(pairs), [(" ".join(g), c) for g, c in best])
