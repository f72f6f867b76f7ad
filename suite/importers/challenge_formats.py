"""Reading contrastive challenge sets: DEMETR's JSON files, ACES's TSV and tsqe's contrastive TSV.

A contrastive challenge set gives, per example, a source, usually a reference, a good translation and an
incorrect one, with the phenomenon the incorrect one shows. Every reader turns its layout into the same
``ChallengeItem``s, one at a time; ``suite.importers.challenge`` checks them all, then reads them again to write
them as a suite. Every problem of a file is reported as ``FILE:LINE``.

- DEMETR (Karpinska et al., EMNLP 2022; github.com/marzenakrp/demetr, ``dataset/*.json``): one JSON list per
  perturbation of objects with ``id`` (1..1000, the same source sentence in every file), ``src_sent``,
  ``eng_sent`` (the reference), ``mt_sent`` (the good translation), ``pert_sent`` (the perturbed one),
  ``lang_tag``, ``data_source``, ``pert_check`` (whether the perturbation could be applied), ``severity``,
  ``pert_id``, ``pert_desc`` and ``pert_name``. Category: the severity; phenomenon: the perturbation's name.
- ACES (Amrhein et al., WMT 2022): the TSV columns ``source, good-translation, incorrect-translation,
  reference, phenomena, langpair`` documented in github.com/EdinburghNLP/ACES (its data is published outside
  GitHub). Category: the phenomenon's top-level class as ACES's own ``evaluate.py`` maps it.
- contrastive TSV: ``source, reference, good, bad, category, phenomenon`` and optionally ``id`` and
  ``language_pair``, for any other set (also CSV or XLSX).
"""
from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import ijson

from store.models import nfc
from suite.errors import TsqeError
from suite.importers.characters import json_escape
from suite.importers.limits import MAX_SUITE_ITEMS, MAX_WHOLE_FILE_BYTES
from suite.importers.lookups import StrippedIds
from suite.importers.result import Problems
from suite.importers.table_files import TableRow, iter_table, read_text
from suite.suites import LANGUAGE_PAIR

MULTIPLE_LANGUAGES = "mul"
"""ISO 639's code for several languages: a suite's language when its items have different ones."""

DEMETR_LANGUAGES = {"chinese_simple": "zh", "czech": "cs", "french": "fr", "german": "de", "hindi": "hi",
                    "italian": "it", "japanese": "ja", "polish": "pl", "russian": "ru", "spanish": "es"}
"""DEMETR's ``lang_tag`` values (its ten source languages) as ISO 639-1 codes; its target is always English."""
DEMETR_SEVERITIES = ("minor", "major", "critical", "base")
"""The order of DEMETR's severities in the suite, as in the paper's tables (base: the baselines)."""
_DEMETR_FIELDS = ("id", "src_sent", "eng_sent", "mt_sent", "pert_sent", "lang_tag", "pert_check", "severity",
                  "pert_id", "pert_name")

