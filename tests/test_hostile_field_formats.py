"""Hostile input in the field's own formats: WMT XML (the test set's and a submission's returned files), the WMT and
mt-metrics-eval plain text, challenge sets, reference sets and submission maps get the limits, the NFC and the one
sentence that suite and outputs files get (issue 22, carried over to the importers of issue 19 and 17).

Each case is refused before anything is written, with exit status 2 and the file named.
"""
from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest
from hostile_helpers import bounded_tsqe, make_demo_file, rows_of, tsqe, unchanged
from import_helpers import demetr_record, write
from sqlalchemy import select

from store import open_database
from store.models import AutoLabel, Item, Output, Reference, System
from suite.importers import limits

NFD = unicodedata.normalize("NFD", "Café")
LONG = "x" * (limits.MAX_FIELD_CHARS + 1)
LAUGHS = ('<!DOCTYPE dataset [\n <!ENTITY lol "lol">\n <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n'
          ' <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">\n]>\n')
EXTERNAL = '<!DOCTYPE dataset [\n <!ENTITY secret SYSTEM "file:///etc/passwd">\n]>\n'
REFUSED_ENTITY = ("the file declares an entity ({}), which WMT's XML never does; refused, since an entity can expand "
                  "to gigabytes or read another file")


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_file(tmp_path_factory)


def refused(db: Path, *args: str) -> str:
    """The one sentence (and any further problems) of a refused command that changed nothing."""
    before = rows_of(db)  # an empty database, migrated, where there was none
    return unchanged(db, tsqe(db, *args), before)


def wmt_xml(segment: str = "Das ist gut.", *, doctype: str = "", entity: str = "", system: str = "sys1",
            hypothesis: str = "That is good.", reference: bool = True) -> str:
    """One document of one segment with its source, a reference (unless not wanted) and a system's output, as
    wmt-format-tools writes it; ``entity`` is put in the source segment as it stands (an entity reference)."""
    ref = '    <ref lang="en" translator="A"><p><seg id="1">That is good.</seg></p></ref>\n' if reference else ""
    return (f"<?xml version='1.0' encoding='utf-8'?>\n{doctype}<dataset id=\"t\">\n"
            f'  <doc id="d1" origlang="de">\n'
            f'    <src lang="de"><p><seg id="1">{segment}{entity}</seg></p></src>\n{ref}'
            f'    <hyp system="{system}" language="en"><p><seg id="1">{hypothesis}</seg></p></hyp>\n'
            f"  </doc>\n</dataset>\n")


# --- WMT XML ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("doctype", "entity", "name"), [(LAUGHS, "&lol3;", "'lol'"),
                                                          (EXTERNAL, "&secret;", "'secret'")])
def test_an_entity_in_wmt_xml_is_refused_in_one_sentence(tmp_path: Path, doctype: str, entity: str,
                                                         name: str) -> None:
    """A billion-laughs or external-entity file is refused where it declares its first entity: expat would expand
    the first and (without a handler) silently drop the second's text from the segment."""
    path = write(tmp_path / "hostile.xml", wmt_xml(doctype=doctype, entity=entity))
    stderr = refused(tmp_path / "t.sqlite", "import", "wmt", "--xml", str(path), "--name", "t")
    assert stderr == f"error: {path}:3: {REFUSED_ENTITY.format(name)}\n"


def test_a_returned_xml_translation_with_an_entity_is_refused_too(demo_file: Path, tmp_path: Path) -> None:
    db = Path(shutil.copy(demo_file, tmp_path / "t.sqlite"))
    code, stderr = tsqe(db, "export", "testsuite-submission", str(tmp_path / "sent"))
    assert code == 0, stderr
    [map_file] = (tmp_path / "sent").glob("*.map.tsv")
    returned = write(tmp_path / "returned.xml", wmt_xml(doctype=LAUGHS, entity="&lol3;"))
    stderr = refused(db, "import", "outputs", str(returned), "--map", str(map_file))
    assert stderr == f"error: {returned}:3: {REFUSED_ENTITY.format(repr('lol'))}\n"


def test_a_wmt_xml_segment_over_the_field_limit_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "long.xml", wmt_xml(hypothesis=LONG))
    stderr = refused(tmp_path / "t.sqlite", "import", "wmt", "--xml", str(path), "--name", "t")
    assert stderr == (f"error: {path}:6: <seg> holds a text longer than {limits.MAX_FIELD_CHARS:,} characters; a "
                      f"segment is one sentence\n")


def test_a_wmt_xml_file_read_whole_is_bounded_by_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from suite.importers import wmt_xml as module

    monkeypatch.setattr(module, "MAX_WHOLE_FILE_BYTES", 256)
    path = write(tmp_path / "big.xml", wmt_xml())
    stderr = refused(tmp_path / "t.sqlite", "import", "wmt", "--xml", str(path), "--name", "t")
    assert stderr == f"error: {path}: the file has {path.stat().st_size} bytes; at most 256 bytes of XML are read\n"


