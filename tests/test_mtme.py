"""``tsqe import mtme`` and ``tsqe export mtme``: google-research/mt-metrics-eval's layout in and out."""
from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from import_helpers import snapshot, write
from scipy.stats import kendalltau, pearsonr
from sqlalchemy import Table, select
from typer.testing import CliRunner

from cli.main import app
from filters.correlation import correlate
from filters.human_judgements import read_human_judgements
from filters.qe_proxy import store_metric_as_qe
from filters.scoring import score_outputs
from store import Database
from store.models import HumanScore, HumanSegmentScore, Item, Output, Suite, System
from suite.errors import InputFileError, TsqeError
from suite.exporters.mtme import export_mtme
from suite.importers import import_qe_scores
from suite.importers.challenge import import_challenge
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
    assert result.counts == {"items": 4, "references": 8, "reference_sets": 2,
                             "systems": 3, "system_outputs": 12, "distinct_outputs": 9,
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


ROUND_TRIP = {
    "sources/de-en.txt": SOURCES,
    "documents/de-en.docs": FILES["documents/de-en.docs"],
    "references/de-en.refA.txt": FILES["references/de-en.refA.txt"],
    "references/de-en.refB.txt": FILES["references/de-en.refB.txt"],
    "system-outputs/de-en/refB.txt": FILES["system-outputs/de-en/refB.txt"],
    "system-outputs/de-en/sysA.txt": FILES["system-outputs/de-en/sysA.txt"],
    "system-outputs/de-en/sysB.txt": FILES["system-outputs/de-en/sysB.txt"],
    "human-scores/de-en.wmt-z.sys.score": ["refB 0.75", "sysA -0.25", "sysB 0.5"],
    "human-scores/de-en.wmt-z.seg.score": [
        "refB 0.5", "refB None", "refB 0.25", "refB 0.75", "sysA -0.5", "sysA 0.125", "sysA None", "sysA 1",
        "sysB 0", "sysB 0.5", "sysB -1.25", "sysB 0.375"],
    "metric-scores/de-en/BLEU-refA.seg.score": [
        "refB 50", "refB 15", "refB 20", "refB 5", "sysA 50", "sysA 100", "sysA 100", "sysA 10",
        "sysB 100", "sysB 100", "sysB 20", "sysB 30"],
    "metric-scores/de-en/COMET-22-src.seg.score": [
        "refB 0.75", "refB 0.6", "refB 0.65", "refB 0.4", "sysA 0.75", "sysA 0.9", "sysA 0.95", "sysA 0.2",
        "sysB 0.85", "sysB 0.9", "sysB 0.65", "sysB 0.5"],
}


def files_under(root: Path) -> dict[str, list[str]]:
    return {str(path.relative_to(root)): path.read_text(encoding="utf-8").split("\n")[:-1]
            for path in sorted(root.rglob("*")) if path.is_file()}


def test_import_then_export_gives_the_files_back(db: Database, tmp_path: Path) -> None:
    import_mtme(db, mtme_folder(tmp_path / "in", ROUND_TRIP), lp="de-en", name="wmt99")
    export = export_mtme(db, tmp_path / "out", human_name="wmt-z")
    written = files_under(tmp_path / "out")
    signatures = written.pop("metric-scores/de-en/tsqe-signatures.tsv")
    assert written == ROUND_TRIP
    assert signatures == ["file\tsignature", "BLEU-refA\tqe:BLEU-refA", "COMET-22-src\tqe:COMET-22-src"]
    assert (export.items, export.references, export.systems, export.human_scores, export.human_segment_scores,
            export.notes) == (4, ["refA", "refB"], 3, 3, 10, [])


def test_tsqe_scores_exported_for_mt_metrics_eval_and_read_back(db: Database, tmp_path: Path) -> None:
    """A suite of tsqe's own (a DEMETR-like challenge set: categories, a reference set, two systems) with a metric
    tsqe computed and a QE system: the export holds tsqe's chrF as NAME-REF with the set it used, the QE system as
    reference-free, and mt-metrics-eval's names; importing it gives the same items, places and scores."""
    table = ("id\tsource\treference\tgood\tbad\tcategory\tphenomenon\n"
             "a\tEr kam.\tHe came.\tHe came.\tHe comes.\tmajor\ttense\n"
             "b\tSie ging.\tShe went.\tShe went.\tShe goes.\tmajor\ttense\n"
             "c\tEr kam nicht.\tHe did not come.\tHe didn't come.\tHe came.\tcritical\tnegation\n"
             "d\tJa.\tYes.\tYes.\tYes\tminor\tpunctuation\n")
    import_challenge(db, write(tmp_path / "set.tsv", table), "contrastive-tsv", name="set")
    with db.transaction() as session:
        session.execute(cast(Table, Suite.__table__).update().values(source_lang="de", target_lang="en"))
    chrf = score_outputs(db, "chrf")
    store_metric_as_qe(db, "bleu", name="bleu-proxy")  # written once, as the metric bleu it holds
    imported_qe = write(tmp_path / "qe.tsv", "item_id\tsystem\tscore\n" + "".join(
        f"{item}\t{system}\t{score}\n" for item in "abcd" for system, score in (("good", 0.5), ("bad", 0.25))))
    import_qe_scores(db, imported_qe, name="toy")
    export = export_mtme(db, tmp_path / "set")
    assert export.metrics == ["bleu-all", "chrf-all", "toy-src"] and export.references == ["contrastive_tsv"]
    written = files_under(tmp_path / "set")
    assert written["documents/de-en.docs"] == ["major tense", "major tense", "critical negation", "minor punctuation"]
    assert written["system-outputs/de-en/bad.txt"] == ["He comes.", "She goes.", "He came.", "Yes"]
    by_system: dict[str, list[float]] = {
        line.split()[0]: [] for line in written["metric-scores/de-en/chrf-all.seg.score"]}
    for line in written["metric-scores/de-en/chrf-all.seg.score"]:
        system, score = line.split()
        by_system[system].append(float(score))
    direct: dict[str, list[float]] = {row.system: [] for row in chrf.rows}
    for row in sorted(chrf.rows, key=lambda r: r.item_id):
        direct[row.system].append(row.score)
    assert by_system == direct
    again = import_mtme(db, tmp_path / "set", lp="de-en", name="again")
    assert again.counts["items"] == 4 and again.counts["metrics"] == 3
    with db.session() as session:
        assert sorted(session.scalars(select(Suite.name))) == ["again", "set"]


def test_imported_metric_scores_serve_accuracy_and_correlate(db: Database, tmp_path: Path) -> None:
    """A segment-level metric of mt-metrics-eval is the QE system NAME-REF: ``tsqe correlate --metric
    qe:BLEU-refA`` takes its system scores as the means of its segment scores."""
    import_mtme(db, mtme_folder(tmp_path / "in", ROUND_TRIP), lp="de-en", name="wmt99")
    result = correlate(db, "qe:BLEU-refA")
    means = {"refB": (50 + 15 + 20 + 5) / 4, "sysA": (50 + 100 + 100 + 10) / 4, "sysB": (100 + 100 + 20 + 30) / 4}
    human = {"refB": 0.75, "sysA": -0.25, "sysB": 0.5}
    assert result.scores == pytest.approx(means)
    assert result.pearson == pytest.approx(pearsonr(list(human.values()), list(means.values()))[0])
    assert result.kendall == pytest.approx(kendalltau(list(human.values()), list(means.values()))[0])


def test_the_commands(tmp_path: Path) -> None:
    db_path = str(tmp_path / "t.sqlite")
    result = CliRunner().invoke(app, ["--db", db_path, "import", "mtme", str(mtme_folder(tmp_path / "wmt99")),
                                      "--lp", "de-en", "--lower-is-better", "COMET-22"])
    assert result.exit_code == 0, result.output
    assert "suite 'wmt99.de-en': 4 items, 8 references, 3 systems, 9 distinct outputs" in result.output
    assert "human scores 'mqm' for 2 systems" in result.output
    assert "not imported: metric BLEU-refA (sys), human wmt-z (sys), human wmt-z (seg)" in result.output
    exported = CliRunner().invoke(app, ["--db", db_path, "export", "mtme", str(tmp_path / "out"), "--human-name",
                                        "mqm"])
    assert exported.exit_code == 0, exported.output
    assert "de-en: 4 items, 2 reference sets, 3 systems, 2 human scores, 0 human segment scores, 2 metrics" in (
        exported.output)
    again = CliRunner().invoke(app, ["--db", str(tmp_path / "again.sqlite"), "import", "mtme",
                                     str(mtme_folder(tmp_path / "rt", ROUND_TRIP)), "--lp", "de-en"])
    assert again.exit_code == 0, again.output
    assert "human scores 'wmt-z' for 3 systems, 10 segment scores (2 segments without a score)" in again.output


SEGMENTS = ["sysA 0.5", "sysA -0.25", "sysA None", "sysA 1.5",
            "sysB 0.25", "sysB 0.75", "sysB -1.0", "sysB 2.0"]


def test_segment_human_scores_of_the_imported_name_are_the_suites(db: Database, tmp_path: Path) -> None:
    """``LP.NAME.seg.score`` of the NAME whose system scores are taken: one score per system and item, ``None``
    skipped and counted; the meta-evaluation reads them; another NAME's segment scores are left, as before."""
    files = {**FILES, "human-scores/de-en.wmt-z.seg.score": SEGMENTS,
             "human-scores/de-en.mqm.seg.score": ["sysA 1.0"]}  # not the chosen name: left, and not even read
    result = import_mtme(db, mtme_folder(tmp_path / "wmt99", files), lp="de-en", human="wmt-z")
    assert (result.counts["human_scores"], result.counts["human_segment_scores"],
            result.counts["human_segments_without_score"]) == (3, 7, 1)
    assert sorted(result.left) == ["human mqm (seg)", "human mqm (sys)", "metric BLEU-refA (sys)"]
    assert [str(w) for w in result.warnings] == [
        f"{tmp_path / 'wmt99/human-scores/de-en.wmt-z.seg.score'}:1: suite system 'refB' has no segment scores "
        "in this file"]
    with db.session() as session:
        rows = sorted(session.execute(
            select(System.name, Item.external_id, HumanSegmentScore.score, HumanSegmentScore.raw,
                   HumanSegmentScore.judgements)
            .join(System, System.id == HumanSegmentScore.system_id)
            .join(Item, Item.id == HumanSegmentScore.item_id)).all())
    assert rows == [("sysA", "1", 0.5, None, None), ("sysA", "2", -0.25, None, None), ("sysA", "4", 1.5, None, None),
                    ("sysB", "1", 0.25, None, None), ("sysB", "2", 0.75, None, None), ("sysB", "3", -1.0, None, None),
                    ("sysB", "4", 2.0, None, None)]
    judged = read_human_judgements(db, "wmt99.de-en")
    assert {system: sorted(by_item.values()) for system, by_item in judged.segments.items()} == {
        "sysA": [-0.25, 0.5, 1.5], "sysB": [-1.0, 0.25, 0.75, 2.0]}


def test_a_wrong_count_of_segment_human_scores_is_refused_and_changes_nothing(db: Database, tmp_path: Path) -> None:
    files = {**FILES, "human-scores/de-en.wmt-z.seg.score": SEGMENTS[:4] + SEGMENTS[5:]}
    root = mtme_folder(tmp_path / "wmt99", files)
    before = snapshot(db)
    with pytest.raises(InputFileError) as excinfo:
        import_mtme(db, root, lp="de-en", human="wmt-z")
    assert str(excinfo.value) == (f"{root / 'human-scores/de-en.wmt-z.seg.score'}:5: system 'sysB' has 3 segment "
                                  "scores (its first at this line) but the test set has 4 segments")
    assert snapshot(db) == before
    import_mtme(db, root, lp="de-en")  # the chosen name (mqm) has no segment file: the broken one is left
    unscored = {**FILES, "human-scores/de-en.wmt-z.seg.score": [line.split()[0] + " None" for line in SEGMENTS]}
    counts = import_mtme(db, mtme_folder(tmp_path / "none", unscored), lp="de-en", human="wmt-z").counts
    assert (counts["human_segment_scores"], counts["human_segments_without_score"]) == (0, 8)


ROUND_TRIP_FOLDER = Path(__file__).parent / "data" / "mtme_round_trip"


def test_an_mtme_folder_comes_back_byte_for_byte(db: Database, tmp_path: Path) -> None:
    """Numbers come back as they were written: ``10`` stays ``10`` (it was exported ``10.0``), ``1e-05`` and
    ``-0.1`` stay as they are, and an output every system produced keeps its one score ``0.1`` (the mean of three
    equal scores was ``0.10000000000000002``)."""
    import_mtme(db, ROUND_TRIP_FOLDER, lp="de-en", name="wmt99")
    export_mtme(db, tmp_path / "out", human_name="mqm")
    given = {path.relative_to(ROUND_TRIP_FOLDER): path.read_bytes()
             for path in ROUND_TRIP_FOLDER.rglob("*") if path.is_file()}
    written = {path.relative_to(tmp_path / "out"): path.read_bytes()
               for path in (tmp_path / "out").rglob("*") if path.is_file()}
    assert written.pop(Path("metric-scores/de-en/tsqe-signatures.tsv")) == b"file\tsignature\nBLEU-refA\tqe:BLEU-refA\n"
    assert written == given