ACES_COLUMNS = ("source", "good-translation", "incorrect-translation", "reference", "phenomena", "langpair")
ACES_CATEGORIES: dict[str, str] = {
    "addition": "addition", "omission": "omission",
    **dict.fromkeys((
        "ambiguous-translation-wrong-discourse-connective-since-causal",
        "ambiguous-translation-wrong-discourse-connective-since-temporal",
        "ambiguous-translation-wrong-discourse-connective-while-contrast",
        "ambiguous-translation-wrong-discourse-connective-while-temporal",
        "ambiguous-translation-wrong-gender-female-anti", "ambiguous-translation-wrong-gender-female-pro",
        "ambiguous-translation-wrong-gender-male-anti", "ambiguous-translation-wrong-gender-male-pro",
        "ambiguous-translation-wrong-sense-frequent", "ambiguous-translation-wrong-sense-infrequent",
        "anaphoric_group_it-they:deletion", "anaphoric_group_it-they:substitution",
        "anaphoric_intra_non-subject_it:deletion", "anaphoric_intra_non-subject_it:substitution",
        "anaphoric_intra_subject_it:deletion", "anaphoric_intra_subject_it:substitution",
        "anaphoric_intra_they:deletion", "anaphoric_intra_they:substitution",
        "anaphoric_singular_they:deletion", "anaphoric_singular_they:substitution",
        "coreference-based-on-commonsense", "hallucination-date-time",
        "hallucination-named-entity-level-1", "hallucination-named-entity-level-2",
        "hallucination-named-entity-level-3", "hallucination-number-level-1", "hallucination-number-level-2",
        "hallucination-number-level-3", "hallucination-real-data-vs-ref-word", "hallucination-real-data-vs-synonym",
        "hallucination-unit-conversion-amount-matches-ref", "hallucination-unit-conversion-unit-matches-ref",
        "lexical-overlap", "modal_verb:deletion", "modal_verb:substitution", "nonsense", "ordering-mismatch",
        "overly-literal-vs-correct-idiom", "overly-literal-vs-explanation", "overly-literal-vs-ref-word",
        "overly-literal-vs-synonym", "pleonastic_it:deletion", "pleonastic_it:substitution",
        "xnli-addition-contradiction", "xnli-addition-neutral", "xnli-omission-contradiction",
        "xnli-omission-neutral"), "mistranslation"),
    **dict.fromkeys(("copy-source", "untranslated-vs-ref-word", "untranslated-vs-synonym"), "untranslated"),
    "do-not-translate": "do not translate",
    "hyponym-replacement": "overtranslation",
    "hypernym-replacement": "undertranslation",
    **dict.fromkeys(("antonym-replacement", "commonsense-only-ref-ambiguous", "commonsense-src-and-ref-ambiguous",
                     "real-world-knowledge-entailment", "real-world-knowledge-hypernym-vs-distractor",
                     "real-world-knowledge-hypernym-vs-hyponym", "real-world-knowledge-synonym-vs-antonym"),
                    "real-world knowledge"),
    **dict.fromkeys(("similar-language-high", "similar-language-low"), "wrong language"),
    **dict.fromkeys(("punctuation:deletion_all", "punctuation:deletion_commas", "punctuation:deletion_quotes",
                     "punctuation:statement-to-question"), "punctuation"),
}
"""ACES's 68 phenomena -> the top-level class of its MQM-based hierarchy (``PHENOMENA_MAPPING`` of ACES's
``aces/cli/evaluate.py``), which is the suite's category and what the ACES score weighs."""
ACES_UNMAPPED = "other"
"""The category of a phenomenon ACES's mapping does not know (a newer or home-made set): it carries no weight."""

CONTRASTIVE_COLUMNS = ("source", "reference", "good", "bad", "category", "phenomenon")
CONTRASTIVE_OPTIONAL = ("id", "language_pair")


@dataclass(frozen=True)
class ChallengeItem:
    """One example: a source, its reference (None: the set has none for it), the good and the incorrect
    translation, and where it was read (for messages)."""

    external_id: str
    category: str
    phenomenon: str
    source: str
    reference: str | None
    good: str
    bad: str
    languages: tuple[str, str] | None
    """(source, target) language of the example; None: the set names none."""
    file: str
    line: int | None
    flagged: bool = False
    """The set itself flags the example as not valid (DEMETR: ``pert_check`` false)."""
    rank: tuple[int, int, str] | None = None
    """Where the example's file stands among the set's files: DEMETR's (severity, perturbation id, name), so that
    the suite follows the paper's tables; None: the files stay in name order."""


@dataclass(frozen=True)
class ChallengeSource:
    """A set's files and how to read them, one example at a time: the import reads them twice, once to check
    everything and once to write, so that it holds a chunk of examples, not the set (a 123 MB DEMETR file held
    as examples took 833 MB)."""

    format: str
    files: tuple[Path, ...]
    read_file: Callable[[Path, Problems], Iterator[ChallengeItem]]

    def examples(self, problems: Problems) -> Iterator[ChallengeItem]:
        for path in self.files:
            yield from self.read_file(path, problems.for_file(str(path)))


def challenge_source(path: Path, format: str) -> ChallengeSource:
    """The set in ``path`` (a file, or a folder of files of one set) in ``format``."""
    files = tuple(challenge_files(path, format))
    if format == "demetr":
        return ChallengeSource(format, files, read_demetr_file)
    layout = _ACES if format == "aces" else _CONTRASTIVE
    return ChallengeSource(format, files, partial(_read_table, layout, len(files) > 1))


