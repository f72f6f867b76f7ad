"""``tsqe export testsuite-submission`` and ``tsqe import outputs --map``: a suite sent to WMT and the systems'
translations brought back to its items."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from import_helpers import snapshot, write
from sqlalchemy import select
from typer.testing import CliRunner

from cli.main import app
from store import Database
from store.models import Item, Output, Suite, System, SystemOutput
from suite.demo import DEMO_SUITE, create_demo
from suite.errors import InputFileError, TsqeError
from suite.exporters.testsuite_submission import export_testsuite_submission
from suite.importers import import_outputs
from suite.importers.challenge import import_challenge
from suite.importers.result import Problems
from suite.importers.wmt_xml import read_wmt_xml


def items(db: Database) -> list[tuple[str, str]]:
    with db.session() as session:
        return [tuple(row) for row in session.execute(  # type: ignore[misc]
            select(Item.external_id, Item.source).join(Suite).where(Suite.name == DEMO_SUITE)
            .order_by(Item.position))]


def outputs_of(db: Database, system: str) -> dict[str, str]:
    with db.session() as session:
        return dict(session.execute(
            select(Item.external_id, Output.text).select_from(SystemOutput)
            .join(System, System.id == SystemOutput.system_id).join(Item, Item.id == SystemOutput.item_id)
            .join(Output, Output.id == SystemOutput.output_id).where(System.name == system)).all())


def returned(source_xml: Path, system: str, translate: dict[str, str], news: bool = True) -> str:
    """What WMT sends back: the submitted documents, each with the system's <hyp> (as wmt-wrap writes it), among
    the news test set's documents."""
    root = ET.parse(source_xml).getroot()
    for doc in root.iter("doc"):
        hyp = ET.SubElement(doc, "hyp", {"system": system, "language": "en"})
        paragraph = ET.SubElement(hyp, "p")
        for seg in doc.iter("seg"):
            if seg.text in translate:
                ET.SubElement(paragraph, "seg", {"id": seg.get("id", "")}).text = translate[seg.text]
    if news:
        news_doc = ET.SubElement(root, "doc", {"id": "news-1", "origlang": "de"})
        for tag, attributes, text in (("src", {"lang": "de"}, "Nachrichten."),
                                      ("hyp", {"system": system, "language": "en"}, "News.")):
            ET.SubElement(ET.SubElement(ET.SubElement(news_doc, tag, attributes), "p"), "seg", {"id": "1"}).text = text
    return ET.tostring(root, encoding="unicode")


def test_the_submission_is_the_suites_sources_in_xml_plain_text_and_a_map(db: Database, tmp_path: Path) -> None:
    create_demo(db)
    (files,) = export_testsuite_submission(db, tmp_path / "out", name="tsqe-demo")
    assert files.languages == ("de", "en") and files.xml.name == "tsqe-demo.de-en.src.xml"
    expected = items(db)
    assert files.text.read_text(encoding="utf-8").split("\n")[:-1] == [source for _, source in expected]
    map_lines = files.map.read_text(encoding="utf-8").split("\n")[:-1]
    assert map_lines[0] == "line\tdoc_id\tseg_id\titem_id"
    assert map_lines[1:] == [f"{n}\ttsqe-demo-{item}\t1\t{item}" for n, (item, _) in enumerate(expected, start=1)]
    problems = Problems(str(files.xml))
    read = read_wmt_xml([files.xml], problems, testsuite="tsqe-demo")
    assert problems.errors == [] and read.sources == [source for _, source in expected]  # unwrap gives the text
    assert read_wmt_xml([files.xml], Problems(""), testsuite=None).sources == []  # only test-suite documents


