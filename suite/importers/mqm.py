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
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import insert

from store import Database
from store.domain import ErrorSeverity, HumanScoreKind
from store.models import HumanErrorSpan, HumanSegmentScore
from suite.errors import TsqeError
from suite.importers.human_scores import record_kind
from suite.importers.limits import MAX_FIELD_CHARS, MAX_WHOLE_FILE_BYTES
from suite.importers.result import ImportResult, Problems
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


@dataclass
class _Error:
    system: str
    segment: int
    in_source: bool
    span: tuple[int, int] | None
    severity: ErrorSeverity
    category: str
    rater: str
    weight: float


@dataclass
class MqmFile:
    sources: dict[int, str] = field(default_factory=dict)
    outputs: dict[str, dict[int, str]] = field(default_factory=lambda: defaultdict(dict))
    errors: list[_Error] = field(default_factory=list)
    neutral: int = 0


def read_mqm(path: Path, problems: Problems) -> MqmFile:
    """Every row checked; a problem is reported with its line and nothing is returned to write."""
    found = MqmFile()
    if path.stat().st_size > MAX_WHOLE_FILE_BYTES:
        problems.error(None, f"the file is larger than {MAX_WHOLE_FILE_BYTES:,} bytes, the most tsqe reads")
        return found
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as error:
        problems.error(None, f"not UTF-8 text ({error.reason} at byte {error.start})")
        return found
    if not lines:
        problems.error(None, f"empty file: expected a header row with the columns {', '.join(COLUMNS)}")
        return found
    header = [name.strip().lower() for name in lines[0].split("\t")]
    missing = [name for name in COLUMNS if name not in header]
    unknown = [name for name in header if name not in (*COLUMNS, *OPTIONAL)]
    if missing or unknown:
        problems.error(1, "not an MQM file of Google's layout: " + "; ".join(
            part for part in (f"missing column(s) {', '.join(missing)}" if missing else "",
                              f"unknown column(s) {', '.join(unknown)}" if unknown else "") if part))
        return found
    at = {name: header.index(name) for name in header}
    for number, line in enumerate(lines[1:], start=2):
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
    if not found.sources and not problems.errors:
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
    if severity not in tuple(ErrorSeverity):
        problems.error(number, f"unknown severity {row['severity']!r} (expected Major, Minor, Neutral or No-error; "
                               "the published weights have no other)")
        return
    chosen = ErrorSeverity(severity)
    in_source = source_span is not None and target_span is None
    found.errors.append(_Error(system, segment, in_source, source_span if in_source else target_span, chosen,
                               row["category"], row["rater"], weight(chosen, row["category"])))


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
    systems = dict(found.outputs)
    references: list[tuple[str | None, dict[int, str]]] = []
    if reference_system is not None:
        if reference_system not in systems:
            raise TsqeError(f"{path}: no system named {reference_system!r} to take as the reference (systems: "
                            f"{', '.join(sorted(systems))})")
        texts = systems.pop(reference_system)
        references.append((None, {segments.index(s): text for s, text in texts.items()}))
    if not systems:
        raise TsqeError(f"{path}: no MT system is left besides the reference")
    languages = _languages(path, source_lang, target_lang)
    test_set = TestSet(languages[0], languages[1], [found.sources[s] for s in segments], references,
                       {system: {segments.index(s): text for s, text in texts.items()}
                        for system, texts in sorted(systems.items())},
                       external_ids=[str(s) for s in segments])
    progress.progress(1, 2, f"writing {name}")
    with db.transaction() as session:
        written = add_test_set(session, name, test_set)
        scores: dict[tuple[str, int], float] = {(system, s): 0.0 for system, texts in systems.items() for s in texts}
        for error in found.errors:
            if error.system in systems:
                scores[(error.system, error.segment)] -= error.weight
        item = {s: written.item_ids[k] for k, s in enumerate(segments)}
        session.execute(insert(HumanSegmentScore), [
            {"system_id": written.system_ids[system], "item_id": item[s], "kind": HumanScoreKind.MQM, "score": score,
             "raw": None, "judgements": None} for (system, s), score in scores.items()])
        spans = [{"system_id": written.system_ids[e.system], "item_id": item[e.segment], "kind": HumanScoreKind.MQM,
                  "in_source": e.in_source, "start": e.span[0] if e.span else None,
                  "end": e.span[1] if e.span else None,
                  "severity": str(e.severity), "category": e.category, "rater": e.rater or None, "weight": e.weight}
                 for e in found.errors if e.system in systems]
        if spans:
            session.execute(insert(HumanErrorSpan), spans)
        record_kind(session, written.suite_id, HumanScoreKind.MQM, SOURCE_OF_SCORES)
        progress.progress(2, 2, "imported")
    counts = dict(written.counts, human_segment_scores=len(scores), error_spans=len(spans),
                  neutral_errors=found.neutral)
    summary = (f"suite {name!r}: {len(segments):,} segments, {len(systems)} systems"
               + (f", {reference_system!r} as the reference" if reference_system else ""),
               f"{len(scores):,} MQM segment scores from {len(spans):,} errors")
    return ImportResult(counts=counts, warnings=problems.warnings, summary=summary)


def _languages(path: Path, source_lang: str | None, target_lang: str | None) -> tuple[str, str]:
    """Google's files are named ``mqm_<set>_<srctgt>.tsv`` (``mqm_ted_ende.tsv``): the pair is its last part."""
    if source_lang and target_lang:
        return source_lang, target_lang
    pair = path.stem.rsplit("_", 1)[-1]
    if len(pair) == 4 and pair.isalpha():
        return source_lang or pair[:2], target_lang or pair[2:]
    raise TsqeError(f"{path}: the file name says no language pair (mqm_<set>_<srctgt>.tsv): give both languages")
