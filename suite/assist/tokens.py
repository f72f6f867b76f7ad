"""Words and punctuation marks with where they stand in a text: what rule suggestions compare outputs in.

A token is a run of word characters or one other non-space character, so ``shouldn't`` is ``shouldn``, ``'``,
``t`` and the word boundaries of a regular expression (``\\b``) fall exactly between tokens. Each token keeps
the white space before it (its ``gap``): a stretch of tokens joined with their gaps is the text as written,
which is what a pattern built from it has to match.
"""
from __future__ import annotations

import difflib
import functools
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import regex

_TOKEN = regex.compile(r"\w+|[^\w\s]")


class Token(NamedTuple):
    text: str
    start: int
    end: int
    gap: str
    """The white space between the previous token and this one (empty for the first token)."""


@functools.lru_cache(maxsize=65_536)
def tokens(text: str) -> tuple[Token, ...]:
    """The text's tokens; cached because every assistant tokenises the same few outputs many times."""
    found: list[Token] = []
    previous_end: int | None = None
    for match in _TOKEN.finditer(text):
        start = match.start()
        found.append(Token(match.group(), start, match.end(), "" if previous_end is None else
                           text[previous_end:start]))
        previous_end = match.end()
    return tuple(found)


def words(text: str) -> tuple[str, ...]:
    return tuple(token.text for token in tokens(text))


def is_word(token: str) -> bool:
    """Whether ``token`` is made of word characters (a ``\\b`` can stand on either side of it)."""
    return bool(token) and (token[0].isalnum() or token[0] == "_")


def surface(found: Sequence[Token], start: int, end: int) -> str:
    """Tokens ``start`` to ``end`` (exclusive) as written, each after its gap: the first one's gap included,
    so that stretches of one text concatenated give the text back."""
    return "".join(token.gap + token.text for token in found[start:end])


MAX_NGRAM = 3
"""The longest word sequence a marker may be: longer ones are rarely shared by two items' outputs."""


@functools.lru_cache(maxsize=65_536)
def ngrams(text: str) -> frozenset[tuple[str, ...]]:
    """Every sequence of 1 to ``MAX_NGRAM`` tokens of the text, lower-cased, that holds at least one word."""
    lowered = [token.text.lower() for token in tokens(text)]
    found: set[tuple[str, ...]] = set()
    for size in range(1, MAX_NGRAM + 1):
        for start in range(len(lowered) - size + 1):
            sequence = tuple(lowered[start:start + size])
            if any(is_word(word) for word in sequence):
                found.add(sequence)
    return frozenset(found)


def ngram_surfaces(text: str, ngram: tuple[str, ...]) -> Iterator[str]:
    """How ``ngram`` (lower-cased) is written wherever it occurs in ``text`` (inner gaps as written)."""
    found = tokens(text)
    size = len(ngram)
    for start in range(len(found) - size + 1):
        if tuple(token.text.lower() for token in found[start:start + size]) == ngram:
            yield found[start].text + surface(found, start + 1, start + size)


class TokenEdit(NamedTuple):
    """One stretch where two token sequences differ: ``old[old_start:old_end]`` became ``new[new_start:new_end]``."""

    old_start: int
    old_end: int
    new_start: int
    new_end: int


def changes(old: Sequence[str], new: Sequence[str]) -> list[TokenEdit]:
    """The stretches where ``new`` differs from ``old`` (difflib's opcodes other than equal)."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [TokenEdit(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]
