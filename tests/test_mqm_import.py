"""tsqe import mqm: Google's MQM annotation files as a suite with segment MQM scores and error spans."""
from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import snapshot
from sqlalchemy import select

from store import Database
from store.models import HumanErrorSpan, HumanScoreSet, HumanSegmentScore, Item, Reference, System
from suite.errors import TsqeError
from suite.importers.mqm import import_mqm

HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment\n"
ROWS = [
    "sysA\ttalk.1\t1\t1\trater1\tHello \"world\".\tHallo <v>Erde</v>.\tAccuracy/Mistranslation\tMajor\t\n",
    "sysA\ttalk.1\t1\t1\trater1\tHello \"world\".\tHallo Erde<v>.</v>\tFluency/Punctuation\tMinor\t\n",
    "sysB\ttalk.1\t1\t1\trater2\tHello \"world\".\tHallo Welt.\tNo-error\tNo-error\t\n",
    "ref\ttalk.1\t1\t1\trater2\tHello \"world\".\tHallo Welt!\tNo-error\tNo-error\t\n",
    "sysA\ttalk.1\t1\t2\trater1\t<v>Bye</v>.\tTschüss.\tAccuracy/Omission\tMinor\t\n",
    "sysB\ttalk.1\t1\t2\trater2\tBye.\tTschüss.\tNo-error\tNo-error\t\n",
    "ref\ttalk.1\t1\t2\trater2\tBye.\tAuf Wiedersehen.\tNo-error\tNo-error\t\n",
]


def write(tmp_path: Path, rows: list[str]) -> Path:
    path = tmp_path / "mqm_toy_ende.tsv"
    path.write_text(HEADER + "".join(rows), encoding="utf-8")
    return path


def test_a_small_file(db: Database, tmp_path: Path) -> None:
    result = import_mqm(db, write(tmp_path, ROWS), name="toy")
    assert result.counts["items"] == 2 and result.counts["systems"] == 2
    with db.session() as session:
        assert set(session.scalars(select(System.name))) == {"sysA", "sysB"}  # ref is the reference, no system
        assert set(session.scalars(select(Reference.text))) == {"Hallo Welt!", "Auf Wiedersehen."}
        assert session.scalars(select(Item.source).order_by(Item.position)).all() == ['Hello "world".', "Bye."]
        scores = dict(session.execute(select(System.name, HumanSegmentScore.score).select_from(HumanSegmentScore)
                                      .join(System, System.id == HumanSegmentScore.system_id)
                                      .join(Item, Item.id == HumanSegmentScore.item_id)
                                      .where(Item.external_id == "1")).all())
        assert scores == {"sysA": pytest.approx(-5.1), "sysB": 0.0}
        spans = session.execute(select(HumanErrorSpan.in_source, HumanErrorSpan.start, HumanErrorSpan.end,
                                       HumanErrorSpan.severity, HumanErrorSpan.weight)
                                .order_by(HumanErrorSpan.id)).all()
        assert [tuple(s) for s in spans] == [(False, 6, 10, "major", 5.0), (False, 10, 11, "minor", 0.1),
                                             (True, 0, 3, "minor", 1.0)]
        assert session.scalar(select(HumanScoreSet.kind)) == "mqm"


def test_bad_rows_are_all_reported_and_nothing_is_written(db: Database, tmp_path: Path) -> None:
    bad = [*ROWS, "sysA\ttalk.1\t1\tx\trater1\ta\tb\tOther\tMinor\t\n",
           "sysB\ttalk.1\t1\t2\trater2\tBye.\tTschüss.\tOther\tCritical\t\n", "too\tfew\n"]
    before = snapshot(db)
    with pytest.raises(TsqeError) as raised:
        import_mqm(db, write(tmp_path, bad), name="toy")
    message = str(raised.value)
    assert ":9:" in message and "seg_id 'x'" in message
    assert ":10:" in message and "unknown severity 'Critical'" in message
    assert ":11:" in message and "expected 10 tab-separated fields" in message
    assert snapshot(db) == before
    with pytest.raises(TsqeError, match="no system named 'human'"):
        import_mqm(db, write(tmp_path, ROWS), name="toy", reference_system="human")


@pytest.mark.shared
def test_ted_en_de_scores_equal_the_published_segment_scores(db: Database, shared_data: Path) -> None:
    folder = shared_data / "wmt-mqm-human-evaluation" / "ted" / "ende"
    import_mqm(db, folder / "mqm_ted_ende.tsv", name="ted")
    published = {}
    for line in (folder / "mqm_ted_ende.avg_seg_scores.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        system, rest = line.split("\t")
        score, segment = rest.split(" ")
        if score != "None" and system != "ref-A":
            published[(system, segment)] = float(score)
    with db.session() as session:
        stored = {(system, item): score for system, item, score in session.execute(
            select(System.name, Item.external_id, HumanSegmentScore.score).select_from(HumanSegmentScore)
            .join(System, System.id == HumanSegmentScore.system_id).join(Item, Item.id == HumanSegmentScore.item_id))}
        source = session.scalar(select(Item.source).where(Item.external_id == "1"))
        assert source is not None and source.startswith("I want to ask you")
    assert len(stored) == 13 * 529
    assert stored.keys() == published.keys()
    assert all(stored[key] == pytest.approx(published[key], abs=1e-6) for key in stored)


def test_a_nul_and_an_overlong_category_are_refused_with_their_lines(db: Database, tmp_path: Path) -> None:
    """A NUL was stored (PostgreSQL cannot hold one; tsqe's own export could not be read back) and a 201-character
    category ended in PostgreSQL's error at the write: both are the file's lines to mend, and nothing is written."""
    bad = [*ROWS, "sysA\ttalk.1\t1\t3\trater1\tYes.\tJa\x00.\tNo-error\tNo-error\t\n",
           f"sysB\ttalk.1\t1\t2\trater2\tBye.\tTschüss.\t{'x' * 201}\tMinor\t\n"]
    before = snapshot(db)
    with pytest.raises(TsqeError) as raised:
        import_mqm(db, write(tmp_path, bad), name="toy")
    message = str(raised.value)
    assert ":9:" in message and "a NUL character" in message
    assert snapshot(db) == before
    with pytest.raises(TsqeError, match=r":9: the category has 201 characters; tsqe keeps at most 200"):
        import_mqm(db, write(tmp_path, [*ROWS, bad[-1]]), name="toy")
    assert snapshot(db) == before


def test_a_line_separator_inside_a_target_is_text(db: Database, tmp_path: Path) -> None:
    """Lines end at a newline only: ``splitlines`` also split at U+2028, which MT outputs hold, and refused the
    row's halves as rows of too few fields."""
    rows = [*ROWS[:3], "ref\ttalk.1\t1\t1\trater2\tHello \"world\".\tHallo\u2028Welt!\tNo-error\tNo-error\t\n"]
    import_mqm(db, write(tmp_path, rows), name="toy")
    with db.session() as session:
        assert session.scalar(select(Reference.text)) == "Hallo\u2028Welt!"
