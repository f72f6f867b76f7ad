"""The public DFKI test-suite format: ``{"items": [{id, langpair, category, phenomenon, source_sentence,
positive_regex, negative_regex, positive_tokens, negative_tokens}]}`` (github.com/DFKI-NLP/mt-testsuite).

The DFKI format has one pattern per polarity, no flags and no references. tsqe reads (and
``suite.exporters.suite_file`` writes, only where an item needs them) these extensions, so that every suite can be
kept as JSON:

- ``positive_regex`` / ``negative_regex`` may be a list of patterns (several rules, in order);
- ``positive_ignore_case`` / ``negative_ignore_case``: a list of booleans, one per pattern of that polarity;
- ``references``: a list of ``{"text": ..., "kind": ..., "set": ...}`` objects (``kind`` optional, default
  standard; ``set`` optional, default the set named after the kind);
- ``comment``: a string.

DFKI's own tools do not know the extensions: an item that uses them is readable by tsqe only.
"""
from __future__ import annotations

import bisect
import json
from pathlib import Path
from typing import Any

from store.domain import Polarity
from store.models import STANDARD_REFERENCE, nfc
from suite.engine.rules import RuleSpec
from suite.importers.characters import json_escape
from suite.importers.item_spec import ItemSpec, ReferenceText
from suite.importers.limits import MAX_SUITE_ITEMS
from suite.importers.result import Problems
from suite.importers.table_files import read_text
from suite.references import SET_NAME

REQUIRED_KEYS = ("id", "langpair", "category", "phenomenon", "source_sentence")
OPTIONAL_KEYS = ("positive_regex", "negative_regex", "positive_tokens", "negative_tokens", "comment",
                 "positive_ignore_case", "negative_ignore_case", "references")


def parse_dfki(path: Path, problems: Problems) -> tuple[list[ItemSpec], tuple[str, str] | None]:
    """The items of the file and its language pair; problems are located at the line where an item starts."""
    text = read_text(path, problems)
    if text is None:
        return [], None
    if not text.strip():
        problems.error(None, "the file is empty")
        return [], None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        problems.error(error.lineno, f"invalid JSON: {error.msg} (column {error.colno})")
        return [], None
    except RecursionError:
        problems.error(None, "the JSON is nested too deeply to be a test suite")
        return [], None
    bad = json_escape(text)
    if bad is not None:
        problems.error(bad.line, bad.message())
        return [], None
    if not isinstance(document, dict) or not isinstance(document.get("items"), list):
        problems.error(None, 'expected a JSON object with an "items" list (the DFKI test-suite format)')
        return [], None
    if len(document["items"]) > MAX_SUITE_ITEMS:
        problems.error(None, f"the file holds {len(document['items']):,} items; a suite file may hold at most "
                             f"{MAX_SUITE_ITEMS:,}")
        return [], None
    lines = _item_lines(text)
    items: list[ItemSpec] = []
    languages: tuple[str, str] | None = None
    languages_line = 0
    for raw, line in zip(document["items"], lines, strict=True):
        item = _item(raw, line, problems)
        if item is None:
            continue
        spec, pair = item
        if languages is None:
            languages, languages_line = pair, line
        elif pair != languages:
            problems.error(line, f"langpair {''.join(pair)!r} differs from {''.join(languages)!r} "
                                 f"of the item at line {languages_line}; a suite has one language pair")
        items.append(spec)
    return items, languages


def _item(raw: Any, line: int, problems: Problems) -> tuple[ItemSpec, tuple[str, str]] | None:
    if not isinstance(raw, dict):
        problems.error(line, f"an item must be a JSON object, not {type(raw).__name__}")
        return None
    # The upstream README spells the keys with spaces ("positive regex"); accept both spellings.
    fields = {"_".join(key.split()): value for key, value in raw.items()}
    errors_before = problems.error_count
    unknown = [key for key in fields if key not in REQUIRED_KEYS + OPTIONAL_KEYS]
    if unknown:
        problems.error(line, f"unknown key(s) {', '.join(map(repr, unknown))}")
    missing = [key for key in REQUIRED_KEYS if key not in fields]
    if missing:
        problems.error(line, f"missing key(s) {', '.join(missing)}")
        return None
    if isinstance(fields["id"], int) and not isinstance(fields["id"], bool):
        fields["id"] = str(fields["id"])
    strings = {key: _string(fields, key, line, problems, required=key in REQUIRED_KEYS)
               for key in ("id", "langpair", "category", "phenomenon", "source_sentence", "comment")}
    positive = _rules(fields, Polarity.POSITIVE, line, problems)
    negative = _rules(fields, Polarity.NEGATIVE, line, problems)
    references = _references(fields.get("references"), line, problems)
    positive_tokens = _string_list(fields, "positive_tokens", line, problems)
    negative_tokens = _string_list(fields, "negative_tokens", line, problems)
    pair = _language_pair(strings["langpair"], line, problems)
    if problems.error_count > errors_before or pair is None:
        return None
    spec = ItemSpec(
        line=line,
        external_id=strings["id"],
        category=strings["category"].strip(),
        phenomenon=strings["phenomenon"].strip(),
        source=strings["source_sentence"],
        rules=positive + negative,
        references=references,
        good=positive_tokens,
        bad=negative_tokens,
        comment=strings["comment"] or None,
    )
    return spec, pair


