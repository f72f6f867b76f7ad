"""A test set in google-research/mt-metrics-eval's layout (``tsqe import mtme DIR --lp de-en``).

The layout (mt-metrics-eval's README, "File organization and naming convention"), under the test set's folder:

- ``sources/SRC-TGT.txt``: one segment a line -> items ``1..N`` (line numbers), as ``tsqe import wmt`` makes them;
- ``documents/SRC-TGT.docs``: ``DOMAIN DOCNAME`` per line -> the item's category (domain) and phenomenon
  (document), which mt-metrics-eval itself says may stand for other groupings;
- ``references/SRC-TGT.NAME.txt`` -> one reference set per NAME;
- ``system-outputs/SRC-TGT/NAME.txt`` -> system NAME (references scored as systems included, as the layout has
  them);
- ``human-scores/SRC-TGT.NAME.LEVEL.score``: ``SYSNAME SCORE`` lines (``None``: no score) -> the system-level
  scores of one NAME become the suite's human scores (``tsqe correlate``), and the segment-level scores of the
  same NAME (``NAME.seg.score``: a block of lines per system, one per segment in the sources' order) its
  segment-level human scores (the meta-evaluation's), written by the same writer as ``tsqe import human-scores
  --segments`` (``None`` lines are skipped and counted). tsqe keeps one human score per system and segment, so
  the other NAMEs, and the domain and document levels, are reported and left;
- ``metric-scores/SRC-TGT/NAME-REF.seg.score``: a block of ``SYSNAME SCORE`` lines per system, one per segment ->
  the QE system ``NAME-REF`` (imported), usable by ``tsqe accuracy`` and ``tsqe correlate --metric qe:NAME-REF``.
  A QE system scores distinct outputs: systems that produced the same output and got different scores (a
  document-level metric) give it their mean, which is counted. A QE system of that name already in the database
  (the same metric on another language pair) gets this suite's scores added. System-, document- and domain-level
  metric scores are reported and left (tsqe computes a metric's system score from its segment scores).

Names that ``tsqe export mtme`` had to change to make them file names are listed in a ``tsqe-names.tsv`` beside
their files (``suite.file_names.write_mapping``): systems, reference sets and metrics get their original names back.

Lines are read as mt-metrics-eval reads them (trailing whitespace stripped). Every file is checked before
anything is written; the whole import is one transaction.
"""
from __future__ import annotations

import itertools
import math
import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Column, Float, Integer, MetaData, Table, case, func, insert, select
from sqlalchemy.orm import Session

from store import Database
from store.domain import HumanScoreKind, NameKind
from store.models import HumanScore, SystemOutput
from suite.errors import Problem, TsqeError
from suite.file_names import read_mapping
from suite.importers.human_scores import WRITE_CHUNK, SystemMatch, record_kind, write_segment_scores
from suite.importers.human_segments import SegmentScore
from suite.importers.names import NameChecks, given_name
from suite.importers.result import Problems
from suite.importers.table_files import read_lines
from suite.importers.wmt import SystemOutputs, TestSet, WrittenTestSet, add_test_set
from suite.qe_scores import merge_score_table
from suite.suites import split_language_pair
from suite.tasks import TaskState, progress_of

LEVELS = ("sys", "domain", "doc", "seg")
HUMAN_PREFERENCE = ("mqm", "wmt-z", "wmt-appraise", "wmt-raw", "psqm", "esa")
"""The human score imported when a test set has several and none is named: the gold standards of mt-metrics-eval's
WMT sets, most trusted first."""
SOURCE_OF_SCORES = "mt-metrics-eval"
KINDS = {"mqm": HumanScoreKind.MQM, "esa": HumanScoreKind.ESA, "wmt-raw": HumanScoreKind.DA,
         "wmt-appraise": HumanScoreKind.DA}
"""The kind of mt-metrics-eval's human scores by their name; the others (``wmt-z``, ``psqm``, ...) are stored as
WMT DA z-scores, the kind every import of theirs was taken for before kinds were named."""


@dataclass
class MtmeFolder:
    """What a test set's folder holds for one language pair, read and checked."""

    test_set: TestSet
    human: dict[str, dict[str, float]] = field(default_factory=dict)
    """Human score name -> system -> system-level score (``None`` lines left out)."""
    human_segments: dict[str, Path] = field(default_factory=dict)
    """Human score name -> its segment-level file (read once the name to import is chosen)."""
    metrics: dict[str, Path] = field(default_factory=dict)
    """Metric NAME-REF -> its segment-level file, checked (its scores are read again as they are written)."""
    left: list[str] = field(default_factory=list)
    """Score files not imported (other levels), by name."""
    system_names: dict[str, str] = field(default_factory=dict)
    """A system's name in the score files -> its name (``tsqe-names.tsv``; the same where none is listed)."""


