"""The one validation of a name at import: systems, QE systems, suites, reference sets and reviewers.

Names arrive from files (a WMT XML ``sysid``, a TSV cell, a file name, an mt-metrics-eval folder) and from people
(``--name``, ``--reviewer``, the window's reviewer field). Each is checked here once, the same way on every
database:

- **length within its column** (``store.models``: 200 characters for a system, QE system, suite and reviewer,
  100 for a reference set), counted in Unicode NFC as it is stored. SQLite ignores a column's length and kept a
  200,000-character system name; PostgreSQL refused the row in the middle of the import ("this is a bug"). The
  refusal now comes before anything is written, with the file and line;
- **leading and trailing blanks stripped**, and said in the import's summary (a warning): ``" sysA"`` and
  ``"sysA"`` would otherwise be two systems that look alike in every table;
- **control characters refused** (C0/C1 controls such as ESC, BEL, a tab or a line break, NUL, lone surrogates,
  Unicode line and paragraph separators): a terminal runs ESC sequences, and a name with a line break breaks every
  line-based file it is written to. Format characters (zero-width joiners, needed in some scripts) are kept;
- not empty.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from store.domain import NameKind
from store.errors import TsqeError
from store.models import ManualLabel, QESystem, Reference, Suite, System

REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
"""Unicode categories no name may hold: controls, lone surrogates, line and paragraph separators."""


def name_length(kind: NameKind) -> int:
    """How many characters the column storing a ``kind`` of name holds."""
    column = {NameKind.SYSTEM: System.name, NameKind.QE_SYSTEM: QESystem.name, NameKind.SUITE: Suite.name,
              NameKind.REFERENCE_SET: Reference.set_name, NameKind.REVIEWER: ManualLabel.reviewer}[kind]
    length = column.property.columns[0].type.length
    assert isinstance(length, int)
    return length


class BadName(TsqeError):
    """A name that cannot be stored; the message says what is wrong, without the file and line (the importer
    adds them)."""


@dataclass(frozen=True)
class CheckedName:
    """A name as it is stored, and what was done to it on the way (a word for the import's summary)."""

    text: str
    original: str

    @property
    def note(self) -> str | None:
        """What the summary says of the name: None when it is stored as it was given."""
        if self.text == self.original:
            return None
        return f"blanks around the name {self.original!r} were removed: stored as {self.text!r}"


def _shown(text: str) -> str:
    shown = text if len(text) <= 40 else f"{text[:40]}…"
    return ascii(shown) if any(unicodedata.category(c) in REFUSED_CATEGORIES for c in shown) else repr(shown)


def check_name(text: str, kind: NameKind) -> CheckedName:
    """``text`` as a ``kind`` of name is stored (blanks around it stripped), or ``BadName`` saying why it cannot
    be."""
    bad = next((c for c in text if unicodedata.category(c) in REFUSED_CATEGORIES), None)
    if bad is not None:
        raise BadName(f"the {kind} name {_shown(text)} holds the control character U+{ord(bad):04X} "
                      f"({unicodedata.name(bad, 'a control character')}) at position {text.index(bad) + 1}; names "
                      "hold no control characters")
    stripped = text.strip()
    if not stripped:
        raise BadName(f"the {kind} name is empty")
    limit = name_length(kind)
    length = len(unicodedata.normalize("NFC", stripped))
    if length > limit:
        raise BadName(f"the {kind} name {_shown(stripped)} has {length:,} characters; a {kind} name holds at most "
                      f"{limit}")
    return CheckedName(stripped, text)