def test_wmt_xml_texts_and_names_are_read_in_nfc(tmp_path: Path) -> None:
    """A system's returned file repeats the sources, which must be those read before: written decomposed (as a Mac
    writes it) or with a character reference for a combining accent, they are the same text, and the system's
    name and output are stored composed."""
    sources = write(tmp_path / "sources.xml", wmt_xml(segment="Café gut."))
    returned = write(tmp_path / "returned.xml", wmt_xml(segment="Cafe&#x301; gut.", system=f"{NFD}-MT",
                                                        hypothesis=f"{NFD} good.", reference=False))
    db = tmp_path / "t.sqlite"
    code, stderr = tsqe(db, "import", "wmt", "--xml", str(sources), "--xml", str(returned), "--name", "t")
    assert code == 0, stderr
    database = open_database(db)
    try:
        with database.session() as session:
            stored = (session.scalars(select(Item.source)).all(), set(session.scalars(select(System.name))),
                      set(session.scalars(select(Output.text))))
    finally:
        database.close()
    assert stored == (["Café gut."], {"sys1", "Café-MT"}, {"That is good.", "Café good."})


# --- plain text: WMT, mt-metrics-eval, reference sets ---------------------------------------------------------

def test_a_plain_text_line_over_the_field_limit_is_refused(tmp_path: Path) -> None:
    src = write(tmp_path / "newstest2099.de-en.src.de", "Das ist gut.\nEin Haus.\n")
    ref = write(tmp_path / "newstest2099.de-en.ref.A.en", "That is good.\nA house.\n")
    system = write(tmp_path / "newstest2099.de-en.hyp.sys1.en", f"That is good.\n{LONG}\n")
    stderr = refused(tmp_path / "t.sqlite", "import", "wmt", "--src", str(src), "--ref", str(ref), "--systems",
                     str(system), "--name", "t")
    assert stderr == (f"error: {system}:2: the line is longer than {limits.MAX_FIELD_CHARS:,} characters; a line "
                      f"holds one sentence\n")