def _lines(path: Path, problems: Problems) -> list[str] | None:
    lines = read_lines(path, problems, file=str(path))
    return None if lines is None else [line.rstrip() for line in lines]


def _names(path: Path, problems: Problems) -> dict[str, str]:
    """File name -> original name from a ``tsqe-names.tsv`` (none: no name changed)."""
    if not path.is_file():
        return {}
    lines = read_lines(path, problems, file=str(path))
    try:
        return read_mapping("\n".join(lines or []))
    except ValueError as error:
        problems.error(None, f"not a tsqe name mapping: {error}", file=str(path))
        return {}


def read_mtme(root: Path, lp: str, problems: Problems) -> MtmeFolder:
    """The language pair ``lp`` of the mt-metrics-eval test set in ``root``."""
    source_lang, target_lang = split_language_pair(lp)
    sources_path = root / "sources" / f"{lp}.txt"
    if not sources_path.is_file():
        raise TsqeError(f"{root}: no sources/{lp}.txt: not an mt-metrics-eval test set folder for {lp} "
                        f"(it holds sources/, references/, system-outputs/{lp}/ ...)")
    sources = _lines(sources_path, problems) or []
    for number, text in enumerate(sources, start=1):
        if not text.strip():
            problems.error(number, "empty source line", file=str(sources_path))

    def aligned(path: Path) -> dict[int, str]:
        lines = _lines(path, problems)
        if lines is None:
            return {}
        if len(lines) != len(sources):
            problems.error(min(len(lines), len(sources)) + 1, f"has {len(lines)} lines but sources/{lp}.txt has "
                                                              f"{len(sources)}", file=str(path))
        return {index: line.strip() for index, line in enumerate(lines)}

    references: list[tuple[str | None, dict[int, str]]] = []
    reference_names = _names(root / "references" / f"{lp}.tsqe-names.tsv", problems)
    for path in sorted((root / "references").glob(f"{lp}.*.txt")):
        name = path.name[len(lp) + 1:-len(".txt")]
        if not name or "." in name or "-" in name or name in ("all", "src"):
            problems.error(None, f"reference name {name!r}: mt-metrics-eval's names have no '.' or '-' and are not "
                                 f"'all' or 'src'", file=str(path))
            continue
        references.append((reference_names.get(name, name), aligned(path)))
    system_files = {path.name[:-len(".txt")]: path for path in sorted((root / "system-outputs" / lp).glob("*.txt"))}
    for path in system_files.values():  # checked here, read again as they are written (``SystemOutputs``)
        aligned(path)
    systems = system_files.keys()
    if not systems:
        problems.error(None, f"no system output (system-outputs/{lp}/*.txt)", file=str(root))
    places: list[tuple[str, str]] = []
    docs_path = root / "documents" / f"{lp}.docs"
    if docs_path.is_file():
        for number, line in enumerate(_lines(docs_path, problems) or [], start=1):
            fields = line.split()
            if len(fields) != 2:
                problems.error(number, f"expected DOMAIN DOCNAME, found {len(fields)} fields", file=str(docs_path))
                continue
            places.append((fields[0], fields[1]))
        if len(places) != len(sources) and not problems.errors:
            problems.error(None, f"has {len(places)} lines but sources/{lp}.txt has {len(sources)}",
                           file=str(docs_path))
    mapped = _names(root / "system-outputs" / lp / "tsqe-names.tsv", problems)
    checks = NameChecks(problems, NameKind.SYSTEM)
    system_names = {system: checks.of(mapped.get(system, system), None,
                                      file=str(root / "system-outputs" / lp / f"{system}.txt")) or system
                    for system in systems}
    found = MtmeFolder(TestSet(source_lang, target_lang, [text.strip() for text in sources], references,
                               SystemOutputs({system_names[system]: path for system, path in system_files.items()},
                                             len(sources)), places),
                       system_names=system_names)
    for path in sorted((root / "human-scores").glob(f"{lp}.*.score")):
        parts = path.name.split(".")
        name, level = ".".join(parts[1:-2]), parts[-2]
        if level == "seg":
            found.human_segments[name] = path
            continue
        if level != "sys":
            found.left.append(f"human {name} ({level})")
            continue
        firsts: dict[str, float | None] = {}
        for _, system, value in _score_file(path, problems, systems, allow_none=True):
            firsts.setdefault(system, value)
        found.human[name] = {found.system_names[system]: value for system, value in firsts.items()
                             if value is not None}
    metric_names = _names(root / "metric-scores" / lp / "tsqe-names.tsv", problems)
    metric_checks = NameChecks(problems, NameKind.QE_SYSTEM)
    for path in sorted((root / "metric-scores" / lp).glob("*.score")):
        name, level = path.name.rsplit(".", 2)[:2]
        if level not in LEVELS or "-" not in name:
            problems.error(None, "not a metric score file: expected NAME-REF.LEVEL.score", file=str(path))
            continue
        if level != "seg":
            found.left.append(f"metric {name} ({level})")
            continue
        for _ in _segment_scores(path, problems, systems, len(sources), allow_none=False):
            pass
        found.metrics[metric_checks.of(metric_names.get(name, name), None, file=str(path)) or name] = path
    return found


