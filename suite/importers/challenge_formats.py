"""Reading contrastive challenge sets: DEMETR's JSON files, ACES's TSV and tsqe's contrastive TSV.

A contrastive challenge set gives, per example, a source, usually a reference, a good translation and an
incorrect one, with the phenomenon the incorrect one shows. Every reader turns its layout into the same
``ChallengeSet``; ``suite.importers.challenge`` writes it as a suite. Everything is read and checked before
anything is written; every problem of a file is reported as ``FILE:LINE``.

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

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store.models import nfc
from suite.errors import TsqeError
from suite.importers.characters import json_escape
from suite.importers.limits import MAX_SUITE_ITEMS
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


@dataclass(frozen=True)
class ChallengeSet:
    format: str
    items: list[ChallengeItem]
    unchecked: list[str]
    """Ids of the examples left out because the set itself flags them (DEMETR: ``pert_check`` false)."""


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


def read_demetr(paths: Sequence[Path], problems: Problems, *, include_unchecked: bool) -> ChallengeSet:
    """DEMETR's perturbation files, in the order of the paper's tables: by severity, then perturbation id."""
    files: list[tuple[tuple[int, int, str], list[ChallengeItem]]] = []
    unchecked: list[str] = []
    for path in paths:
        file_problems = problems.for_file(str(path))
        records = _json_list(path, file_problems)
        records.reverse()  # popped from the end: each parsed record is let go once it is an item
        items: list[ChallengeItem] = []
        order: tuple[int, int, str] | None = None
        number = 0
        while records:
            record, number = records.pop(), number + 1
            where = f"example {number}"
            missing = [name for name in _DEMETR_FIELDS if name not in record]
            if missing:
                file_problems.error(None, f"{where}: missing field(s) {', '.join(missing)}")
                continue
            texts = {name: record[name] for name in ("src_sent", "eng_sent", "mt_sent", "pert_sent", "pert_name",
                                                     "severity", "lang_tag")}
            wrong = [name for name, value in texts.items() if not isinstance(value, str)]
            if wrong or not isinstance(record["pert_check"], bool) or not isinstance(record["pert_id"], int):
                bad = wrong + [name for name, kind in (("pert_check", bool), ("pert_id", int))
                               if not isinstance(record[name], kind)]
                file_problems.error(None, f"{where}: field(s) {', '.join(bad)} of the wrong type")
                continue
            # read_text gave the file's text in NFC, but a JSON escape (\u0301) is decoded after that
            record = {**record, **{name: nfc(value) for name, value in texts.items()}}
            severity, name = record["severity"], record["pert_name"].strip()
            if severity not in DEMETR_SEVERITIES:
                file_problems.error(None, f"{where}: unknown severity {severity!r} (DEMETR's are "
                                     f"{', '.join(DEMETR_SEVERITIES)})")
                continue
            language = DEMETR_LANGUAGES.get(record["lang_tag"])
            if language is None:
                file_problems.error(None, f"{where}: unknown lang_tag {record['lang_tag']!r} (DEMETR's are "
                                     f"{', '.join(DEMETR_LANGUAGES)})")
                continue
            if not name or not record["src_sent"].strip():
                file_problems.error(None, f"{where}: empty {'pert_name' if not name else 'src_sent'}")
                continue
            external_id = f"{name}:{record['id']}"
            order = order or (DEMETR_SEVERITIES.index(severity), record["pert_id"], name)
            if not record["pert_check"] and not include_unchecked:
                unchecked.append(external_id)
                continue
            items.append(ChallengeItem(external_id, severity, name, record["src_sent"].strip(),
                                       record["eng_sent"].strip() or None, record["mt_sent"].strip(),
                                       record["pert_sent"].strip(), (language, "en"), str(path), None))
        files.append((order or (len(DEMETR_SEVERITIES), 0, path.name), items))
    files.sort(key=lambda file: file[0])
    return ChallengeSet("demetr", [item for _, items in files for item in items], unchecked)


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
        problems.error(None, "expected a JSON list of examples (objects), as DEMETR's dataset files are")
        return []
    if not data:
        problems.error(None, "the file holds no example")
    return data


def read_aces(paths: Sequence[Path], problems: Problems) -> ChallengeSet:
    """ACES's TSV; an example's id is the ``id`` column when there is one, else its row number (from 1)."""
    return _read_table_set(_ACES, paths, problems)


def read_contrastive_table(paths: Sequence[Path], problems: Problems) -> ChallengeSet:
    """tsqe's contrastive TSV (or CSV, XLSX); an example's id is the ``id`` column, else its row number."""
    return _read_table_set(_CONTRASTIVE, paths, problems)


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


def _read_table_set(layout: _TableLayout, paths: Sequence[Path], problems: Problems) -> ChallengeSet:
    """Every example of the tables; an id is the ``id`` column, else the row number (``FILE:N`` with several
    files)."""
    items: list[ChallengeItem] = []
    for path in paths:
        file_problems = problems.for_file(str(path))
        stripped = StrippedIds(file_problems)
        rows = iter_table(path, file_problems, layout.required, layout.optional, max_rows=MAX_SUITE_ITEMS)
        for number, row in enumerate(rows, start=1):
            place = layout.place(row, file_problems)
            if place is None:
                continue
            external_id = stripped.strip(row["id"], row.line) or (str(number) if len(paths) == 1
                                                                   else f"{path.stem}:{number}")
            item = _item(row.line, file_problems, external_id, *place, row["source"], row["reference"],
                         row[layout.good], row[layout.bad], row[layout.language_pair], path)
            if item is not None:
                items.append(item)
        stripped.report()
    return ChallengeSet(layout.format, items, [])


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