def test_an_mtme_folder_with_a_line_over_the_field_limit_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "wmt99"
    for name, text in {"sources/de-en.txt": "Das ist gut.\n", "references/de-en.refA.txt": f"{LONG}\n",
                       "system-outputs/de-en/sysA.txt": "That is good.\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        write(root / name, text)
    stderr = refused(tmp_path / "t.sqlite", "import", "mtme", str(root), "--lp", "de-en")
    assert stderr == (f"error: {root / 'references/de-en.refA.txt'}:1: the line is longer than "
                      f"{limits.MAX_FIELD_CHARS:,} characters; a line holds one sentence\n")


def test_a_reference_set_is_held_to_the_limits_and_said_stripped_ids(demo_file: Path, tmp_path: Path) -> None:
    db = Path(shutil.copy(demo_file, tmp_path / "t.sqlite"))
    database = open_database(db)
    try:
        with database.session() as session:
            ids = session.scalars(select(Item.external_id).order_by(Item.position, Item.id)).all()
    finally:
        database.close()
    lines = write(tmp_path / "refs.txt", "".join(f"Reference {n}.\n" for n in range(len(ids) - 1)) + f"{LONG}\n")
    stderr = refused(db, "import", "references", str(lines), "--name", "p")
    assert stderr == (f"error: {lines}:{len(ids)}: the line is longer than {limits.MAX_FIELD_CHARS:,} characters; a "
                      f"line holds one sentence\n")
    table = write(tmp_path / "refs.tsv", f"item_id\ttext\n {ids[0]} \tThe bench, {NFD}.\n{ids[1]}\tThe lock.\n")
    code, stderr = tsqe(db, "import", "references", str(table), "--name", "p")
    assert code == 0, stderr
    assert (f"{table}:2: warning: 1 id(s) or name(s) had spaces around them, which were dropped (the first: "
            f"' {ids[0]} ')") in stderr
    database = open_database(db)
    try:
        with database.session() as session:
            texts = set(session.scalars(select(Reference.text).where(Reference.set_name == "p")))
    finally:
        database.close()
    assert texts == {"The bench, Café.", "The lock."}


# --- challenge sets ---------------------------------------------------------------------------------------------


def test_one_broken_example_among_good_ones_refuses_the_challenge_set(tmp_path: Path) -> None:
    """A problem filed under one file of a set (``Problems.for_file``) was listed but not counted, so the import
    went on without the broken example, exit 0."""
    folder = tmp_path / "demetr"
    folder.mkdir()
    records = [demetr_record(1), demetr_record(2, severity="huge")]
    path = write(folder / "minor_id14_word_swap.json", json.dumps(records))
    stderr = refused(tmp_path / "t.sqlite", "import", "challenge", str(folder), "--format", "demetr")
    assert stderr == (f"error: {path}: example 2: unknown severity 'huge' (DEMETR's are minor, major, critical, "
                      f"base)\n")


def test_demetr_strings_are_nfc_after_json_escapes_and_held_to_the_field_limit(tmp_path: Path) -> None:
    """``read_text`` gives the file in NFC, but a JSON escape (``\\u0301``) is decoded after that: a good translation
    written so and an incorrect one written composed are the same text (an example without a pair), where they
    were two outputs that the database's NFC column made one, a unique-key violation and a traceback."""
    path = write(tmp_path / "minor_id14_word_swap.json",
                 json.dumps([demetr_record(1, mt_sent="Cafe\u0301 time.", pert_sent="Café time."), demetr_record(2)]))
    assert "\\u0301" in path.read_text(encoding="utf-8")
    db = tmp_path / "t.sqlite"
    code, stderr = tsqe(db, "import", "challenge", str(path), "--format", "demetr")
    assert code == 0, stderr
    database = open_database(db)
    try:
        with database.session() as session:
            outputs = session.scalars(select(Output.text).join(Item).where(Item.external_id.endswith(":1"))).all()
            labels = set(session.scalars(select(AutoLabel.label)))
    finally:
        database.close()
    assert outputs == ["Café time."] and labels == {"pass", "fail"}  # example 2 has its pair
    long = write(tmp_path / "long.json", json.dumps([demetr_record(1, pert_sent=LONG)]))
    stderr = refused(db, "import", "challenge", str(long), "--format", "demetr", "--name", "long")
    assert stderr == (f"error: {long}: example minor_id14_word_swap:1: the incorrect translation has "
                      f"{len(LONG):,} characters; a field holds at most {limits.MAX_FIELD_CHARS:,}\n")


def test_a_challenge_table_says_it_stripped_ids(tmp_path: Path) -> None:
    path = write(tmp_path / "set.tsv", "id\tsource\treference\tgood\tbad\tcategory\tphenomenon\n"
                                       " p1 \tIl est venu.\tHe came.\tHe came.\tShe came.\tagreement\tgender\n")
    code, stderr = tsqe(tmp_path / "t.sqlite", "import", "challenge", str(path), "--format", "contrastive-tsv")
    assert code == 0, stderr
    assert (f"{path}:2: warning: 1 id(s) or name(s) had spaces around them, which were dropped (the first: "
            f"' p1 ')") in stderr


# --- JSON suites and tables of outputs ---------------------------------------------------------------------------

def test_a_json_suite_string_over_the_field_limit_is_refused(tmp_path: Path) -> None:
    """A JSON suite has no cells to bound its strings as they are read: the source of 131,073 characters was
    stored, exit 0."""
    item = {"id": "x-01", "langpair": "de-en", "category": "C", "phenomenon": "P", "source_sentence": LONG,
            "positive_regex": ["bench"]}
    path = write(tmp_path / "suite.json", json.dumps({"items": [item]}))
    stderr = refused(tmp_path / "t.sqlite", "import", "suite", str(path))
    assert stderr == (f"error: {path}:1: the source has {len(LONG):,} characters; a field holds at most "
                      f"{limits.MAX_FIELD_CHARS:,}\n")


def test_a_new_system_name_on_every_row_costs_no_array_per_system(tmp_path: Path) -> None:
    """The check of an outputs table kept, per system, an array over the suite's items (8 bytes an item, to name
    the line of a duplicate): 20,000 rows each naming a new system over a 20,000-item suite took 3.2 GB, past the
    2 GiB this child process may use. The last row's unknown item makes the file refused after the check."""
    items = 20_000
    suite = write(tmp_path / "suite.tsv", "id\tcategory\tphenomenon\tsource\n" +
                  "".join(f"i-{n}\tC\tP\tSatz {n}.\n" for n in range(items)))
    db = tmp_path / "t.sqlite"
    code, stderr = tsqe(db, "import", "suite", str(suite), "--name", "s")
    assert code == 0, stderr
    outputs = write(tmp_path / "outputs.tsv", "item_id\tsystem\toutput\n" +
                    "".join(f"i-{n}\tMT-{n}\tSentence {n}.\n" for n in range(items)) + "nowhere\tMT-0\tx\n")
    result = bounded_tsqe(db, "import", "outputs", str(outputs), timeout=600)
    assert result.returncode == 2 and result.stderr == f"error: {outputs}:{items + 2}: unknown item id 'nowhere'\n"