def _segment_scores(path: Path, problems: Problems, systems: Collection[str], segments: int,
                    allow_none: bool) -> Iterator[tuple[int, str, int, float | None]]:
    """A segment-level score file as (line, system, segment index, score), one at a time; each system's block
    must have one line per segment of the test set (reported once the file is read)."""
    counts: dict[str, tuple[int, int]] = {}
    for line, system, value in _score_file(path, problems, systems, allow_none):
        first, count = counts.get(system, (line, 0))
        counts[system] = (first, count + 1)
        yield line, system, count, value
    for system, (first, count) in counts.items():
        if count != segments:
            problems.error(first, f"system {system!r} has {count} segment scores (its first at this line) but the "
                                  f"test set has {segments} segments", file=str(path))


def _human_segments(path: Path, problems: Problems, system_names: dict[str, str], segments: int,
                    unscored: list[int]) -> Iterator[SegmentScore]:
    """The segment-level human scores of one NAME as the suite's items ``1..N`` take them, one at a time;
    ``unscored`` gets how many ``None`` lines (no score) were skipped."""
    for line, system, index, value in _segment_scores(path, problems, system_names, segments, allow_none=True):
        if value is None:
            unscored[0] += 1
        else:
            yield SegmentScore(system_names[system], str(index + 1), value, None, None, line)


def _score_file(path: Path, problems: Problems, systems: Collection[str],
                allow_none: bool) -> Iterator[tuple[int, str, float | None]]:
    """``SYSNAME SCORE`` lines as mt-metrics-eval's ``ReadScoreFile`` reads them: (line, system, score) in
    order."""
    for number, line in enumerate(_lines(path, problems) or [], start=1):
        fields = line.split()
        if len(fields) != 2:
            problems.error(number, f"expected SYSNAME SCORE, found {len(fields)} fields", file=str(path))
            continue
        system, text = fields
        if system not in systems:
            problems.error(number, f"system {system!r} has no output file (system-outputs/)", file=str(path))
            continue
        if text == "None" and allow_none:
            yield number, system, None
            continue
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            problems.error(number, f"score {text!r} is not a finite number", file=str(path))
            continue
        yield number, system, value


_METRIC_ROWS = Table("tsqe_mtme_rows", MetaData(), Column("line", Integer, primary_key=True),
                     Column("system_id", Integer), Column("item_id", Integer), Column("score", Float),
                     prefixes=["TEMPORARY"])
"""One metric's segment scores with their system and item, a chunk at a time; joined to the system outputs for
their outputs (an output several systems produced has several)."""
_METRIC_SCORES = Table("tsqe_mtme_scores", MetaData(), Column("output_id", Integer, primary_key=True),
                       Column("score", Float), prefixes=["TEMPORARY"])
"""The score of each distinct output, merged into the QE system (``merge_score_table``)."""


def _write_metric(session: Session, metric: str, path: Path, found: MtmeFolder, written: WrittenTestSet,
                  lower_is_better: frozenset[str]) -> int:
    """The metric's segment scores merged into its QE system; how many outputs several systems produced and got
    different scores. The file was checked by ``read_mtme`` and is read again here, line by line, into temporary
    tables: no list of every score, nor a dictionary of every output's scores, is held."""
    connection = session.connection()
    for table in (_METRIC_ROWS, _METRIC_SCORES):
        table.create(connection)
    problems = Problems(str(path))
    system_ids = {system: written.system_ids[name] for system, name in found.system_names.items()}
    chunk: list[dict[str, object]] = []
    for line, system, index, value in _segment_scores(path, problems, system_ids, len(found.test_set.sources),
                                                      allow_none=False):
        chunk.append({"line": line, "system_id": system_ids[system], "item_id": written.item_ids[index],
                      "score": value})
        if len(chunk) == WRITE_CHUNK:
            connection.execute(insert(_METRIC_ROWS), chunk)
            chunk = []
    if chunk:
        connection.execute(insert(_METRIC_ROWS), chunk)
    problems.raise_if_any()  # the file changed since it was checked
    output = SystemOutput.output_id
    low, high = func.min(_METRIC_ROWS.c.score), func.max(_METRIC_ROWS.c.score)
    by_output = select(output).select_from(_METRIC_ROWS).join(
        SystemOutput, (SystemOutput.system_id == _METRIC_ROWS.c.system_id)
        & (SystemOutput.item_id == _METRIC_ROWS.c.item_id)).group_by(output)
    # an output's one score when its systems agree (a mean of equal numbers can differ from them in the last digit,
    # ``(0.1 + 0.1 + 0.1) / 3``, and the export would not give the file back), else their mean
    connection.execute(insert(_METRIC_SCORES).from_select(
        ["output_id", "score"], by_output.add_columns(case((low == high, low), else_=func.avg(_METRIC_ROWS.c.score)))))
    disagreeing = connection.execute(select(func.count()).select_from(by_output.having(low != high).subquery())
                                     ).scalar_one()
    base, refs = metric.rsplit("-", 1)
    merge_score_table(session, name=metric, kind="imported", higher_is_better=base not in lower_is_better,
                      scores=_METRIC_SCORES, meta={"imported_from": SOURCE_OF_SCORES, "metric": base, "refs": refs})
    for table in (_METRIC_ROWS, _METRIC_SCORES):
        table.drop(connection)
    return int(disagreeing)


