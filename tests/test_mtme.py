"""``tsqe import mtme`` and ``tsqe export mtme``: google-research/mt-metrics-eval's layout in and out."""
from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import snapshot
from sqlalchemy import select

from store import Database
from store.models import HumanScore, Item, Output, System
from suite.errors import InputFileError, TsqeError
from suite.importers.mtme import import_mtme
from suite.qe_scores import read_qe_scores

SOURCES = ["Das ist gut.", "Ein Haus.", "Der Hund bellt.", "Ende gut, alles gut."]
FILES = {
    "sources/de-en.txt": SOURCES,
    "documents/de-en.docs": ["news doc1", "news doc1", "news doc2", "social post7"],
    "references/de-en.refA.txt": ["That is good.", "A house.", "The dog barks.", "All's well that ends well."],
    "references/de-en.refB.txt": ["This is good.", "One house.", "The dog is barking.", "All is well."],
    "system-outputs/de-en/sysA.txt": ["This is good.", "A house.", "The dog barks.", "End good, all good."],
    "system-outputs/de-en/sysB.txt": ["That is good.", "A house.", "The dog is barking.", "All's well."],
    "system-outputs/de-en/refB.txt": ["This is good.", "One house.", "The dog is barking.", "All is well."],
    "human-scores/de-en.wmt-z.sys.score": ["sysA -0.25", "sysB 0.5", "refB 0.75"],
    "human-scores/de-en.mqm.sys.score": ["sysA -1.5", "sysB -0.5", "refB None"],
    "human-scores/de-en.wmt-z.seg.score": [f"{s} 0.1" for s in ("sysA", "sysB", "refB") for _ in range(4)],
    "metric-scores/de-en/BLEU-refA.sys.score": ["sysA 40.1", "sysB 44.2", "refB 30.5"],
    "metric-scores/de-en/BLEU-refA.seg.score": [
        "sysA 50.0", "sysA 100.0", "sysA 100.0", "sysA 10.0", "sysB 100.0", "sysB 100.0", "sysB 20.0",
        "sysB 30.0", "refB 50.0", "refB 15.0", "refB 25.0", "refB 5.0"],
    "metric-scores/de-en/COMET-22-src.seg.score": [
        "sysA 0.8", "sysA 0.9", "sysA 0.95", "sysA 0.2", "sysB 0.85", "sysB 0.7", "sysB 0.6", "sysB 0.5",
        "refB 0.75", "refB 0.6", "refB 0.65", "refB 0.4"],
}


def mtme_folder(root: Path, files: dict[str, list[str]] = FILES) -> Path:
    for name, lines in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return root


def test_an_mtme_folder_is_a_suite_with_documents_references_human_and_metric_scores(db: Database,
                                                                                     tmp_path: Path) -> None:
    result = import_mtme(db, mtme_folder(tmp_path / "wmt99"), lp="de-en")
    assert result.suite == "wmt99.de-en" and result.human == "mqm"
    assert result.counts == {"items": 4, "references": 8, "systems": 3, "system_outputs": 12, "distinct_outputs": 9,
                             "human_scores": 2, "metrics": 2, "outputs_scored_differently": 4}
    assert sorted(result.left) == ["human wmt-z (seg)", "human wmt-z (sys)", "metric BLEU-refA (sys)"]
    with db.session() as session:
        places = session.execute(select(Item.external_id, Item.source, Item.phenomenon_id)
                                 .order_by(Item.position)).all()
        assert [(i, s) for i, s, _ in places] == [(str(n + 1), text) for n, text in enumerate(SOURCES)]
        assert places[0][2] == places[1][2] != places[2][2]
        human = dict(session.execute(select(System.name, HumanScore.score).join(HumanScore)).all())
        assert human == {"sysA": -1.5, "sysB": -0.5}
    scores = {s.name: s for s in read_qe_scores(db)}
    assert set(scores) == {"BLEU-refA", "COMET-22-src"}
    with db.session() as session:
        texts = dict(session.execute(select(Output.id, Output.text)).all())
    bleu = {texts[output]: score for output, score in scores["BLEU-refA"].by_output().items()}
    assert bleu == {"This is good.": 50.0, "That is good.": 100.0, "A house.": 100.0, "One house.": 15.0,
                    "The dog barks.": 100.0, "The dog is barking.": 22.5,  # sysB 20, refB 25: their mean
                    "End good, all good.": 10.0, "All's well.": 30.0, "All is well.": 5.0}
    assert scores["BLEU-refA"].higher_is_better and scores["COMET-22-src"].kind == "imported"


def test_a_broken_folder_is_refused_and_changes_nothing(db: Database, tmp_path: Path) -> None:
    files = {**FILES, "system-outputs/de-en/sysB.txt": FILES["system-outputs/de-en/sysB.txt"][:3],
             "metric-scores/de-en/COMET-22-src.seg.score": ["sysZ 0.1"]}
    root = mtme_folder(tmp_path / "wmt99", files)
    before = snapshot(db)
    with pytest.raises(InputFileError) as excinfo:
        import_mtme(db, root, lp="de-en")
    assert [line.split(": ", 1)[1] for line in str(excinfo.value).split("\n")] == [
        "has 3 lines but sources/de-en.txt has 4", "system 'sysZ' has no output file (system-outputs/)"]
    assert snapshot(db) == before
    with pytest.raises(TsqeError, match="no sources/en-de.txt"):
        import_mtme(db, root, lp="en-de")
    with pytest.raises(InputFileError, match="no system-level human scores named 'esa'"):
        import_mtme(db, mtme_folder(tmp_path / "ok"), lp="de-en", human="esa")
