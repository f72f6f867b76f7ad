"""``tsqe import wmt --xml``: WMT's XML test sets (wmt-format-tools layout), and the same suite as from plain text."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import pytest
from import_helpers import snapshot
from sqlalchemy import select
from typer.testing import CliRunner

from cli.main import app
from store import Database
from store.models import Item, Output, Reference, Suite, System, SystemOutput
from suite.errors import InputFileError
from suite.importers.wmt import import_wmt, import_wmt_xml, reference_file_set, system_file

Doc = tuple[str, list[str], dict[str, list[str]], dict[str, list[str]], str | None]
"""(doc id, sources, references by translator, outputs by system, test suite)."""


def side(tag: str, attributes: str, texts: list[str], numbers: list[int] | None = None) -> str:
    segs = "".join(f'        <seg id="{n}">{escape(t)}</seg>\n'
                   for n, t in zip(numbers or range(1, len(texts) + 1), texts))
    return f"    <{tag} {attributes}>\n      <p>\n{segs}      </p>\n    </{tag}>\n"


def dataset(docs: list[Doc], *, src: str = "de", tgt: str = "en", sources: bool = True) -> str:
    """A test set as wmt-format-tools writes it: one <doc> per document with its <src>, <ref>s and <hyp>s."""
    body = ""
    for doc_id, texts, refs, hyps, testsuite in docs:
        suite = f" testsuite={quoteattr(testsuite)}" if testsuite else ""
        body += f'  <doc id={quoteattr(doc_id)} origlang="{src}"{suite}>\n'
        if sources:
            body += side("src", f'lang="{src}"', texts)
        for translator, lines in refs.items():
            body += side("ref", f'lang="{tgt}" translator={quoteattr(translator)}', lines)
        for system, lines in hyps.items():
            body += side("hyp", f'system={quoteattr(system)} language="{tgt}"', lines)
        body += "  </doc>\n"
    return f"<?xml version='1.0' encoding='utf-8'?>\n<dataset id=\"newstest2099\">\n{body}</dataset>\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


DOCS: list[Doc] = [
    ("d1", ["Das ist gut.", "Ein Haus & ein Hof."], {"A": ["That is good.", "A house & a yard."],
                                                      "B": ["This is good.", "A house and a farm."]},
     {"sys1": ["That is good.", "A house and a yard."], "sys2": ["That's good.", "A house & a yard."]}, None),
    ("ts1", ["Die Bank.", "Der Hahn."], {}, {"sys1": ["The bank.", "The tap."], "sys2": ["The bench.", "The cock."]},
     "dfki"),
    ("d2", ["Der Hund bellt."], {"A": ["The dog barks."], "B": ["The dog is barking."]},
     {"sys1": ["The dog barks."], "sys2": ["The dog barks."]}, None),
]


def suite_dump(db: Database, name: str) -> dict[str, Any]:
    """Everything a test set's suite holds, by ids and texts (no row ids)."""
    with db.session() as session:
        suite = session.scalar(select(Suite).where(Suite.name == name))
        assert suite is not None
        items = session.execute(select(Item.id, Item.external_id, Item.position, Item.source, Item.phenomenon_id)
                                .where(Item.suite_id == suite.id).order_by(Item.position)).all()
        external = {item_id: external_id for item_id, external_id, *_ in items}
        references: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for item_id, set_name, text in session.execute(select(Reference.item_id, Reference.set_name, Reference.text)
                                                       .where(Reference.item_id.in_(external))):
            references[external[item_id]].append((set_name, text))
        outputs = sorted((system, external[item_id], text) for system, item_id, text in session.execute(
            select(System.name, SystemOutput.item_id, Output.text).join(System, System.id == SystemOutput.system_id)
            .join(Output, Output.id == SystemOutput.output_id).where(System.suite_id == suite.id)))
        distinct = session.scalars(select(Output.text).join(Item).where(Item.suite_id == suite.id)).all()
        return {"languages": (suite.source_lang, suite.target_lang),
                "items": [tuple(row[1:]) for row in items],
                "references": {item: sorted(texts) for item, texts in references.items()},
                "outputs": outputs, "distinct_outputs": sorted(distinct)}


