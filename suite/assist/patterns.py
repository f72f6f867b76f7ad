"""Readable regular expressions from observed words: what a linguist would have typed.

A pattern is built from *segments*, each a choice between stretches of text as written (with the white space
before them), an empty choice making the segment optional: ``She`` + (``'d`` | `` would``) + `` have run.``
is written ``She(?:'d| would) have run\\.``. Only the characters that mean something in a pattern are escaped,
so an apostrophe or a hyphen stays as it is. A pattern that starts or ends with a word character gets a word
boundary there (``\\bman\\b`` does not match *woman*).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from suite.assist.tokens import Token, changes, is_word, surface, tokens

_SPECIAL = frozenset("\\.^$|?*+()[]{}")


def escape(text: str) -> str:
    return "".join("\\" + char if char in _SPECIAL else char for char in text)


@dataclass(frozen=True)
class Segment:
    choices: tuple[str, ...]
    """Stretches of text as written, in the order first seen; "" means the segment may be absent."""

    def text(self) -> str:
        written = [escape(choice) for choice in self.choices if choice]
        optional = "" in self.choices
        if len(written) == 1 and not optional:
            return written[0]
        return "(?:" + "|".join(written) + ")" + ("?" if optional else "")


def _starts_with_word(segment: Segment) -> bool:
    return all(is_word(choice[:1]) for choice in segment.choices)


def _ends_with_word(segment: Segment) -> bool:
    return all(is_word(choice[-1:]) for choice in segment.choices)


def bounded(segments: Sequence[Segment]) -> str:
    """The segments one after the other, with a word boundary at an end that is a word character."""
    if not segments:
        return ""
    body = "".join(segment.text() for segment in segments)
    start = r"\b" if _starts_with_word(segments[0]) else ""
    end = r"\b" if _ends_with_word(segments[-1]) else ""
    return start + body + end


def alternatives(choices: Sequence[str]) -> str:
    """Any of ``choices`` (distinct, non-empty texts) as a word or phrase of its own, e.g.
    ``\\b(?:had to|was forced to)\\b``."""
    segment = Segment(tuple(choices))
    if _starts_with_word(segment) and _ends_with_word(segment):
        return bounded([segment])
    if len(choices) == 1:
        return bounded([segment])
    return "(?:" + "|".join(bounded([Segment((choice,))]) for choice in choices) + ")"


def template_union(templates: Sequence[Sequence[Segment]]) -> str:
    """Several templates as one pattern, what they share at the start and at the end written once:
    ``She would have run.`` and ``She would have been running.`` give ``\\bShe would have (?:run|been running)\\.``.
    """
    distinct: list[tuple[Segment, ...]] = []
    for template in templates:
        if tuple(template) not in distinct:
            distinct.append(tuple(template))
    if len(distinct) == 1:
        return bounded(distinct[0])
    shortest = min(len(template) for template in distinct)
    head = 0
    while head < shortest and len({template[head] for template in distinct}) == 1:
        head += 1
    tail = 0
    while tail < shortest - head and len({template[len(template) - 1 - tail] for template in distinct}) == 1:
        tail += 1
    prefix, suffix = distinct[0][:head], distinct[0][len(distinct[0]) - tail:]
    middles: list[str] = []
    for template in distinct:
        middle = "".join(segment.text() for segment in template[head:len(template) - tail])
        if middle not in middles:
            middles.append(middle)
    written = [middle for middle in middles if middle]
    choice = "(?:" + "|".join(written) + ")" + ("?" if "" in middles else "")
    start = r"\b" if all(_starts_with_word(template[0]) for template in distinct) else ""
    end = r"\b" if all(_ends_with_word(template[-1]) for template in distinct) else ""
    return start + "".join(s.text() for s in prefix) + choice + "".join(s.text() for s in suffix) + end


def _overlaps(span: tuple[int, int], other: tuple[int, int]) -> bool:
    """Whether two stretches of a base text's tokens (half-open; an empty one is a point between tokens)
    cannot both be slots of one template."""
    if span == other:
        return False
    (a, b), (c, d) = span, other
    if a == b or c == d:
        return (a == b and c < a < d) or (c == d and a < c < b) or (a == b == c == d)
    return max(a, c) < min(b, d)


def variant_templates(base: str, variants: Sequence[str]) -> list[list[Segment]]:
    """``base`` with the stretches where ``variants`` differ from it turned into choices between what each
    writes there: ``She would have run.`` with ``She'd have run.`` gives ``She`` (`` would`` | ``'d``)
    `` have run.``. Variants whose stretches overlap another's differently start a template of their own."""
    found = tokens(base)
    groups: list[dict[tuple[int, int], list[str]]] = []
    for variant in variants:
        theirs = tokens(variant)
        slots = {(a, b): surface(theirs, c, d)
                 for a, b, c, d in changes([t.text for t in found], [t.text for t in theirs])}
        target = next((group for group in groups
                       if not any(_overlaps(span, other) for span in slots for other in group)), None)
        if target is None:
            target = {}
            groups.append(target)
        for span, written in slots.items():
            choices = target.setdefault(span, [surface(found, *span)])
            if written not in choices:
                choices.append(written)
    return [_segments(found, group) for group in groups] or [_segments(found, {})]


