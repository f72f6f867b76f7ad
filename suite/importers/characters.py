"""The characters no stored text may hold, found where text enters: one check for every importer.

A NUL character cannot be stored by PostgreSQL at all and ends C strings in every tool a text is handed to; a lone
surrogate (U+D800..U+DFFF not in a pair) is not a character, cannot be encoded as UTF-8, and so makes tsqe's own
export of the text unreadable (SQLite stores it, the export then fails or writes bytes no reader accepts). No
sentence holds either: a file that does is a binary or UTF-16 file read as UTF-8, or JSON written with ``\\u0000``
or half of a ``\\ud83d\\ude00`` pair. Text files decoded as UTF-8 cannot hold a surrogate (the decoder refuses its
bytes), XML cannot hold either (expat refuses ``&#0;`` and ``&#xD800;``), so what remains to find is a NUL in a
text file and the JSON escapes, whose decoded strings carry no position: ``json_escape`` finds them in the JSON
text itself, by line and column.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_JSON_ESCAPE = re.compile(r"\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"
                          r"|u(?P<bad>0000|[dD][89a-fA-F][0-9a-fA-F]{2})|.)", re.DOTALL)
"""A JSON escape: a surrogate pair (kept, unnamed), a NUL or lone surrogate (``bad``), or any other (kept)."""


@dataclass(frozen=True)
class Unstorable:
    """Where in a text the first character that cannot be stored stands (line and column from 1), and which."""

    line: int
    column: int
    what: str

    def message(self, advice: str = "") -> str:
        return f"column {self.column}: {self.what}, which no sentence holds{advice}"


def unstorable(text: str) -> Unstorable | None:
    """The first NUL or lone surrogate of ``text``, or None when it has none."""
    match = _UNSTORABLE.search(text)
    if match is None:
        return None
    return _at(text, match.start(), _name(ord(match.group())))


def json_escape(text: str) -> Unstorable | None:
    """The first ``\\u`` escape of a JSON text that decodes to a NUL or a lone surrogate, or None.

    ``text`` must be JSON that ``json.loads`` accepted: a backslash then stands only inside a string and starts an
    escape, so reading escapes left to right (``\\\\`` is one) finds each where it is.
    """
    if "\\u" not in text:
        return None
    for match in _JSON_ESCAPE.finditer(text):
        if match.group("bad") is not None:
            return _at(text, match.start(), f"{_name(int(match.group('bad'), 16))} written {match.group()}")
    return None


def _name(code: int) -> str:
    return "a NUL character" if code == 0 else f"half of a surrogate pair (U+{code:04X}) alone"


def _at(text: str, offset: int, what: str) -> Unstorable:
    line_start = text.rfind("\n", 0, offset) + 1
    return Unstorable(text.count("\n", 0, offset) + 1, offset - line_start + 1, what)
