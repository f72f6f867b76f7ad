"""Names that become file names: the one way a system's, QE system's, suite's or metric's name is put into a path.

Names come from the data (a WMT XML ``sysid``, a plain-text file's stem, an mt-metrics-eval folder, a challenge
set): ``../../../../x`` is a legal system name, and written as ``{name}.txt`` below an export's folder it lands
outside it. Every exporter, figure, VAT folder and submission therefore maps names through ``FileNames``, which
gives a name that is one path component and nothing else:

- no separator (``/``, ``\\``), no NUL or other control character, none of ``:*?"<>|`` (Windows refuses them);
- not ``.``/``..``, no leading dot (a hidden file) or space, no trailing dot or space (Windows drops them), not a
  Windows device name (``CON``, ``NUL``, ``COM1`` …);
- at most ``MAX_STEM`` characters (UTF-8 bytes are bounded too: most file systems allow 255 bytes a component);
- unique within one export: a name that had to change carries a short hash of the original, and a clash left over
  (two names mapping alike) gets a counter.

A name that is already safe stays as it is, so an ordinary export is byte-for-byte what it was. Where a round trip
needs the original back (mt-metrics-eval), the exporter writes ``mapping()`` beside the files (``write_mapping``)
and the importer reads it back (``read_mapping``). A layout whose files also name things inside lines split on
blanks (mt-metrics-eval's ``SYSNAME SCORE``) asks for names without blanks (``FileNames(blanks=False)``).
"""
from __future__ import annotations

import hashlib
import json
import re
import unicodedata

MAX_STEM = 96
"""Characters of a mapped name before its suffix: leaves room for ``.seg.score`` and the like within 255 bytes."""
_MAX_BYTES = 200
_UNSAFE = re.compile(r'[/\\:*?"<>|]')
_WINDOWS_DEVICES = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{n}" for n in range(1, 10)),
                              *(f"LPT{n}" for n in range(1, 10))})


def _cleaned(name: str, blanks: bool) -> str:
    chars = ["_" if unicodedata.category(c).startswith("C") or (not blanks and c.isspace()) else c for c in name]
    text = _UNSAFE.sub("_", "".join(chars)).strip(" ")
    text = text.lstrip(".").rstrip(". ")
    if text.split(".")[0].upper() in _WINDOWS_DEVICES:
        text = "_" + text
    return text


def _bounded(text: str, limit: int) -> str:
    text = text[:limit]
    while len(text.encode("utf-8")) > _MAX_BYTES:
        text = text[:-1]
    return text


def _digest(name: str) -> str:
    return hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def safe_file_name(name: str, *, blanks: bool = True) -> str:
    """``name`` as one safe path component: itself when it already is one, else a cleaned, bounded form with a
    short hash of the original (so two names that clean alike stay apart). ``blanks=False``: no whitespace
    either."""
    cleaned = _cleaned(name, blanks)
    if cleaned == name and cleaned and len(name) <= MAX_STEM and len(name.encode("utf-8")) <= _MAX_BYTES:
        return name
    stem = _bounded(cleaned, MAX_STEM - 9) or "_"
    return f"{stem}-{_digest(name)}"


class FileNames:
    """The file names of one export: ``of(name)`` is the same for the same name and different for different
    names, all of them ``safe_file_name`` forms; ``mapping()`` lists the names that had to change."""

    def __init__(self, *, blanks: bool = True) -> None:
        self._blanks = blanks
        self._by_name: dict[str, str] = {}
        self._taken: set[str] = set()

    def of(self, name: str) -> str:
        if name in self._by_name:
            return self._by_name[name]
        mapped = safe_file_name(name, blanks=self._blanks)
        # Case-insensitive file systems (macOS, Windows) see "A" and "a" as one file.
        candidate, n = mapped, 1
        while candidate.casefold() in self._taken:
            n += 1
            candidate = f"{mapped}-{n}"
        self._by_name[name] = candidate
        self._taken.add(candidate.casefold())
        return candidate

    def mapping(self) -> dict[str, str]:
        """File name → original name, for every name that was not used as it is."""
        return {file: name for name, file in self._by_name.items() if file != name}


MAPPING_COLUMNS = ("file_name", "name")


def write_mapping(mapping: dict[str, str]) -> str:
    """``mapping()`` as a TSV text (``file_name<TAB>name``), the names escaped as JSON strings so that a tab, a line
    break or any other character in a name comes back exactly."""
    return "\t".join(MAPPING_COLUMNS) + "\n" + "".join(
        f"{json.dumps(file)}\t{json.dumps(name)}\n" for file, name in sorted(mapping.items()))


def read_mapping(text: str) -> dict[str, str]:
    """File name -> original name from ``write_mapping``'s text; a malformed line is a ``ValueError`` naming it."""
    mapping: dict[str, str] = {}
    lines = [line for line in text.split("\n") if line]
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        try:
            if len(fields) != 2:
                raise ValueError(f"expected 2 tab-separated fields, found {len(fields)}")
            file, name = (json.loads(field) for field in fields)
            if not isinstance(file, str) or not isinstance(name, str):
                raise ValueError("both fields are JSON strings")
        except ValueError as error:
            raise ValueError(f"line {number}: {error}") from error
        mapping[file] = name
    return mapping