def _string(fields: dict[str, Any], key: str, line: int, problems: Problems, *, required: bool) -> str:
    value = fields.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        problems.error(line, f"{key} must be a string, not {json.dumps(value)}")
        return ""
    if required and not value.strip():
        problems.error(line, f"{key} is empty")
    return nfc(value.strip() if key == "id" else value)


def _rules(fields: dict[str, Any], polarity: Polarity, line: int, problems: Problems) -> list[RuleSpec]:
    """A polarity's patterns: DFKI's one string ("" for none), or tsqe's list, with its ignore-case flags."""
    key, flags_key = f"{polarity}_regex", f"{polarity}_ignore_case"
    value = fields.get(key)
    if value is None or isinstance(value, str):
        patterns = [value] if value else []
    elif isinstance(value, list) and all(isinstance(entry, str) and entry for entry in value):
        patterns = value
    else:
        problems.error(line, f"{key} must be a string or a list of non-empty strings")
        return []
    flags = fields.get(flags_key)
    patterns = [nfc(pattern) for pattern in patterns]  # a JSON escape such as \u0301 is not NFC'd with the text
    if flags is None:
        return [RuleSpec(polarity, pattern) for pattern in patterns]
    if not isinstance(flags, list) or not all(isinstance(flag, bool) for flag in flags) \
            or len(flags) != len(patterns):
        problems.error(line, f"{flags_key} must be a list of {len(patterns)} booleans, one per {key} pattern")
        return []
    return [RuleSpec(polarity, pattern, flag) for pattern, flag in zip(patterns, flags, strict=True)]


def _references(value: Any, line: int, problems: Problems) -> list[ReferenceText]:
    if value is None:
        return []
    references: list[ReferenceText] = []
    for entry in value if isinstance(value, list) else [None]:
        fields = entry if isinstance(entry, dict) else {}
        text, kind, set_name = fields.get("text"), fields.get("kind", STANDARD_REFERENCE), fields.get("set")
        if not isinstance(text, str) or not text.strip() or not isinstance(kind, str) or not kind.strip() \
                or not (set_name is None or isinstance(set_name, str) and SET_NAME.match(set_name)) \
                or set(fields) - {"text", "kind", "set"}:
            problems.error(line, 'references must be a list of {"text": ..., "kind": ..., "set": ...} objects with '
                                 'non-empty strings (a set name of letters, digits, ".", "_" and "-")')
            return []
        references.append(ReferenceText(nfc(text.strip()), kind.strip(), set_name))
    return references


def _string_list(fields: dict[str, Any], key: str, line: int, problems: Problems) -> list[str]:
    value = fields.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(entry, str) for entry in value):
        problems.error(line, f"{key} must be a list of strings")
        return []
    # Known translations are compared normalised, so surrounding whitespace (a "\n" here and there in the
    # DFKI data) means nothing; stripping it keeps them identical to what a table layout can hold.
    return [nfc(entry.strip()) for entry in value]


def _language_pair(langpair: str, line: int, problems: Problems) -> tuple[str, str] | None:
    """``deen`` or ``de-en`` -> (``de``, ``en``)."""
    if not langpair:
        return None
    parts = langpair.split("-") if "-" in langpair else [langpair[:2], langpair[2:]]
    if len(parts) != 2 or not all(part.isalpha() for part in parts) or ("-" not in langpair
                                                                         and len(langpair) != 4):
        problems.error(line, f"langpair {langpair!r} is not a language pair such as 'deen' or 'de-en'")
        return None
    return parts[0].lower(), parts[1].lower()


def _item_lines(text: str) -> list[int]:
    """The line where each element of the top-level "items" array starts.

    ``json`` does not report positions of values, so walk the (already validated) top level with
    ``raw_decode``, which returns where each value ends.
    """
    decoder = json.JSONDecoder()
    newlines = [index for index, char in enumerate(text) if char == "\n"]

    def line_of(offset: int) -> int:
        return bisect.bisect_right(newlines, offset - 1) + 1

    def skip(offset: int, chars: str = "") -> int:
        while offset < len(text) and (text[offset].isspace() or text[offset] in chars):
            offset += 1
        return offset

    position = skip(0) + 1  # past "{"
    lines: list[int] = []
    while True:
        position = skip(position, ",")
        if text[position] == "}":
            return lines
        key, position = decoder.raw_decode(text, position)
        position = skip(skip(position) + 1)  # past ":"
        if key != "items":
            _, position = decoder.raw_decode(text, position)
            continue
        position += 1  # past "["
        lines = []
        while True:
            position = skip(position, ",")
            if text[position] == "]":
                position += 1
                break
            lines.append(line_of(position))
            _, position = decoder.raw_decode(text, position)