def test_an_xml_test_set_is_a_suite_with_named_references_and_every_system(db: Database, tmp_path: Path) -> None:
    path = write(tmp_path / "newstest2099.de-en.all.xml", dataset(DOCS))
    result = import_wmt_xml(db, [path], name="nt")
    assert result.counts == {"items": 3, "references": 6, "reference_sets": 2,
                             "systems": 2, "system_outputs": 6, "distinct_outputs": 5,
                             "documents_left_out": 1}
    dump = suite_dump(db, "nt")
    assert dump["languages"] == ("de", "en")
    assert dump["items"] == [("1", 0, "Das ist gut.", None), ("2", 1, "Ein Haus & ein Hof.", None),
                             ("3", 2, "Der Hund bellt.", None)]
    assert dump["references"] == {"1": [("A", "That is good."), ("B", "This is good.")],
                                  "2": [("A", "A house & a yard."), ("B", "A house and a farm.")],
                                  "3": [("A", "The dog barks."), ("B", "The dog is barking.")]}
    assert ("sys2", "2", "A house & a yard.") in dump["outputs"] and len(dump["outputs"]) == 6


def test_a_test_suites_documents_and_files_read_together(db: Database, tmp_path: Path) -> None:
    sources = write(tmp_path / "src.xml", dataset([(d, s, r, {}, t) for d, s, r, _, t in DOCS]))
    hyps = [write(tmp_path / f"{system}.xml", dataset([(d, s, {}, {system: h[system]}, t) for d, s, _, h, t in DOCS],
                                                       sources=False)) for system in ("sys1", "sys2")]
    import_wmt_xml(db, [sources, *hyps], name="together")
    assert suite_dump(db, "together") == suite_dump_of_all(db, tmp_path)
    result = import_wmt_xml(db, [sources, *hyps], name="dfki", testsuite="dfki")
    assert (result.counts["items"], result.counts["references"], result.counts["documents_left_out"]) == (2, 0, 2)
    assert suite_dump(db, "dfki")["outputs"] == [("sys1", "1", "The bank."), ("sys1", "2", "The tap."),
                                                 ("sys2", "1", "The bench."), ("sys2", "2", "The cock.")]


def suite_dump_of_all(db: Database, tmp_path: Path) -> dict[str, Any]:
    import_wmt_xml(db, [write(tmp_path / "all.xml", dataset(DOCS))], name="all")
    return suite_dump(db, "all")


@pytest.mark.parametrize(("text", "message"), [
    (dataset(DOCS).replace("</dataset>", ""), ":83: not well-formed XML: no element found (column 1)"),
    ("<doc id='x'/>", ":1: the root element is <doc>, not <dataset>"),
    (dataset(DOCS).replace('<seg id="2">Ein', '<seg id="1">Ein'), ":7: document 'd1': segment 1 appears twice"),
    (dataset(DOCS).replace('<seg id="2">A house and a yard', '<seg id="7">A house and a yard'),
     ":25: document 'd1': system 'sys1' has segment 7, which the source has not"),
    (dataset(DOCS).replace('translator="B"', 'translator="B" lang="fr"').replace('lang="en" translator="B"',
                                                                                 'translator="B"'),
     "differs from the language 'en' read before"),
    (dataset(DOCS).replace('system="sys2"', 'system=""'), "document 'd1': a <hyp> without a system name"),
])
def test_a_broken_xml_file_is_refused_with_its_line_and_changes_nothing(db: Database, tmp_path: Path, text: str,
                                                                        message: str) -> None:
    path = write(tmp_path / "bad.xml", text)
    before = snapshot(db)
    with pytest.raises(InputFileError) as excinfo:
        import_wmt_xml(db, [path], name="bad")
    assert message in str(excinfo.value) and str(path) in str(excinfo.value)
    assert snapshot(db) == before


