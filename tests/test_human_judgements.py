"""Importing human judgements (system scores in both WMT layouts, segment scores, WMT's significance files) and
reading them back (filters.human_judgements)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from migration_helpers import at_revision
from sqlalchemy import func, select, text
from suite_builder import build_suite
from workbooks import write_workbook

from filters.human_judgements import read_human_judgements
from store import Database, open_database
from store.models import HumanScore, HumanSegmentScore, HumanSignificance, Item, System
from suite.errors import InputFileError, TsqeError
from suite.importers.human_scores import import_human_scores, parse_renames
from suite.importers.wmt import import_wmt

SEGMENTS = """SYS SID RAW.SCR Z.SCR N
A.1 1 80 0.5 2
A.1 2 70 0.1 1
B.2 1 60 -0.2 3
B.2 3 65 0.0 1
HUMAN.0 1 90 0.9 1
"""
SIGNIFICANCE = """ A.1 B.2 HUMAN.0
A.1 - 0.2* -0.3
B.2 -0.2 - -0.5
HUMAN.0 0.3 0.5** -
"""


@pytest.fixture
def suite(db: Database) -> Database:
    build_suite(db, "nt", [["r1"], ["r2"], ["r3"]], {"A": ["a1", "a2", "a3"], "B": ["b1", "b2", "b3"],
                                                      "C": ["c1", "c2", "c3"]})
    return db


def stored(db: Database) -> dict[str, Any]:
    with db.session() as session:
        return {
            "system": dict(session.execute(select(System.name, HumanScore.score).join(HumanScore)).all()),
            "segments": sorted(session.execute(
                select(System.name, Item.external_id, HumanSegmentScore.score, HumanSegmentScore.raw,
                       HumanSegmentScore.judgements)
                .join(System, System.id == HumanSegmentScore.system_id)
                .join(Item, Item.id == HumanSegmentScore.item_id)).all()),
            "significance": session.scalar(select(func.count()).select_from(HumanSignificance)),
        }


def test_wmt_segment_scores_and_significance_match_wmt_names_and_warn_about_the_rest(suite: Database,
                                                                                     tmp_path: Path) -> None:
    (tmp_path / "seg.csv").write_text(SEGMENTS)
    (tmp_path / "sig.csv").write_text(SIGNIFICANCE)
    result = import_human_scores(suite, segments=tmp_path / "seg.csv", significance=tmp_path / "sig.csv")
    assert result.counts == {"segment_scores": 4, "significance_pairs": 2}
    warnings = [str(w) for w in result.warnings]
    assert any(w.endswith("seg.csv:6: system 'HUMAN.0' is not in suite 'nt'; its segment scores are ignored")
               for w in warnings)
    assert any("suite system 'C' has no segment scores in this file" in w for w in warnings)
    assert stored(suite) == {"system": {}, "significance": 2, "segments": [
        ("A", "1", 0.5, 80.0, 2), ("A", "2", 0.1, 70.0, 1), ("B", "1", -0.2, 60.0, 3), ("B", "3", 0.0, 65.0, 1)]}
    human = read_human_judgements(suite, "nt")
    # no system scores imported: the means of the segment scores stand for them
    assert human.scores == pytest.approx({"A": 0.3, "B": -0.1})
    assert human.test is not None and human.test.method == "imported"
    assert human.test.separates("A", "B") and not human.test.separates("B", "A")
    with suite.session() as session:
        item = dict(session.execute(select(Item.external_id, Item.id)).all())
    assert human.segment_matrix([item["1"], item["2"], item["3"]], ["A", "B"]) == pytest.approx(
        np.array([[0.5, -0.2], [0.1, np.nan], [np.nan, 0.0]]), nan_ok=True)
    assert human.segment_matrix([item["1"]], ["A", "C"]) is None
    computed = read_human_judgements(suite, "nt", test="wilcoxon")
    assert computed.test is not None and computed.test.method == "wilcoxon"


def test_a_plain_table_of_segment_scores_and_renames(suite: Database, tmp_path: Path) -> None:
    (tmp_path / "seg.tsv").write_text("system\titem_id\tscore\nfirst\t1\t0.7\nfirst\t2\t0.2\nB\t3\t0.4\n")
    result = import_human_scores(suite, segments=tmp_path / "seg.tsv", renames=parse_renames(["first=A"]))
    assert result.counts == {"segment_scores": 3}
    assert stored(suite)["segments"] == [("A", "1", 0.7, None, None), ("A", "2", 0.2, None, None),
                                         ("B", "3", 0.4, None, None)]
    human = read_human_judgements(suite, "nt")
    assert human.test is not None and human.test.method == "wilcoxon"  # no imported results: from the segments
    with pytest.raises(TsqeError, match="suite 'nt' has no imported significance results"):
        read_human_judgements(suite, "nt", test="imported")
    with pytest.raises(TsqeError, match="renamed to 'Z', which suite 'nt' has no system called"):
        import_human_scores(suite, segments=tmp_path / "seg.tsv", renames={"first": "Z"})
    for spec in ("A", "=B", "A="):
        with pytest.raises(TsqeError, match="FILE_NAME=SUITE_NAME"):
            parse_renames([spec])


def test_a_workbook_of_segment_scores(suite: Database, tmp_path: Path) -> None:
    """A workbook is a table too (it was read as text first, which no zip file is, and refused as not UTF-8)."""
    path = write_workbook(tmp_path / "seg.xlsx", [["system", "item_id", "score"], ["A", "1", "0.7"],
                                                  ["B", "3", "-0.4"]])
    assert import_human_scores(suite, segments=path).counts == {"segment_scores": 2}
    assert stored(suite)["segments"] == [("A", "1", 0.7, None, None), ("B", "3", -0.4, None, None)]


def test_wmt21_system_scores_take_the_z_score(suite: Database, tmp_path: Path) -> None:
    path = tmp_path / "ad-sys-scores-de-en.csv"
    path.write_text("RAW.SCR Z.SCR N SYS N.ALL \n79.4 0.113 959 A.15 1270 \n69.9 -0.035 948 B.2 1343 \n")
    result = import_human_scores(suite, path)
    assert result.counts == {"human_scores": 2}
    assert stored(suite)["system"] == {"A": 0.113, "B": -0.035}


@pytest.mark.parametrize("name, text, message", [
    ("seg.csv", SEGMENTS + "A.1 1 80 0.3 1\n", ":7: system 'A.1' already has a score for item '1' at line 2"),
    ("seg.csv", SEGMENTS.replace("B.2 3 65", "B.2 9 65"), ":5: item '9' is not in suite 'nt'"),
    ("seg.csv", SEGMENTS.replace("0.1 1", "0,1 1"), ":3: Z.SCR '0,1' is not a number"),
    ("seg.csv", SEGMENTS.replace("60 -0.2 3", "60 -0.2"), ":4: expected five fields"),
    ("seg.csv", SEGMENTS.replace("A.1 2", "A.1 x"), ":3: SID 'x' is not a segment number"),
    ("seg.tsv", "system\titem_id\tscore\nA\t1\tnan\n", ":2: score 'nan' is not a finite number"),
    ("seg.tsv", "system\titem\tscore\nA\t1\t1\n", ":1: unknown column(s) 'item'"),
    ("sig.csv", SIGNIFICANCE.replace("0.2* -0.3", "0.2*"), ":2: expected 3 cells after the system name, found 2"),
    ("sig.csv", SIGNIFICANCE.replace("A.1 - 0.2*", "A.1 0 0.2*"), "against itself should be '-', not '0'"),
    ("sig.csv", SIGNIFICANCE.replace("0.5**", "0.5****"), ":4: '0.5****' has 4 stars"),
    ("sig.csv", SIGNIFICANCE.replace("0.2*", "x*"), ":2: the difference 'x*' is not a number"),
    ("sig.csv", "\n".join(SIGNIFICANCE.splitlines()[:3]) + "\n", "no row for system(s) HUMAN.0"),
])
def test_bad_files_are_refused_with_their_line_and_nothing_is_written(suite: Database, tmp_path: Path, name: str,
                                                                     text: str, message: str) -> None:
    good = tmp_path / "system.csv"
    good.write_text("RAW.SCR Z.SCR N SYS N.ALL\n70 0.1 10 A 10\n")
    path = tmp_path / name
    path.write_text(text)
    kind = "significance" if name.startswith("sig") else "segments"
    with pytest.raises(InputFileError) as error:
        import_human_scores(suite, good, **{kind: path})  # type: ignore[arg-type]
    assert message in str(error.value)
    assert stored(suite) == {"system": {}, "segments": [], "significance": 0}


@pytest.mark.shared
def test_newstest2021_imports_with_segment_scores_and_wmts_significance(db: Database, shared_data: Path) -> None:
    folder = shared_data / "wmt21-news-systems" / "newstest2021-de-en"
    imported = import_wmt(db, src=folder / "txt" / "sources" / "newstest2021.de-en.src.de",
                          refs=sorted((folder / "txt" / "references").iterdir()),
                          systems=[folder / "txt" / "system-outputs"], name="newstest2021")
    assert imported.counts["systems"] == 19 and imported.counts["references"] == 2000
    human = folder / "humaneval"
    result = import_human_scores(db, human / "ad-sys-scores-de-en.csv", segments=human / "ad-seg-scores-de-en.csv",
                                 significance=human / "ad-DA-diff-wilcoxon-rs-deen.csv",
                                 renames={"Nemo.7": "NVIDIA-NeMo"})
    assert result.counts == {"human_scores": 19, "segment_scores": 18409, "significance_pairs": 342}
    assert len(result.warnings) == 3 and all("system 'HUMAN.0' is not in suite" in str(w) for w in result.warnings)
    judgements = read_human_judgements(db, "newstest2021")
    wilcoxon = read_human_judgements(db, "newstest2021", test="wilcoxon")
    assert judgements.test is not None and wilcoxon.test is not None
    systems = sorted(judgements.scores)
    # the stored segment z-scores average to WMT's official system scores, and Wilcoxon finds WMT's stars
    for system in systems:
        assert np.mean(list(judgements.segments[system].values())) == pytest.approx(judgements.scores[system])
    for a in systems:
        for b in systems:
            if a != b:
                assert judgements.test.better(a, b) == wilcoxon.test.better(a, b), (a, b)


def test_removing_an_item_keeps_its_segment_scores_for_the_restore(suite: Database, tmp_path: Path) -> None:
    from suite.editing.items import ItemSnapshot, find_item, remove_item, restore_removed_item

    (tmp_path / "seg.csv").write_text(SEGMENTS)
    import_human_scores(suite, segments=tmp_path / "seg.csv")
    snapshot = remove_item(suite, find_item(suite, "1", "nt"), author="ada")
    assert [(h.system, h.score, h.raw, h.judgements) for h in snapshot.human_scores] == [
        ("A", 0.5, 80.0, 2), ("B", -0.2, 60.0, 3)]
    assert [row[:2] for row in stored(suite)["segments"]] == [("A", "2"), ("B", "3")]
    restore_removed_item(suite, "1", "nt", author="bob")
    assert stored(suite)["segments"] == [
        ("A", "1", 0.5, 80.0, 2), ("A", "2", 0.1, 70.0, 1), ("B", "1", -0.2, 60.0, 3), ("B", "3", 0.0, 65.0, 1)]
    # a snapshot written before segment scores existed has none, and restores
    old = snapshot.to_dict()
    del old["human_scores"]
    assert ItemSnapshot.from_dict(old).human_scores == ()


def test_migration_0009_adds_the_tables_after_0011_and_keeps_the_system_scores(tmp_path: Path) -> None:
    """0009 follows hostile's 0011: a database at 0011 with system-level human scores opens with them kept and
    the new tables ready for segment scores and significance results."""
    path = tmp_path / "old.sqlite"
    with at_revision(f"sqlite:///{path}", "0011") as conn:
        conn.execute(text("INSERT INTO systems (id, suite_id, name) VALUES (1, 1, 'A'), (2, 1, 'B')"))
        conn.execute(text("INSERT INTO items (id, suite_id, external_id, position, source) VALUES (1, 1, '1', 0, 's')"))
        conn.execute(text("INSERT INTO human_scores (system_id, lp, score) VALUES (1, 'de-en', 0.25)"))
    database = open_database(path)
    try:
        with database.transaction() as session:
            session.add(HumanSegmentScore(system_id=1, item_id=1, kind="z", score=0.5, raw=70.0, judgements=2))
            session.add(HumanSignificance(system_id=1, other_id=2, kind="z", difference=0.5, p_below=0.05,
                                          source="f.csv"))
        assert stored(database) == {"system": {"A": 0.25}, "segments": [("A", "1", 0.5, 70.0, 2)],
                                    "significance": 1}
    finally:
        database.close()
