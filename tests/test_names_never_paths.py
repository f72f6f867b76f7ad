"""Names from the data never become paths (issue 27): a system, QE system, suite or reference set named
``../../../../x`` is written under its ``suite.file_names`` form inside the export's folder, and the mt-metrics-eval
round trip gives the original names back (``tsqe-names.tsv``)."""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import cast

import numpy as np
import pytest
from sqlalchemy import Table, select

from filters.variance import export_selection, filter_matrix
from store import Database
from store.models import QESystem, Reference, Suite, System
from suite.exporters.mtme import export_mtme
from suite.exporters.testsuite_submission import export_testsuite_submission
from suite.file_names import FileNames, read_mapping, safe_file_name, write_mapping
from suite.importers import import_qe_scores
from suite.importers.challenge import import_challenge
from suite.importers.mtme import import_mtme
from suite.importers.wmt import import_wmt, import_wmt_xml

DATA = Path(__file__).parent / "data" / "hostile_names"
HOSTILE = "../../../../x"


@pytest.fixture
def db(any_db: Database) -> Database:
    """Each test on SQLite and on PostgreSQL: the names a database hands back are the ones that become paths."""
    return any_db


def tree(root: Path, but: Path | None = None) -> dict[str, str]:
    """Every file under ``root`` (its content's hash), leaving out ``but``'s subtree."""
    return {str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*"))
            if path.is_file() and (but is None or not path.is_relative_to(but))}


def target_in(tmp_path: Path) -> tuple[Path, Path]:
    """An export's folder four levels below a watched one (``../../../../x`` from a subfolder lands in it)."""
    watched = tmp_path / "watched"
    target = watched / "a" / "b" / "target"
    target.mkdir(parents=True)
    (watched / "keep.txt").write_text("mine\n", encoding="utf-8")
    return watched, target


def only_target_written(watched: Path, target: Path, before: dict[str, str]) -> None:
    assert tree(watched, but=target) == before
    assert all(path.resolve().is_relative_to(target.resolve()) for path in target.rglob("*"))
    assert not any(part in ("..", ".") or "\\" in part or "/" in part or " " in part
                   for path in target.rglob("*") for part in path.relative_to(target).parts)


def system_names(db: Database, suite: str) -> set[str]:
    with db.session() as session:
        return set(session.scalars(select(System.name).join(Suite).where(Suite.name == suite)))


def test_safe_file_names_are_one_component_unique_and_bounded() -> None:
    names = FileNames(blanks=False)
    hostile = [HOSTILE, "..", ".", "..\\..\\y", "a b", "CON", "x\x1b[31m", "a/b", "a_b", "é" * 300, "A", "a"]
    mapped = [names.of(name) for name in hostile]
    assert len(set(m.casefold() for m in mapped)) == len(hostile)
    for name in mapped:
        assert name and name not in (".", "..") and not name.startswith(".") and len(name.encode()) <= 200
        assert not any(c in name for c in "/\\ \x1b")
    assert names.of("a_b") == "a_b" and names.of("A") == "A"
    assert read_mapping(write_mapping(names.mapping())) == {m: n for n, m in zip(hostile, mapped) if m != n}
    assert safe_file_name("with blank") == "with blank" and " " not in safe_file_name("with blank", blanks=False)


def test_wmt_xml_systems_so_named_stay_inside_the_mtme_export_and_come_back(db: Database, tmp_path: Path) -> None:
    import_wmt_xml(db, [DATA / "dotdot.xml"], name="nt")
    assert system_names(db, "nt") == {HOSTILE, "..\\..\\..\\..\\y", "with blank"}
    import_qe_scores(db, _qe_file(tmp_path, [HOSTILE, "..\\..\\..\\..\\y", "with blank"], 2), name=HOSTILE)
    watched, target = target_in(tmp_path)
    before = tree(watched, but=target)
    export = export_mtme(db, target)
    only_target_written(watched, target, before)
    assert len(export.metrics) == 1 and export.metrics[0].endswith("-src")
    import_mtme(db, target, lp="de-en", name="back")
    assert system_names(db, "back") == {HOSTILE, "..\\..\\..\\..\\y", "with blank"}
    with db.session() as session:
        assert set(session.scalars(select(QESystem.name))) == {HOSTILE, f"{HOSTILE}-src"}
    # exporting the imported suite again writes the same files: its QE system keeps its NAME-REF
    again = tmp_path / "again"
    import_mtme(db, target, lp="de-en", name="back2")
    export_mtme(db, again, suite_name="back")
    assert (again / "system-outputs" / "de-en" / "tsqe-names.tsv").read_text() == (
        target / "system-outputs" / "de-en" / "tsqe-names.tsv").read_text()


def _qe_file(tmp_path: Path, systems: list[str], items: int) -> Path:
    path = tmp_path / "qe.tsv"
    path.write_text("item_id\tsystem\tscore\n" + "".join(f"{item}\t{system}\t0.{item}\n" for item in
                                                          range(1, items + 1) for system in systems), encoding="utf-8")
    return path