def test_a_system_missing_segments_is_a_warning_and_its_other_outputs_are_kept(db: Database, tmp_path: Path) -> None:
    docs = [(d, s, r, {**h, "sys3": h["sys1"][:1]}, t) for d, s, r, h, t in DOCS]
    result = import_wmt_xml(db, [write(tmp_path / "x.xml", dataset(docs))], name="nt")
    assert [w.message for w in result.warnings] == ["document 'd1': system 'sys3' lacks segment(s) 2"]
    assert [o for o in suite_dump(db, "nt")["outputs"] if o[0] == "sys3"] == [
        ("sys3", "1", "That is good."), ("sys3", "3", "The dog barks.")]


def test_the_command_takes_xml_files(tmp_path: Path) -> None:
    path = write(tmp_path / "t.xml", dataset(DOCS))
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "t.sqlite"), "import", "wmt", "--xml", str(path),
                                      "--name", "nt"])
    assert result.exit_code == 0, result.output
    assert "3 items, 6 references, 2 reference sets, 2 systems" in result.output
    assert "1 documents left out" in result.output
    refused = CliRunner().invoke(app, ["--db", str(tmp_path / "t.sqlite"), "import", "wmt", "--xml", str(path),
                                       "--src", str(path), "--name", "again"])
    assert refused.exit_code == 2 and "give either --xml or the plain-text" in refused.output


def test_wmt21_plain_text_file_names_give_the_system_and_the_reference_set() -> None:
    assert reference_file_set(Path("newstest2021.de-en.ref.A.en")) == "A"
    assert reference_file_set(Path("newstest2019-deen-ref.en")) is None
    assert system_file(Path("newstest2021.de-en.hyp.UEdin.en")) == ("UEdin", ("de", "en"))
    assert system_file(Path("newstest2021.de-en.hyp.VolcTrans.AT.en")) == ("VolcTrans.AT", ("de", "en"))
    assert system_file(Path("newstest2021.de-en.hyp.UEdin.fr")) is None


def test_newstest2021_in_xml_is_the_suite_its_plain_text_gives(db: Database, shared_data: Path,
                                                               tmp_path: Path) -> None:
    """The plain-text newstest2021 de-en (two references, 19 systems) written as WMT XML in documents of ten
    segments, with a test suite's document among them, gives the same suite as the plain-text files: the same
    items, the same reference sets (A and B: the translators of the XML, the NAME of ref.NAME.en), the same
    systems and outputs."""
    folder = shared_data / "wmt21-news-systems" / "newstest2021-de-en" / "txt"
    lines = {path: path.read_text(encoding="utf-8").split("\n")[:-1] for path in folder.rglob("*.*")}
    sources = lines[folder / "sources" / "newstest2021.de-en.src.de"]
    refs = {path.name.split(".")[3]: text for path, text in lines.items() if path.parent.name == "references"}
    hyps = {system_file(path)[0]: text for path, text in lines.items()  # type: ignore[index]
            if path.parent.name == "system-outputs"}
    assert (len(sources), sorted(refs), len(hyps)) == (1000, ["A", "B"], 19)
    docs: list[Doc] = []
    for start in range(0, len(sources), 10):
        window = slice(start, start + 10)
        docs.append((f"doc{start}", sources[window], {name: text[window] for name, text in refs.items()},
                     {name: text[window] for name, text in hyps.items()}, None))
        if start == 500:
            docs.append(("ts", ["Ein Satz einer Testsuite."], {}, {name: ["A test suite sentence."] for name in hyps},
                         "dfki"))
    xml = write(tmp_path / "newstest2021.de-en.all.xml", dataset(docs))
    import_wmt_xml(db, [xml], name="from-xml")
    import_wmt(db, src=folder / "sources" / "newstest2021.de-en.src.de",
               refs=sorted((folder / "references").iterdir()), systems=[folder / "system-outputs"], name="from-text")
    from_xml, from_text = suite_dump(db, "from-xml"), suite_dump(db, "from-text")
    assert len(from_text["outputs"]) == 19_000 and from_text["references"]["1"][0][0] == "A"
    assert from_xml == from_text
