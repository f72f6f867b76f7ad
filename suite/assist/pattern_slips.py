"""Patterns that compile but probably do not say what their author meant: the slips rule health points out.

Each check reads the pattern as the regex engine does (escapes, character classes, groups) and reports where the
slip is. One check also looks at the item's outputs: a pattern whose first letter's case keeps it from matching
outputs that differ from it only in that letter's case at the start of the sentence (``She would`` against
*she would*, ``the cat`` against *The cat*) is a slip the outputs themselves show.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import regex

from suite.engine.rules import compile_error, compiled_pattern


@dataclass(frozen=True)
class PatternSlip:
    kind: str
    """A short name: ``dot``, ``class-boundary``, ``space``, ``case``, ``empty-alternative``, ``boundary-alternation``,
    ``range``."""
    position: int | None
    message: str

    def __str__(self) -> str:
        return self.message if self.position is None else f"{self.message} (at {self.position})"


@dataclass(frozen=True)
class _Char:
    """One character of a pattern as the engine reads it."""

    position: int
    text: str
    """The character, or an escape with its backslash (``\\.``, ``\\b``)."""
    in_class: bool
    depth: int
    """Open groups around it."""


def _read(pattern: str) -> Iterator[_Char]:
    position, in_class, depth = 0, False, 0
    while position < len(pattern):
        char = pattern[position]
        if char == "\\" and position + 1 < len(pattern):
            yield _Char(position, pattern[position:position + 2], in_class, depth)
            position += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            yield _Char(position, char, False, depth)
            position += 1
            if position < len(pattern) and pattern[position] == "^":
                position += 1
            if position < len(pattern) and pattern[position] == "]":  # a ] first in a class is literal
                yield _Char(position, "]", True, depth)
                position += 1
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        yield _Char(position, char, in_class, depth)
        position += 1


def pattern_slips(pattern: str, ignore_case: bool = False, outputs: Sequence[str] = (),
                  found_in: Sequence[bool | None] | None = None) -> list[PatternSlip]:
    """The likely slips of a pattern that compiles (one that does not is an error, not a slip).

    ``found_in``: whether the pattern, as it is, matches each output (None: the search timed out), when the
    caller knows already (rule health has matched every rule against its item's outputs)."""
    if compile_error(pattern, ignore_case) is not None:
        return []
    found = list(_written_slips(pattern))
    if not ignore_case:
        found.extend(_case_slip(pattern, outputs, found_in))
    return found


@functools.lru_cache(maxsize=16_384)
def _written_slips(pattern: str) -> tuple[PatternSlip, ...]:
    """The slips the pattern's text shows by itself, whatever the outputs: kept per pattern, since a suite repeats
    its patterns across the items of a paradigm (DFKI de-en: 2,627 patterns in 3,718 rules), and reading one
    character by character was a quarter of a rule health whose patterns were compiled already."""
    chars = list(_read(pattern))
    found: list[PatternSlip] = []
    for index, char in enumerate(chars):
        before = chars[index - 1] if index else None
        after = chars[index + 1] if index + 1 < len(chars) else None
        if (char.text == "." and not char.in_class and before is not None and after is not None
                and before.text.isalpha() and after.text.isalpha()):
            found.append(PatternSlip("dot", char.position, "an unescaped . between letters matches any "
                                     "character (\\. matches a full stop)"))
        if char.text == "\\b" and char.in_class:
            found.append(PatternSlip("class-boundary", char.position, "\\b inside [ ] is a backspace, not a word "
                                     "boundary"))
        if (char.text == "-" and char.in_class and before is not None and after is not None
                and before.text == "A" and after.text == "z"):
            found.append(PatternSlip("range", before.position, "the range A-z also takes [ \\ ] ^ _ and ` "
                                     "(A-Za-z are the letters)"))
        if char.text == "|" and not char.in_class and (
                before is None or before.text == "(" or after is None or after.text in ("|", ")")):
            found.append(PatternSlip("empty-alternative", char.position, "an empty alternative matches every "
                                     "output" if char.depth == 0 else "an empty alternative makes its group "
                                     "optional"))
    if pattern.startswith(" ") or pattern.endswith(" "):
        where = "leading" if pattern.startswith(" ") else "trailing"
        found.append(PatternSlip("space", 0 if where == "leading" else len(pattern) - 1,
                                 f"a {where} space: the pattern cannot match a word at the "
                                 f"{'start' if where == 'leading' else 'end'} of an output"))
    found.extend(_boundary_alternation(pattern, chars))
    return tuple(found)


@dataclass(frozen=True)
class _Side:
    bounded: regex.Pattern[str]
    """An alternative that has a boundary at this end: \\b, or an anchor (after inline flags)."""
    wordy: regex.Pattern[str]
    """An alternative that would need one: a word character, a class or a group at this end."""


_LEADING = _Side(regex.compile(r"^(?:\(\?[a-zA-Z]+\))*(?:\\b|\^|\\A)"), regex.compile(r"^(?:\(\?[a-zA-Z]+\))*[\w(\[]"))
_TRAILING = _Side(regex.compile(r"(?:\\b|\$|\\Z|\\z)$"), regex.compile(r"[\w)\]][?*+]?$"))


def _boundary_alternation(pattern: str, chars: list[_Char]) -> list[PatternSlip]:
    """``\\bman|guy\\b``: the top-level ``|`` binds looser than the boundaries, so each applies to one
    alternative only; the other alternatives then also match inside words."""
    bars = [char.position for char in chars if char.text == "|" and char.depth == 0 and not char.in_class]
    if not bars:
        return []
    starts = [0, *(bar + 1 for bar in bars)]
    ends = [*bars, len(pattern)]
    alternatives = [pattern[start:end] for start, end in zip(starts, ends)]
    loose: list[str] = []
    for side in (_LEADING, _TRAILING):
        bounded = [side.bounded.search(alternative) is not None for alternative in alternatives]
        if any(bounded):
            loose.extend(alternative for alternative, has in zip(alternatives, bounded)
                         if not has and side.wordy.search(alternative) and alternative not in loose)
    if not loose:
        return []
    return [PatternSlip("boundary-alternation", None, "\\b stands on some alternatives only: "
                        + ", ".join(loose) + (" also matches" if len(loose) == 1 else " also match")
                        + " inside words (\\b(a|b)\\b puts it around all of them)")]


def _case_slip(pattern: str, outputs: Sequence[str], found_in: Sequence[bool | None] | None) -> list[PatternSlip]:
    """Outputs the pattern misses only because of upper/lower case, said more precisely when it is the case of
    its first letter against the first letter of the outputs.

    The patterns come compiled from the rule engine's cache: compiling each twice more here was half of the
    whole DFKI suite's rule health (8 of 16 s)."""
    exact, folded = compiled_pattern(pattern), compiled_pattern(pattern, True)
    if not outputs or exact is None or folded is None:
        return []
    if found_in is None:
        found_in = [_found(exact.search, text) for text in outputs]
    missed = [text for text, found in zip(outputs, found_in, strict=True)
              if found is False and _found(folded.search, text)]
    if not missed:
        return []
    plural = "s" if len(missed) != 1 else ""
    first = regex.match(r"(?:\^|\\b)*([^\W\d_])", pattern)
    if first is not None and all(_found(folded.match, text) and text[:1] != first.group(1) and
                                 _found(exact.match, first.group(1) + text[1:]) for text in missed):
        letter = first.group(1)
        shape = "a capital" if letter.isupper() else "a small letter"
        return [PatternSlip("case", first.start(1), f"starts with {shape}: misses {len(missed)} output{plural} that "
                            f"begin{'' if plural else 's'} with {letter.swapcase()} (tick ignore case, or write "
                            f"[{letter.upper()}{letter.lower()}])")]
    return [PatternSlip("case", None, f"misses {len(missed)} output{plural} that differ{'' if plural else 's'} from "
                        f"it only in upper or lower case (tick ignore case)")]


def _found(search: Callable[..., object], text: str) -> bool:
    """Whether a search of the item's output finds something in a tenth of a second (a slower one: no)."""
    try:
        return search(text, timeout=0.1) is not None
    except TimeoutError:
        return False
