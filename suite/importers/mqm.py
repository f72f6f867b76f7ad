"""An MQM annotation file in Google's layout (github.com/google/wmt-mqm-human-evaluation: one row per error, or
``No-error``, with the system, segment, rater, source, target with the error's span marked ``<v>…</v>``, category
and severity) imported as a suite: items are the segments with their source, every system's output is imported,
the human translation named as the reference system becomes the items' reference (and is no system), and each
output's segment score is its MQM score, stored with the errors it is made of. Item ids are the file's
``seg_id``, so that the scores can be checked against the published ``avg_seg_scores``.

The weights are the published ones (Freitag et al. 2021; mt-metrics-eval's ``score_mqm.py``): Major 5, Minor 1,
Minor Fluency/Punctuation 0.1, Major Non-translation 25, Neutral 0; the score is their negated sum, so higher is
better as with every human score, and equal to the file's ``avg_seg_scores`` (one rater per segment there). The
file is tab-separated without quoting (its texts hold quotes), so it is read line by line, not as a CSV table.
"""
from __future__ import annotations

import re
from array import array
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

import numpy as np
from sqlalchemy import insert
from sqlalchemy.orm import Session

from store import Database
from store.domain import ErrorSeverity, HumanScoreKind
from store.models import HumanErrorSpan, HumanSegmentScore
from suite.errors import TsqeError
from suite.importers.human_scores import record_kind
from suite.importers.limits import MAX_FIELD_CHARS, MAX_WHOLE_FILE_BYTES
from suite.importers.outputs import CHUNK
from suite.importers.result import ImportResult, Problems
from suite.importers.table_files import iter_lines
from suite.importers.wmt import TestSet, add_test_set
from suite.tasks import TaskState, progress_of

COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity")
OPTIONAL = ("comment",)
MARK = re.compile(r"<v>(.*?)</v>", re.DOTALL)
NO_ERROR = "no-error"
NEUTRAL = "neutral"
SOURCE_OF_SCORES = "MQM, Freitag et al.'s weights (Major 5, Minor 1, Minor punctuation 0.1, Non-translation 25)"


def weight(severity: ErrorSeverity, category: str) -> float:
    """An error's weight in the segment's MQM score."""
    top = category.strip().lower()
    if severity is ErrorSeverity.MAJOR:
        return 25.0 if top.rstrip("!") == "non-translation" else 5.0
    return 0.1 if top == "fluency/punctuation" else 1.0


def unmarked(text: str) -> tuple[str, tuple[int, int] | None]:
    """The text without its ``<v>…</v>`` marks, and the marked span's offsets in it (None: nothing marked)."""
    match = MARK.search(text)
    plain = MARK.sub(lambda m: m.group(1), text)
    if match is None:
        return plain, None
    start = match.start()
    return plain, (start, start + len(match.group(1)))


CATEGORY_CHARS = 200
RATER_CHARS = 100
"""The longest category and rater name the database keeps (``HumanErrorSpan``'s columns): longer ones are refused
with their line, as PostgreSQL would refuse them at the write."""
_SEVERITIES = tuple(ErrorSeverity)


class _Errors:
    """The file's errors as columns of machine numbers, their names (system, category, rater) by index: a record
    object per error, beside the file's lines held whole, took 2.0 GB for a file of 268 MB (7.5 times the file;
    issue 27's bound is 4 times)."""

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self.names: list[str] = []
        self.system, self.category, self.rater = array("I"), array("I"), array("I")
        self.segment, self.start, self.end = array("q"), array("q"), array("q")
        """``start`` and ``end`` -1: no span marked."""
        self.in_source, self.severity = array("B"), array("B")
        self.weight = array("d")

    def name(self, text: str) -> int:
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.names)
            self.names.append(text)
        return found

    def add(self, system: str, segment: int, in_source: bool, span: tuple[int, int] | None,
            severity: ErrorSeverity, category: str, rater: str) -> None:
        self.system.append(self.name(system))
        self.segment.append(segment)
        self.in_source.append(in_source)
        self.start.append(span[0] if span else -1)
        self.end.append(span[1] if span else -1)
        self.severity.append(_SEVERITIES.index(severity))
        self.category.append(self.name(category))
        self.rater.append(self.name(rater))
        self.weight.append(weight(severity, category))

    def __len__(self) -> int:
        return len(self.system)

    def of(self, system: str) -> np.ndarray:
        """The positions of ``system``'s errors, in the file's order."""
        index = self._index.get(system)
        if index is None:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(np.frombuffer(self.system, dtype=np.uint32) == index)


