"""Official human judgements of a suite's MT systems: system-level scores, segment-level scores and WMT's
pairwise significance results, imported together in one transaction (``tsqe import human-scores``).

System-level scores come in two layouts, told apart by their header: WMT19's ``DA-syslevel.csv``
(space-separated ``LP HUMAN SYSTEM``; one file holds every language pair of a year, so only the lines of the
chosen pair are imported, while the whole file is still checked, because a malformed line elsewhere means the
file is not what it claims to be) and WMT21's ``ad-sys-scores-*.csv`` (``RAW.SCR Z.SCR N SYS N.ALL``, one pair,
the z-score imported). Segment scores and significance files are read by :mod:`suite.importers.human_segments`.

WMT names systems ``NAME.ID`` in its human evaluation (``UF.15``) while the newer system-output packages call
them ``NAME`` (``newstest2021.de-en.hyp.UF.en``): a file's name that is not a suite system matches the suite
system it names without WMT's numeric ``.ID``. Names that differ otherwise (WMT21's ``Nemo.7`` is
``NVIDIA-NeMo``) are given as renames ``FILE_NAME=SUITE_NAME``. Systems of a file that are not in the suite
(WMT's ``HUMAN.0``, a human translation judged as a system) are warnings; their lines are not imported.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import (
    Column,
    Connection,
    Float,
    Integer,
    MetaData,
    Table,
    Text,
    delete,
    func,
    insert,
    literal,
    or_,
    select,
)
from sqlalchemy.orm import Session

from store import Database
from store.domain import HumanScoreKind
from store.models import HumanScore, HumanScoreSet, HumanSegmentScore, HumanSignificance, Item, System, nfc
from suite.errors import TsqeError
from suite.importers.human_segments import (
    SegmentScore,
    SignificanceCell,
    iter_segment_scores,
    numbers_campaign_segments,
    read_score_lines,
    read_significance,
)
from suite.importers.result import ImportResult, Problems
from suite.suites import find_suite, language_pair
from suite.tasks import TaskState, progress_of

HEADER = ("LP", "HUMAN", "SYSTEM")
WMT21_HEADER = ("RAW.SCR", "Z.SCR", "N", "SYS", "N.ALL")


def parse_renames(specs: Iterable[str]) -> dict[str, str]:
    """``FILE_NAME=SUITE_NAME`` pairs as a mapping; a malformed or repeated one is an error."""
    renames: dict[str, str] = {}
    for spec in specs:
        name, equals, target = nfc(spec).partition("=")
        if not equals or not name.strip() or not target.strip():
            raise TsqeError(f"a rename is FILE_NAME=SUITE_NAME (e.g. Nemo.7=NVIDIA-NeMo), not {spec!r}")
        if name.strip() in renames:
            raise TsqeError(f"{name.strip()!r} is renamed twice")
        renames[name.strip()] = target.strip()
    return renames


def read_human_scores(path: Path, lp: str | None, problems: Problems | None = None
                      ) -> dict[str, tuple[float, int]]:
    """System -> (score, line) in either layout (``lp`` chooses the lines of WMT19's, which needs it); the whole
    file is checked and any problem raises ``InputFileError``."""
    problems = problems if problems is not None else Problems(str(path))
    lines = read_score_lines(path, problems)
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.split()]
    header = tuple(numbered[0][1].split()) if numbered else ()
    scores: dict[str, tuple[float, int]] = {}
    if header == WMT21_HEADER:
        for number, line in numbered[1:]:
            fields = line.split()
            if len(fields) != len(WMT21_HEADER):
                problems.error(number, f"expected five fields ({' '.join(WMT21_HEADER)}), found {len(fields)}")
                continue
            _add(scores, fields[3], fields[1], "Z.SCR", number, problems)
    elif header == HEADER:
        if lp is None:
            raise TsqeError(f"{path}: the file holds the scores of several language pairs: name the pair to import")
        for number, line in numbered[1:]:
            fields = line.split(None, 2)
            if len(fields) != 3:
                problems.error(number, f"expected three fields ({' '.join(HEADER)}), found {len(fields)}")
                continue
            pair, value, system = fields
            _add(scores, system.strip(), value, "HUMAN", number, problems, keep=pair == lp, lp=lp)
    elif numbered:
        problems.error(numbered[0][0], f"expected the header line {' '.join(HEADER)!r}, found "
                                       f"{numbered[0][1].strip()!r} (WMT19's DA-syslevel.csv; WMT21's system scores "
                                       f"have the header {' '.join(WMT21_HEADER)!r})")
    problems.raise_if_any()
    if not scores:
        raise TsqeError(f"{path}: no scores" + (f" for the language pair {lp!r}" if header == HEADER else ""))
    return scores


def _add(scores: dict[str, tuple[float, int]], system: str, value: str, what: str, number: int,
         problems: Problems, *, keep: bool = True, lp: str | None = None) -> None:
    try:
        score = float(value)
    except ValueError:
        problems.error(number, f"{what} {value!r} is not a number")
        return
    if not math.isfinite(score):
        problems.error(number, f"{what} {value!r} is not a finite number")
        return
    if not keep:
        return
    if system in scores:
        problems.error(number, f"system {system!r} already has a{f' {lp}' if lp else ''} score at line "
                               f"{scores[system][1]}")
        return
    scores[system] = (score, number)


@dataclass(frozen=True)
class SystemMatch:
    """How the names of one file map to the suite's systems."""

    systems: Mapping[str, int]
    renames: Mapping[str, str]

    def __call__(self, name: str) -> int | None:
        """The suite system a file's name means, or None."""
        name = self.renames.get(name, name)
        if name in self.systems:
            return self.systems[name]
        base, dot, number = name.rpartition(".")
        return self.systems.get(base) if dot and number.isdigit() else None


def import_human_scores(db: Database, path: Path | None = None, *, lp: str | None = None,
                        segments: Path | None = None, significance: Path | None = None,
                        renames: Mapping[str, str] | None = None, suite_name: str | None = None,
                        kind: HumanScoreKind = HumanScoreKind.Z, task: TaskState | None = None) -> ImportResult:
    """Import system scores (``path``), segment scores and a significance file for the suite's systems in one
    transaction, all of ``kind``: each replaces what those systems had of that kind of score and of that file's
    sort (system, segment, significance); scores of another kind stay beside them. Unmatched names are warnings.

    ``lp`` chooses the lines of WMT19's multi-pair file; without it the suite's language pair is used.
    """
    task = progress_of(task)
    if path is None and segments is None and significance is None:
        raise TsqeError("nothing to import: give a file of system scores, segment scores or significance results")
    renames = dict(renames or {})
    task.progress(0, 2, "reading human scores")
    read: dict[str, Problems] = {}
    with db.session() as session:
        suite = find_suite(session, suite_name)
        suite_pair = language_pair(suite.source_lang, suite.target_lang)
    system_scores = cells = None
    if path is not None:
        read["system"] = Problems(str(path))
        system_scores = read_human_scores(path, lp or suite_pair, read["system"])
    if segments is not None:
        read["segments"] = Problems(str(segments))
    if significance is not None:
        read["significance"] = Problems(str(significance))
        cells = read_significance(significance, read["significance"])
    if segments is None and "significance" in read:
        read["significance"].raise_if_any()

    task.progress(1, 2, "writing human scores")
    counts: dict[str, int] = {}
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        systems = dict(session.execute(select(System.name, System.id).where(System.suite_id == suite.id)).all())
        unknown = sorted(set(renames.values()) - set(systems))
        if unknown:
            raise TsqeError(f"renamed to {', '.join(map(repr, unknown))}, which suite {suite.name!r} has no system "
                            f"called (its systems: {', '.join(sorted(systems))})")
        match = SystemMatch(systems, renames)
        if system_scores is not None and path is not None:
            if lp is not None and lp != suite_pair:
                read["system"].warn(1, f"importing {lp} scores into suite {suite.name!r}, whose language pair is "
                                       f"{suite_pair}")
            counts["human_scores"] = _write_system_scores(session, suite.name, systems, match, system_scores,
                                                          lp or suite_pair, kind, path, read["system"])
        if segments is not None:  # read as it is written; its problems before the significance file's
            counts["segment_scores"] = write_segment_scores(session, suite.id, suite.name, systems, match,
                                                            iter_segment_scores(segments, read["segments"]),
                                                            segments, read["segments"], kind)
            if "significance" in read:
                read["significance"].raise_if_any()
        if cells is not None and significance is not None:
            counts["significance_pairs"] = _write_significance(session, suite.name, systems, match, cells,
                                                               kind, significance, read["significance"])
        record_kind(session, suite.id, kind, next(p for p in (segments, path, significance) if p is not None).name,
                    aligned=None if segments is None else not numbers_campaign_segments(segments))
        task.progress(2, 2, "human scores imported")  # before the commit: a cancel here still changes nothing
    return ImportResult(counts=counts, warnings=[w for problems in read.values() for w in problems.warnings])


def record_kind(session: Session, suite_id: int, kind: HumanScoreKind, source: str, *,
                aligned: bool | None = None) -> None:
    """That the suite holds ``kind`` (its ``human_score_sets`` row, added with the kind's first scores; the
    writers of human scores call it), and whether segment scores just written can be aligned with the items
    (``numbers_campaign_segments``; None: no segment scores were written)."""
    held = session.get(HumanScoreSet, (suite_id, str(kind)))
    if held is None:
        session.add(HumanScoreSet(suite_id=suite_id, kind=kind, source=source[:400],
                                  segments_aligned=True if aligned is None else aligned))
    elif aligned is not None:
        held.segments_aligned = aligned


def _matched(names: Iterable[tuple[str, int]], match: SystemMatch, suite: str, what: str, path: Path,
             problems: Problems, *, lp: str | None = None) -> dict[str, int]:
    """File name -> suite system id for the names that match; a warning at the first line of each other."""
    names = list(names)
    found: dict[str, int] = {}
    for name, line in names:
        system_id = match(name)
        if system_id is None:
            problems.warn(line, f"system {name!r} is not in suite {suite!r}; its {what} are ignored")
        else:
            found[name] = system_id
    if not found:
        known = sorted({name for name, _ in names})
        pair = f"{lp} " if lp else ""
        raise TsqeError(f"{path}: none of the {len(known)} {pair}systems is a system of suite {suite!r} "
                        f"(file: {', '.join(known)}; suite: {', '.join(sorted(match.systems)) or 'none'})")
    if len(set(found.values())) < len(found):
        twice = sorted(name for name, system in found.items() if list(found.values()).count(system) > 1)
        raise TsqeError(f"{path}: {', '.join(twice)} name the same suite system")
    return found


def _missing(systems: Mapping[str, int], found: Mapping[str, int], what: str, problems: Problems) -> None:
    matched = set(found.values())
    for name, system_id in sorted(systems.items()):
        if system_id not in matched:
            problems.warn(1, f"suite system {name!r} has no {what} in this file")


def _write_system_scores(session: Session, suite: str, systems: Mapping[str, int], match: SystemMatch,
                         scores: Mapping[str, tuple[float, int]], lp: str, kind: HumanScoreKind, path: Path,
                         problems: Problems) -> int:
    found = _matched(((name, line) for name, (_, line) in sorted(scores.items(), key=lambda kv: kv[1][1])),
                     match, suite, "scores", path, problems, lp=lp)
    _missing(systems, found, f"{lp} score", problems)
    session.execute(delete(HumanScore).where(HumanScore.system_id.in_(found.values()), HumanScore.kind == kind))
    session.execute(insert(HumanScore), [{"system_id": found[name], "kind": kind, "lp": lp,
                                          "score": scores[name][0]} for name in found])
    return len(found)


WRITE_CHUNK = 20_000
"""Segment scores inserted by one statement."""

_SEGMENTS = Table("tsqe_segment_rows", MetaData(), Column("line", Integer, primary_key=True),
                  Column("name", Integer), Column("system_id", Integer), Column("item", Text), Column("score", Float),
                  Column("raw", Float), Column("judgements", Integer), prefixes=["TEMPORARY"])
"""Every score read, with its line, the file's system name (by number) and the suite system it means (none: not a
suite system): duplicates, unknown items and the replacement are worked out here by the database, once the file is
read."""


def write_segment_scores(session: Session, suite_id: int, suite: str, systems: Mapping[str, int],
                         match: SystemMatch, scores: Iterable[SegmentScore], path: Path, problems: Problems,
                         kind: HumanScoreKind) -> int:
    """Replace the ``kind`` segment scores of the systems ``scores`` name (``SegmentScore.item_id``: the item's
    external id); the one writer of segment-level human scores from a file (``tsqe import human-scores``,
    ``tsqe import mtme``).

    ``scores`` is consumed once, a chunk at a time, into a temporary table of the caller's transaction: ten million
    scores take the memory of a chunk, not of a list (and of a dictionary of every (system, item) seen). The file's
    problems (``problems``, reported while ``scores`` is read) are raised before anything is replaced."""
    connection = session.connection()
    _SEGMENTS.create(connection)
    first_line: dict[str, int] = {}
    numbers: dict[str, int] = {}
    chunk: list[dict[str, object]] = []
    for score in scores:
        number = numbers.setdefault(score.system, len(numbers))
        first_line.setdefault(score.system, score.line)
        chunk.append({"line": score.line, "name": number, "system_id": match(score.system), "item": score.item_id,
                      "score": score.score, "raw": score.raw, "judgements": score.judgements})
        if len(chunk) == WRITE_CHUNK:
            connection.execute(insert(_SEGMENTS), chunk)
            chunk = []
    if chunk:
        connection.execute(insert(_SEGMENTS), chunk)
    _duplicate_segments(connection, list(numbers), problems)
    if not first_line and not problems.errors:
        problems.error(None, "the file holds no segment scores")
    problems.raise_if_any()
    found = _matched(first_line.items(), match, suite, "segment scores", path, problems)
    _missing(systems, found, "segment scores", problems)
    same_item = (Item.suite_id == suite_id) & (Item.external_id == _SEGMENTS.c.item)
    unknown = connection.execute(select(_SEGMENTS.c.line, _SEGMENTS.c.item).outerjoin(Item, same_item)
                                 .where(_SEGMENTS.c.system_id.is_not(None), Item.id.is_(None))
                                 .order_by(_SEGMENTS.c.line).limit(20))
    for line, item in unknown:
        problems.error(line, f"item {item!r} is not in suite {suite!r}")
    problems.raise_if_any()
    session.execute(delete(HumanSegmentScore).where(HumanSegmentScore.system_id.in_(found.values()),
                                                    HumanSegmentScore.kind == kind))
    kept = select(_SEGMENTS.c.system_id, Item.id, literal(str(kind)), _SEGMENTS.c.score, _SEGMENTS.c.raw,
                  _SEGMENTS.c.judgements).join(Item, same_item).where(_SEGMENTS.c.system_id.is_not(None))
    written = connection.execute(insert(HumanSegmentScore).from_select(
        ["system_id", "item_id", "kind", "score", "raw", "judgements"], kept))
    count = connection.execute(select(func.count()).select_from(kept.subquery())).scalar_one() \
        if written.rowcount is None or written.rowcount < 0 else written.rowcount
    _SEGMENTS.drop(connection)
    return int(count)


def _duplicate_segments(connection: Connection, names: list[str], problems: Problems) -> None:
    """A second score of a system for an item, at its line, with the first's."""
    first = (select(_SEGMENTS.c.name, _SEGMENTS.c.item, func.min(_SEGMENTS.c.line).label("first"))
             .group_by(_SEGMENTS.c.name, _SEGMENTS.c.item).having(func.count() > 1).subquery())
    repeated = (select(_SEGMENTS.c.line, first.c.first, _SEGMENTS.c.name, _SEGMENTS.c.item)
                .join(first, (first.c.name == _SEGMENTS.c.name) & (first.c.item == _SEGMENTS.c.item))
                .where(_SEGMENTS.c.line != first.c.first).order_by(_SEGMENTS.c.line))
    for line, first_line, name, item in connection.execute(repeated):
        problems.error(line, f"system {names[name]!r} already has a score for item {item!r} at line {first_line}")


def _write_significance(session: Session, suite: str, systems: Mapping[str, int], match: SystemMatch,
                        cells: Sequence[SignificanceCell], kind: HumanScoreKind, path: Path,
                        problems: Problems) -> int:
    first_line: dict[str, int] = {}
    for cell in cells:
        first_line.setdefault(cell.system, cell.line)
    found = _matched(first_line.items(), match, suite, "significance results", path, problems)
    _missing(systems, found, "significance results", problems)
    ids = list(found.values())
    session.execute(delete(HumanSignificance).where(or_(HumanSignificance.system_id.in_(ids),
                                                        HumanSignificance.other_id.in_(ids)),
                                                    HumanSignificance.kind == kind))
    rows = [{"system_id": found[c.system], "other_id": found[c.other], "kind": kind, "difference": c.difference,
             "p_below": c.p_below, "source": path.name[:400]}
            for c in cells if c.system in found and c.other in found]
    if rows:
        session.execute(insert(HumanSignificance), rows)
    return len(rows)
