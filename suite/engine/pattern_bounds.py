"""What a rule's pattern may ask of the regex compiler before it is compiled at all.

The regex package's compiler (C code, so no Python limit reaches it) builds matching state for every *required*
repetition of a repeat: ``(?:a{65535}){65535}``, 19 characters, grew ``rule add`` to 21.7 GB before the kernel
killed it, and 3,000 nested groups exhaust its recursive parser. Measured on regex 2026.11: compiling costs about
270 bytes per required repetition of a character (``a{100000}``: 27 MB, 0.02 s), a repeat with a minimum of 0 or
1 costs nothing more however large its maximum (``(?:a{0,65535}){0,65535}``: nothing measurable), and a version-1
set operation under ignore-case (``(?V1)(?i)[\\p{Any}&&[^a]]``) about 28 kB, a hundred characters' worth.

So the bound is a count that can only over-estimate, and needs no parser of its own (a parser that misread a
character class could be tricked into under-estimating): the pattern's length, with each set operation weighing
as :data:`SET_OPERATION_WEIGHT` characters, times the product of the minimum counts of all its counted repeats
(``{n}``, ``{n,m}``, ``{n,}``), nested or not. Every pattern of the DFKI test suite (4,752, the longest 358
characters) scores at most 358; the limit is :data:`MAX_EXPANSION`, a few tens of megabytes of compiler memory
at worst. Group nesting is bounded by :data:`MAX_NESTING` (the parser recurses once per level).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

MAX_PATTERN_LENGTH = 10_000
"""Characters in one pattern (the longest of the DFKI suite has 358)."""
MAX_NESTING = 100
"""Groups inside groups (the regex parser recurses per level and fails near 400)."""
MAX_EXPANSION = 100_000
"""The pattern's length times the product of its repeats' minimum counts."""
SET_OPERATION_WEIGHT = 300
"""What a version-1 set operation (``&&``, ``--``, ``~~``, ``||`` inside a class) counts as, in characters."""

_COUNTED_REPEAT = re.compile(r"\{(\d*)(?:,\d*)?\}")
_SET_OPERATION = re.compile(r"&&|--|~~|\|\|")


@dataclass(frozen=True)
class TooComplex:
    """Why a pattern is refused before compiling, and where (None when it is the whole pattern)."""

    position: int | None
    reason: str


def too_complex(pattern: str) -> TooComplex | None:
    """Why compiling ``pattern`` could exhaust memory or the parser's stack, or None when it is safe to try."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return TooComplex(None, f"it has {len(pattern):,} characters; at most {MAX_PATTERN_LENGTH:,} are compiled")
    deepest, position = _nesting(pattern) if pattern.count("(") > MAX_NESTING else (0, 0)
    if deepest > MAX_NESTING:
        return TooComplex(position, f"its groups are nested {deepest:,} deep; at most {MAX_NESTING} levels are "
                                    f"compiled")
    weight = len(pattern) + (SET_OPERATION_WEIGHT - 1) * len(_SET_OPERATION.findall(pattern))
    repeats = [match for match in _COUNTED_REPEAT.finditer(pattern) if int(match.group(1) or 0) >= 2]
    expansion = weight
    for match in repeats:
        expansion *= int(match.group(1))
        if expansion > MAX_EXPANSION:  # stop before a product of many large counts takes long to compute
            break
    if expansion > MAX_EXPANSION:
        shown = " ".join(match.group(0) for match in repeats[:5]) + (" …" if len(repeats) > 5 else "")
        where = f"its repeats {shown} times its {weight:,} characters" if repeats else f"its {weight:,} characters"
        return TooComplex(repeats[0].start() if repeats else None,
                          f"{where} make more than {MAX_EXPANSION:,} required repetitions to compile")
    return None


def _nesting(pattern: str) -> tuple[int, int]:
    """The deepest nesting of parentheses and where it first goes past :data:`MAX_NESTING`; escaped ones are
    skipped, those inside a character class are counted too, which can only make the depth larger than the
    parser's."""
    depth = deepest = position = 0
    escaped = False
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
            if depth == MAX_NESTING + 1 and not position:
                position = index
        elif char == ")":
            depth = max(0, depth - 1)
    return deepest, position