@dataclass
class MqmFile:
    sources: dict[int, str] = field(default_factory=dict)
    outputs: dict[str, dict[int, str]] = field(default_factory=lambda: defaultdict(dict))
    errors: _Errors = field(default_factory=_Errors)
    neutral: int = 0


def read_mqm(path: Path, problems: Problems) -> MqmFile:
    """Every row checked, line by line (UTF-8, no NUL, NFC: ``iter_lines``); a problem is reported with its line
    and nothing is returned to write."""
    found = MqmFile()
    at: dict[str, int] = {}
    header: list[str] = []
    for number, line in iter_lines(path, problems, MAX_WHOLE_FILE_BYTES):
        if number == 1:
            header = [name.strip().lower() for name in line.split("\t")]
            missing = [name for name in COLUMNS if name not in header]
            unknown = [name for name in header if name not in (*COLUMNS, *OPTIONAL)]
            if missing or unknown:
                problems.error(1, "not an MQM file of Google's layout: " + "; ".join(
                    part for part in (f"missing column(s) {', '.join(missing)}" if missing else "",
                                      f"unknown column(s) {', '.join(unknown)}" if unknown else "") if part))
                return found
            at = {name: header.index(name) for name in header}
            continue
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < len(COLUMNS) or len(fields) > len(header):
            problems.error(number, f"expected {len(header)} tab-separated fields, found {len(fields)}")
            continue
        if any(len(value) > MAX_FIELD_CHARS for value in fields):
            problems.error(number, f"a field is longer than {MAX_FIELD_CHARS:,} characters")
            continue
        row = {name: fields[index].strip() if index < len(fields) else "" for name, index in at.items()}
        _row(found, row, number, problems)
    if not header and not problems.errors:
        problems.error(None, f"empty file: expected a header row with the columns {', '.join(COLUMNS)}")
    elif not found.sources and not problems.errors:
        problems.error(None, "the file holds no annotated segment")
    return found


def _row(found: MqmFile, row: dict[str, str], number: int, problems: Problems) -> None:
    system = row["system"]
    if not system:
        problems.error(number, "no system named")
        return
    try:
        segment = int(row["seg_id"])
    except ValueError:
        problems.error(number, f"seg_id {row['seg_id']!r} is not a whole number")
        return
    source, source_span = unmarked(row["source"])
    target, target_span = unmarked(row["target"])
    if not source:
        problems.error(number, f"segment {segment}: empty source")
        return
    known = found.sources.setdefault(segment, source)
    if known != source:
        problems.error(number, f"segment {segment}: its source differs from an earlier row's")
        return
    output = found.outputs[system].setdefault(segment, target)
    if output != target:
        problems.error(number, f"segment {segment}, system {system}: its target differs from an earlier row's")
        return
    severity = row["severity"].lower()
    if severity == NO_ERROR:
        return
    if severity == NEUTRAL:
        found.neutral += 1
        return
    if severity not in _SEVERITIES:
        problems.error(number, f"unknown severity {row['severity']!r} (expected Major, Minor, Neutral or No-error; "
                               "the published weights have no other)")
        return
    for column, most in (("category", CATEGORY_CHARS), ("rater", RATER_CHARS)):
        if len(row[column]) > most:
            problems.error(number, f"the {column} has {len(row[column]):,} characters; tsqe keeps at most {most}")
            return
    in_source = source_span is not None and target_span is None
    found.errors.add(system, segment, in_source, source_span if in_source else target_span, ErrorSeverity(severity),
                     row["category"], row["rater"])