def challenge_files(path: Path, format: str) -> list[Path]:
    """The files of a set given as a file or a folder: DEMETR's ``*.json`` anywhere under the folder (the
    repository keeps them in ``dataset/``), else the folder's tables; in name order."""
    if not path.is_dir():
        return [path]
    suffixes = (".json",) if format == "demetr" else (".tsv", ".csv", ".xlsx")
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in suffixes
                   and not any(part.startswith(".") for part in p.relative_to(path).parts))
    if not files:
        raise TsqeError(f"{path}: no {' or '.join(suffixes)} file in this folder")
    return files


def read_demetr_file(path: Path, problems: Problems) -> Iterator[ChallengeItem]:
    """The examples of one DEMETR perturbation file, the flagged ones among them."""
    for number, record in enumerate(_json_records(path, problems), start=1):
        where = f"example {number}"
        missing = [name for name in _DEMETR_FIELDS if name not in record]
        if missing:
            problems.error(None, f"{where}: missing field(s) {', '.join(missing)}")
            continue
        texts = {name: record[name] for name in ("src_sent", "eng_sent", "mt_sent", "pert_sent", "pert_name",
                                                 "severity", "lang_tag")}
        wrong = [name for name, value in texts.items() if not isinstance(value, str)]
        if wrong or not isinstance(record["pert_check"], bool) or not isinstance(record["pert_id"], int):
            bad = wrong + [name for name, kind in (("pert_check", bool), ("pert_id", int))
                           if not isinstance(record[name], kind)]
            problems.error(None, f"{where}: field(s) {', '.join(bad)} of the wrong type")
            continue
        # JSON escapes (\u0301) are decoded after the file's text is read: each string is put in NFC here
        record = {**record, **{name: nfc(value) for name, value in texts.items()}}
        severity, name = record["severity"], record["pert_name"].strip()
        if severity not in DEMETR_SEVERITIES:
            problems.error(None, f"{where}: unknown severity {severity!r} (DEMETR's are "
                                 f"{', '.join(DEMETR_SEVERITIES)})")
            continue
        language = DEMETR_LANGUAGES.get(record["lang_tag"])
        if language is None:
            problems.error(None, f"{where}: unknown lang_tag {record['lang_tag']!r} (DEMETR's are "
                                 f"{', '.join(DEMETR_LANGUAGES)})")
            continue
        if not name or not record["src_sent"].strip():
            problems.error(None, f"{where}: empty {'pert_name' if not name else 'src_sent'}")
            continue
        yield ChallengeItem(f"{name}:{record['id']}", severity, name, record["src_sent"].strip(),
                            record["eng_sent"].strip() or None, record["mt_sent"].strip(),
                            record["pert_sent"].strip(), (language, "en"), str(path), None,
                            flagged=not record["pert_check"],
                            rank=(DEMETR_SEVERITIES.index(severity), record["pert_id"], name))


_UNSTORABLE_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
"""A JSON escape that may decode to a NUL or a lone surrogate (or an escaped backslash before such text): the
streaming parser turns a lone surrogate into "?", so such a file is read whole, where each escape is checked."""
_SCAN_BYTES = 8 * 1024 * 1024


def _json_records(path: Path, problems: Problems) -> Iterator[dict[str, Any]]:
    """The objects of the file's top-level list, parsed one at a time (``ijson``).

    Only what a valid file needs is streamed: a file with an error, or an escape that needs checking, is read
    whole by ``_json_list``, whose messages give the line and column of what is wrong; if that reading accepts
    what the stricter streaming parser did not (``NaN``), the records not yet given follow from it.
    """
    if _read_whole(path):
        yield from _json_list(path, problems)
        return
    given = 0
    try:
        with path.open("rb") as file:
            if file.read(len(codecs.BOM_UTF8)) != codecs.BOM_UTF8:
                file.seek(0)
            for record in ijson.items(file, "item", use_float=True):
                if not isinstance(record, dict):
                    problems.error(None, _NOT_A_LIST)
                    return
                given += 1
                yield record
    except ijson.JSONError:
        yield from _json_list(path, problems)[given:]
        return
    except OSError as error:
        problems.error(None, f"cannot read the file: {error.strerror or error}")
        return
    if not given:
        yield from _json_list(path, problems)