def test_a_plain_text_file_name_so_named_stays_inside(db: Database, tmp_path: Path) -> None:
    (tmp_path / "src.de").write_text("Das ist gut.\nEin Haus.\n", encoding="utf-8")
    (tmp_path / "ref.en").write_text("That is good.\nA house.\n", encoding="utf-8")
    systems = tmp_path / "sys"
    systems.mkdir()
    hostile = "..\\..\\..\\..\\x"  # a legal file name on Linux, a way out on Windows
    (systems / f"newstest2099.{hostile}.de-en").write_text("This is good.\nA house.\n", encoding="utf-8")
    (systems / "newstest2099.CON.de-en").write_text("That is good.\nThe house.\n", encoding="utf-8")
    import_wmt(db, src=tmp_path / "src.de", refs=[tmp_path / "ref.en"], systems=[systems], name="nt")
    assert system_names(db, "nt") == {hostile, "CON"}
    watched, target = target_in(tmp_path)
    before = tree(watched, but=target)
    export_mtme(db, target)
    only_target_written(watched, target, before)
    import_mtme(db, target, lp="de-en", name="back")
    assert system_names(db, "back") == {hostile, "CON"}


def test_an_mtme_folder_naming_systems_and_references_so_comes_back_and_stays_inside(db: Database,
                                                                                     tmp_path: Path) -> None:
    """A folder whose ``tsqe-names.tsv`` names a system ``../../../../x`` and a reference set ``ref-A.2`` (a set
    name mt-metrics-eval's file names cannot hold), as tsqe writes them: imported under those names, written
    again inside the target only, and back again."""
    root = tmp_path / "in"
    files = {"sources/de-en.txt": "Das ist gut.\nEin Haus.\n",
             "references/de-en.r1.txt": "That is good.\nA house.\n",
             "references/de-en.tsqe-names.tsv": 'file_name\tname\n"r1"\t"ref-A.2"\n',
             "system-outputs/de-en/s1.txt": "This is good.\nA house.\n",
             "system-outputs/de-en/s2.txt": "That is good.\nOne house.\n",
             "system-outputs/de-en/tsqe-names.tsv": f'file_name\tname\n"s1"\t"{HOSTILE}"\n',
             "metric-scores/de-en/m-src.seg.score": "s1 0.5\ns1 0.25\ns2 1\ns2 2\n",
             "metric-scores/de-en/tsqe-names.tsv": f'file_name\tname\n"m-src"\t"{HOSTILE}-src"\n'}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    import_mtme(db, root, lp="de-en", name="in")
    assert system_names(db, "in") == {HOSTILE, "s2"}
    with db.session() as session:
        assert set(session.scalars(select(Reference.set_name))) == {"ref-A.2"}
        assert set(session.scalars(select(QESystem.name))) == {f"{HOSTILE}-src"}
    watched, target = target_in(tmp_path)
    before = tree(watched, but=target)
    export_mtme(db, target)
    only_target_written(watched, target, before)
    import_mtme(db, target, lp="de-en", name="back")
    assert system_names(db, "back") == {HOSTILE, "s2"}
    with db.session() as session:
        assert set(session.scalars(select(Reference.set_name))) == {"ref-A.2"}
        assert set(session.scalars(select(QESystem.name))) == {f"{HOSTILE}-src"}


def test_a_challenge_suite_so_named_stays_inside_the_vat_folder_and_the_submission(db: Database,
                                                                                   tmp_path: Path) -> None:
    table = ("id\tsource\treference\tgood\tbad\tcategory\tphenomenon\n"
             "a\tEr kam.\tHe came.\tHe came.\tHe comes.\t../../x\t../../../../y\n"
             "b\tSie ging.\tShe went.\tShe went.\tShe goes.\tmajor\ttense\n")
    (tmp_path / "set.tsv").write_text(table, encoding="utf-8")
    import_challenge(db, tmp_path / "set.tsv", "contrastive-tsv", name=HOSTILE)
    with db.transaction() as session:
        session.execute(cast(Table, Suite.__table__).update().values(source_lang="de", target_lang="en"))
    watched, target = target_in(tmp_path)
    before = tree(watched, but=target)
    result = filter_matrix(["a", "b"], np.array([[0, 1], [0, 3]]), drop=0.0)
    written = export_selection(db, result, target, metric=f"qe:{HOSTILE}", suite_name=HOSTILE)
    export_mtme(db, target / "mtme", suite_name=HOSTILE)
    only_target_written(watched, target, before)
    assert all(path.parent == target for path in written) and len(written) == 3
    submission = target / "submission"
    for files in export_testsuite_submission(db, submission, name="..", suite_name=HOSTILE):
        assert all(path.parent == submission for path in (files.xml, files.text, files.map))
    only_target_written(watched, target, before)
