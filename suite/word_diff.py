"""How two translations of one source differ, word by word: for the reviewer's detail panel (an output against
its closest reference or known translation) and for a QE pair (the passing against the failing output).

Tokens are words, runs of punctuation and runs of white space, so the old side's runs joined give the old text
back and the new side's the new text: a front-end marks what changed without re-tokenising either sentence.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

_TOKENS = re.compile(r"\w+|[^\w\s]+|\s+")


@dataclass(frozen=True)
class DiffRun:
    """A stretch of both texts: equal, or ``old`` replaced by ``new`` (one of them empty for a pure deletion
    or insertion)."""

    equal: bool
    old: str
    new: str


def word_diff(old: str, new: str) -> list[DiffRun]:
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    return [DiffRun(op == "equal", "".join(a[i1:i2]), "".join(b[j1:j2]))
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()]


def closest(text: str, candidates: Sequence[str]) -> int | None:
    """The index of the candidate most like ``text`` by word overlap (the first of equals), None when there is
    none to compare with."""
    words = text.split()
    ratios = [difflib.SequenceMatcher(None, words, candidate.split()).ratio() for candidate in candidates]
    return max(range(len(ratios)), key=lambda i: (ratios[i], -i)) if ratios else None