def _read_whole(path: Path) -> bool:
    """Whether the file is not a list, is too large to be read whole, or holds an escape ijson would change."""
    try:
        if path.stat().st_size > MAX_WHOLE_FILE_BYTES:
            return True
        with path.open("rb") as file:
            start = file.read(64).lstrip(codecs.BOM_UTF8).lstrip()
            if not start.startswith(b"["):
                return True
            file.seek(0)
            tail = b""
            while chunk := file.read(_SCAN_BYTES):
                if _UNSTORABLE_ESCAPE.search(tail + chunk):
                    return True
                tail = chunk[-6:]
    except OSError:
        return True
    return False


_NOT_A_LIST = "expected a JSON list of examples (objects), as DEMETR's dataset files are"


def _json_list(path: Path, problems: Problems) -> list[dict[str, Any]]:
    text = read_text(path, problems)
    if text is None:
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        problems.error(error.lineno, f"not valid JSON: {error.msg}")
        return []
    except RecursionError:
        problems.error(None, "the JSON is nested too deeply to be a list of examples")
        return []
    bad = json_escape(text)
    if bad is not None:
        problems.error(bad.line, bad.message())
        return []
    if not isinstance(data, list) or not all(isinstance(record, dict) for record in data):
        problems.error(None, _NOT_A_LIST)
        return []
    if not data:
        problems.error(None, "the file holds no example")
    return data


def _aces_place(row: TableRow, problems: Problems) -> tuple[str, str] | None:
    phenomenon = row["phenomena"].strip()
    if not phenomenon:
        problems.error(row.line, "empty phenomena")
        return None
    category = ACES_CATEGORIES.get(phenomenon)
    if category is None:
        problems.warn(row.line, f"phenomenon {phenomenon!r} is not one of ACES's: its category is "
                                f"{ACES_UNMAPPED!r}, which the ACES score does not weigh")
        category = ACES_UNMAPPED
    return category, phenomenon


def _contrastive_place(row: TableRow, problems: Problems) -> tuple[str, str] | None:
    category, phenomenon = row["category"].strip(), row["phenomenon"].strip()
    if not category or not phenomenon:
        problems.error(row.line, f"empty {'category' if not category else 'phenomenon'}")
        return None
    return category, phenomenon


@dataclass(frozen=True)
class _TableLayout:
    """Where a table layout keeps each part of an example."""

    format: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    good: str
    bad: str
    language_pair: str
    place: Callable[[TableRow, Problems], tuple[str, str] | None]
    """The example's (category, phenomenon), None after reporting why it has none."""


_ACES = _TableLayout("aces", ACES_COLUMNS, ("id",), "good-translation", "incorrect-translation", "langpair",
                     _aces_place)
_CONTRASTIVE = _TableLayout("contrastive-tsv", CONTRASTIVE_COLUMNS, CONTRASTIVE_OPTIONAL, "good", "bad",
                            "language_pair", _contrastive_place)


def _read_table(layout: _TableLayout, several: bool, path: Path, problems: Problems) -> Iterator[ChallengeItem]:
    """Every example of one table; an id is the ``id`` column, else the row number (``FILE:N`` when the set has
    several files)."""
    stripped = StrippedIds(problems)
    rows = iter_table(path, problems, layout.required, layout.optional, max_rows=MAX_SUITE_ITEMS)
    for number, row in enumerate(rows, start=1):
        place = layout.place(row, problems)
        if place is None:
            continue
        external_id = stripped.strip(row["id"], row.line) or (f"{path.stem}:{number}" if several else str(number))
        item = _item(row.line, problems, external_id, *place, row["source"], row["reference"],
                     row[layout.good], row[layout.bad], row[layout.language_pair], path)
        if item is not None:
            yield item
    stripped.report()


def _item(line: int, problems: Problems, external_id: str, category: str, phenomenon: str, source: str,
          reference: str, good: str, bad: str, pair: str, path: Path) -> ChallengeItem | None:
    if not source.strip():
        problems.error(line, "empty source")
        return None
    languages = None
    if pair.strip():
        match = LANGUAGE_PAIR.fullmatch(pair.strip().lower())
        if match is None:
            problems.error(line, f"language pair {pair.strip()!r} is not written like de-en")
            return None
        languages = (match[1], match[2])
    return ChallengeItem(external_id, category, phenomenon, source.strip(), reference.strip() or None, good.strip(),
                         bad.strip(), languages, str(path), line)
