"""``store.names.check_name`` for an importer: each distinct name of a file checked once, a refusal filed with the
file and the line of the name's first use, blanks stripped said in the import's summary (a warning) once per name."""
from __future__ import annotations

from store.domain import NameKind
from store.names import BadName, check_name
from suite.importers.result import Problems


class NameChecks:
    """The names of one kind in one import."""

    def __init__(self, problems: Problems, kind: NameKind) -> None:
        self._problems = problems
        self._kind = kind
        self._seen: dict[str, str | None] = {}

    def of(self, text: str, line: int | None, *, file: str | None = None) -> str | None:
        """``text`` as it is stored, or None when it cannot be (its problem filed)."""
        if text in self._seen:
            return self._seen[text]
        stored: str | None
        try:
            checked = check_name(text, self._kind)
        except BadName as error:
            self._problems.error(line, str(error), file=file)
            stored = None
        else:
            if checked.note is not None:
                self._problems.warn(line, checked.note, file=file)
            stored = checked.text
        self._seen[text] = stored
        return stored


def given_name(text: str, kind: NameKind, problems: Problems) -> str:
    """A name given to an import rather than read from its file (``--name``): refused at once (``BadName``), blanks
    stripped said in the summary."""
    checked = check_name(text, kind)
    if checked.note is not None:
        problems.warn(None, checked.note)
    return checked.text