def _segments(found: Sequence[Token], slots: dict[tuple[int, int], list[str]]) -> list[Segment]:
    segments: list[Segment] = []
    index = 0
    while index <= len(found):
        if (index, index) in slots:
            segments.append(Segment(tuple(slots[index, index])))
        span = next((span for span in slots if span[0] == index and span[1] > index), None)
        if span is not None:
            segments.append(Segment(tuple(slots[span])))
            index = span[1]
            continue
        if index < len(found):
            segments.append(Segment((found[index].gap + found[index].text,)))
        index += 1
    return segments


MAX_EXAMPLES = 64
"""Texts ``pattern_examples`` writes out at most: a rule with more choices is not read as examples."""
_ESCAPED_TEXT = {"b": "", "B": None, "A": "", "Z": "", "z": "", "s": " ", "d": None, "w": None, "W": None,
                 "S": None, "D": None, "n": "\n", "t": "\t"}
"""What an escape stands for in an example text ("" for an anchor or a boundary); None: a class of characters,
which an example cannot spell."""


class _NotLiteral(Exception):
    pass


def pattern_examples(pattern: str) -> list[str] | None:
    """Every text a pattern of literal words, choices and optional parts spells out (``You (baked|were baking)
    Tim a cake\\.``: two), at most ``MAX_EXAMPLES``; None when the pattern has classes, wildcards or
    repetition, whose texts cannot be listed. What a rule requires, for suggestions that must not contradict it."""
    try:
        found, end = _sequence(pattern, 0)
    except (_NotLiteral, IndexError):
        return None
    return found if end == len(pattern) else None


def _sequence(pattern: str, position: int) -> tuple[list[str], int]:
    """The alternatives from ``position`` up to an unmatched ``)`` or the end."""
    choices: list[str] = []
    current = [""]
    while position < len(pattern) and pattern[position] != ")":
        char = pattern[position]
        if char == "|":
            choices += current
            current, position = [""], position + 1
            continue
        if char == "(":
            position += 1
            if pattern.startswith("?:", position):
                position += 2
            elif pattern.startswith("?", position):
                raise _NotLiteral
            inner, position = _sequence(pattern, position)
            if position >= len(pattern):
                raise _NotLiteral
            position += 1
            part = inner
        elif char == "\\":
            escaped = pattern[position + 1]
            text = _ESCAPED_TEXT.get(escaped, escaped if not escaped.isalnum() else None)
            if text is None:
                raise _NotLiteral
            part, position = [text], position + 2
        elif char == "[":
            closing = pattern.index("]", position + 1)
            members = pattern[position + 1:closing]
            if not members or any(c in "^-\\[" for c in members):
                raise _NotLiteral
            part, position = list(dict.fromkeys(members)), closing + 1
        elif char in "^$":
            part, position = [""], position + 1
        elif char in ".*+{}?":
            raise _NotLiteral
        else:
            part, position = [char], position + 1
        if position < len(pattern) and pattern[position] == "?":
            part, position = [*part, ""], position + 1
        if position < len(pattern) and pattern[position] in "*+{":
            raise _NotLiteral
        current = [before + after for before in current for after in part]
        if len(current) > MAX_EXAMPLES:
            raise _NotLiteral
    choices += current
    if len(choices) > MAX_EXAMPLES:
        raise _NotLiteral
    return list(dict.fromkeys(choices)), position