def test_returned_xml_and_plain_text_come_back_to_their_items(db: Database, tmp_path: Path) -> None:
    create_demo(db)
    (files,) = export_testsuite_submission(db, tmp_path, name="tsqe-demo")
    translate = {source: f"translation of {item}" for item, source in items(db)}
    xml = write(tmp_path / "newstest2099.de-en.hyp.SysX.xml", returned(files.xml, "SysX", translate))
    result = import_outputs(db, xml, submission_map=files.map)
    assert result.counts["documents_elsewhere"] == 1 and result.counts["system_outputs_added"] == len(translate)
    assert outputs_of(db, "SysX") == {item: f"translation of {item}" for item, _ in items(db)}
    text = write(tmp_path / "sysy.en", "".join(f"Y {item}\n" for item, _ in items(db)))
    import_outputs(db, text, submission_map=files.map, system="SysY")
    assert outputs_of(db, "SysY") == {item: f"Y {item}" for item, _ in items(db)}


def test_a_returned_file_that_does_not_fit_the_map_is_refused(db: Database, tmp_path: Path) -> None:
    create_demo(db)
    (files,) = export_testsuite_submission(db, tmp_path, name="tsqe-demo")
    before = snapshot(db)
    short = write(tmp_path / "short.en", "only one line\n")
    with pytest.raises(InputFileError, match="the file has 1 lines but the submitted file had"):
        import_outputs(db, short, submission_map=files.map, system="S")
    with pytest.raises(InputFileError, match="needs the name of its system"):
        import_outputs(db, short, submission_map=files.map)
    first_item, first_source = items(db)[0]
    broken = returned(files.xml, "S", {first_source: "x"}, news=False).replace(
        f'id="tsqe-demo-{first_item}"', 'id="tsqe-demo-nope"')
    with pytest.raises(InputFileError, match="no <hyp> translates a document of the map"):
        import_outputs(db, write(tmp_path / "b.xml", broken), submission_map=files.map)
    assert snapshot(db) == before


def test_a_suite_of_several_languages_is_submitted_per_language_pair(db: Database, tmp_path: Path) -> None:
    table = ("source\treference\tgood\tbad\tcategory\tphenomenon\tlanguage_pair\n"
             "Er kam.\tHe came.\tHe came.\tHe comes.\tc\tp\tde-en\n"
             "Il vint.\tHe came.\tHe came.\tHe comes.\tc\tp\tfr-en\n"
             "Sie kam.\tShe came.\tShe came.\tShe comes.\tc\tp\tde-en\n")
    import_challenge(db, write(tmp_path / "set.tsv", table), "contrastive-tsv")
    written = export_testsuite_submission(db, tmp_path / "out")
    assert [(f.languages, f.items, f.text.name) for f in written] == [
        (("de", "en"), 2, "set.de-en.src.de"), (("fr", "en"), 1, "set.fr-en.src.fr")]
    with pytest.raises(TsqeError, match="no spaces or slashes"):
        export_testsuite_submission(db, tmp_path / "out", name="my suite")


def test_the_commands(tmp_path: Path) -> None:
    db_path = str(tmp_path / "t.sqlite")
    assert CliRunner().invoke(app, ["--db", db_path, "demo"]).exit_code == 0
    result = CliRunner().invoke(app, ["--db", db_path, "export", "testsuite-submission", str(tmp_path / "wmt"),
                                      "--name", "tsqe-demo"])
    assert result.exit_code == 0, result.output
    assert "de-en: " in result.output and "tsqe-demo.de-en.map.tsv" in result.output
    lines = (tmp_path / "wmt" / "tsqe-demo.de-en.src.de").read_text(encoding="utf-8").count("\n")
    write(tmp_path / "sys.en", "".join(f"line {n}\n" for n in range(lines)))
    imported = CliRunner().invoke(app, ["--db", db_path, "import", "outputs", str(tmp_path / "sys.en"), "--system",
                                        "Z", "--map", str(tmp_path / "wmt" / "tsqe-demo.de-en.map.tsv")])
    assert imported.exit_code == 0, imported.output
    assert f"{lines} system outputs of 1 systems (1 new)" in imported.output