@dataclass(frozen=True)
class MtmeImport:
    """What ``import_mtme`` wrote (``counts``), which human scores it took, and what it left."""

    suite: str
    counts: dict[str, int]
    human: str | None
    left: list[str]
    warnings: list[Problem]


def import_mtme(db: Database, root: str | os.PathLike[str], *, lp: str, name: str | None = None,
                human: str | None = None, lower_is_better: frozenset[str] = frozenset(),
                task: TaskState | None = None) -> MtmeImport:
    """Create the suite ``name`` (default ``TESTSET.LP``, e.g. ``wmt22.de-en``) from an mt-metrics-eval folder,
    with its human scores (``human``: which, default the most trusted present) and its segment-level metric scores
    as QE systems (those named in ``lower_is_better`` by their base NAME are stored lower-is-better)."""
    task = progress_of(task)
    root = Path(root)
    problems = Problems(str(root))
    name = given_name(name or f"{root.resolve().name}.{lp}", NameKind.SUITE, problems)
    task.progress(0, 2, f"reading {root.name} {lp}")
    found = read_mtme(root, lp, problems)
    chosen = _chosen_human(found, human, problems)
    segment_path = found.human_segments.get(chosen) if chosen is not None else None
    if segment_path is not None:  # checked before anything is written, read again as it is written
        for _ in _human_segments(segment_path, problems, found.system_names, len(found.test_set.sources), [0]):
            pass
    problems.raise_if_any()
    task.progress(1, 2, f"writing {root.name} {lp}")
    with db.transaction() as session:
        written = add_test_set(session, name, found.test_set)
        counts = dict(written.counts)
        kind = KINDS.get(chosen or "", HumanScoreKind.Z)
        if chosen is not None:
            scores = found.human[chosen]
            session.execute(insert(HumanScore), [{"system_id": written.system_ids[system], "kind": kind, "lp": lp,
                                                  "score": score} for system, score in scores.items()])
            counts["human_scores"] = len(scores)
            record_kind(session, written.suite_id, kind, f"{SOURCE_OF_SCORES} {chosen}")
        if segment_path is not None:
            unscored = [0]
            segment_problems = problems.for_file(str(segment_path))
            rows = _human_segments(segment_path, segment_problems, found.system_names,
                                   len(found.test_set.sources), unscored)
            first = next(rows, None)
            counts["human_segment_scores"] = write_segment_scores(
                session, written.suite_id, name, written.system_ids, SystemMatch(written.system_ids, {}),
                itertools.chain([first], rows), segment_path, segment_problems, kind) if first is not None else 0
            for _ in rows:  # every None line counted when no line has a score
                pass
            counts["human_segments_without_score"] = unscored[0]
        disagreeing = sum(_write_metric(session, metric, path, found, written, lower_is_better)
                          for metric, path in found.metrics.items())
        counts["metrics"] = len(found.metrics)
        counts["outputs_scored_differently"] = disagreeing
        task.progress(2, 2, "imported")  # before the commit: a cancel here still changes nothing
    left = found.left + [f"human {other} (sys)" for other in found.human if other != chosen] + [
        f"human {other} (seg)" for other in found.human_segments if other != chosen]
    return MtmeImport(name, counts, chosen, left, problems.warnings)


def _chosen_human(found: MtmeFolder, human: str | None, problems: Problems) -> str | None:
    if human is not None:
        if human not in found.human:
            problems.error(None, f"no system-level human scores named {human!r} (there are: "
                                 f"{', '.join(sorted(found.human)) or 'none'})")
        return human
    return next((name for name in (*HUMAN_PREFERENCE, *sorted(found.human)) if name in found.human), None)
