"""What a suite's items teach about one of them: which changes keep a label, which words mark one.

Built once from the evidence of every item of a suite (``suite.assist.evidence``) and consulted for one item at
a time, leaving out the item itself (its own outputs are its evidence, not its neighbours') and any other items
a caller names: the benchmark leaves out items with the same source sentence, whose outputs would repeat the
ones whose labels it hides.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from suite.assist.evidence import ItemEvidence
from suite.assist.markers import MarkerStats
from suite.assist.variants import VariantStats


@dataclass(frozen=True)
class SuggestionContext:
    variants: VariantStats
    markers: MarkerStats
    excluded: frozenset[int] = field(default_factory=frozenset)
    """Items whose outputs are not consulted."""

    @classmethod
    def of(cls, items: Sequence[ItemEvidence]) -> SuggestionContext:
        return cls(VariantStats.of(items), MarkerStats.of(items))

    def without(self, item_ids: Iterable[int]) -> SuggestionContext:
        return replace(self, excluded=self.excluded | frozenset(item_ids))