def import_mqm(db: Database, path: Path, *, name: str, reference_system: str | None = "ref",
               source_lang: str | None = None, target_lang: str | None = None,
               task: TaskState | None = None) -> ImportResult:
    """Create suite ``name`` from an MQM file; ``reference_system`` (if given) becomes the reference."""
    progress = progress_of(task)
    problems = Problems(str(path))
    progress.progress(0, 2, f"reading {path.name}")
    found = read_mqm(path, problems)
    problems.raise_if_any()
    segments = sorted(found.sources)
    position = {s: k for k, s in enumerate(segments)}
    systems = found.outputs
    for system in list(systems):  # keyed by position, a system at a time: two copies of every output at once cost
        systems[system] = {position[s]: text for s, text in systems[system].items()}
    references: list[tuple[str | None, dict[int, str]]] = []
    if reference_system is not None:
        if reference_system not in systems:
            raise TsqeError(f"{path}: no system named {reference_system!r} to take as the reference (systems: "
                            f"{', '.join(sorted(systems))})")
        references.append((None, systems.pop(reference_system)))
    if not systems:
        raise TsqeError(f"{path}: no MT system is left besides the reference")
    languages = _languages(path, source_lang, target_lang)
    test_set = TestSet(languages[0], languages[1], [found.sources[s] for s in segments], references,
                       dict(sorted(systems.items())), external_ids=[str(s) for s in segments])
    found.sources.clear()
    progress.progress(1, 2, f"writing {name}")
    errors = found.errors
    at = np.searchsorted(np.array(segments, dtype=np.int64), np.frombuffer(errors.segment, dtype=np.int64))
    weights = np.frombuffer(errors.weight, dtype=np.float64)
    scored = spans = 0
    with db.transaction() as session:
        written = add_test_set(session, name, test_set)
        for system, texts in test_set.systems.items():
            system_id, own = written.system_ids[system], errors.of(system)
            # in the file's order, as the published scores were summed: np.subtract.at is unbuffered
            score = np.zeros(len(segments))
            np.subtract.at(score, at[own], weights[own])
            scored += _insert(session, HumanSegmentScore, (
                {"system_id": system_id, "item_id": written.item_ids[k], "kind": HumanScoreKind.MQM,
                 "score": float(score[k]), "raw": None, "judgements": None} for k in texts))
            spans += _insert(session, HumanErrorSpan, (
                {"system_id": system_id, "item_id": written.item_ids[int(at[e])], "kind": HumanScoreKind.MQM,
                 "in_source": bool(errors.in_source[e]), "start": errors.start[e] if errors.start[e] >= 0 else None,
                 "end": errors.end[e] if errors.end[e] >= 0 else None, "severity": str(_SEVERITIES[errors.severity[e]]),
                 "category": errors.names[errors.category[e]], "rater": errors.names[errors.rater[e]] or None,
                 "weight": errors.weight[e]} for e in own.tolist()))
        record_kind(session, written.suite_id, HumanScoreKind.MQM, SOURCE_OF_SCORES)
        progress.progress(2, 2, "imported")
    counts = dict(written.counts, human_segment_scores=scored, error_spans=spans, neutral_errors=found.neutral)
    summary = (f"suite {name!r}: {len(segments):,} segments, {len(systems)} systems"
               + (f", {reference_system!r} as the reference" if reference_system else ""),
               f"{scored:,} MQM segment scores from {spans:,} errors")
    return ImportResult(counts=counts, warnings=problems.warnings, summary=summary)


def _insert(session: Session, model: type[HumanSegmentScore] | type[HumanErrorSpan],
            rows: Iterator[dict[str, object]]) -> int:
    """Rows inserted ``CHUNK`` at a time; how many."""
    count = 0
    while chunk := list(islice(rows, CHUNK)):
        session.execute(insert(model), chunk)
        count += len(chunk)
    return count


def _languages(path: Path, source_lang: str | None, target_lang: str | None) -> tuple[str, str]:
    """Google's files are named ``mqm_<set>_<srctgt>.tsv`` (``mqm_ted_ende.tsv``): the pair is its last part."""
    if source_lang and target_lang:
        return source_lang, target_lang
    pair = path.stem.rsplit("_", 1)[-1]
    if len(pair) == 4 and pair.isalpha():
        return source_lang or pair[:2], target_lang or pair[2:]
    raise TsqeError(f"{path}: the file name says no language pair (mqm_<set>_<srctgt>.tsv): give both languages")
