from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest
from sqlalchemy import func, select

from store import Database
from store.models import HumanScore, Item, Output, Reference, Suite, System, SystemOutput
from suite.errors import InputFileError, TsqeError
from suite.importers.human_scores import import_human_scores
from suite.importers.wmt import import_wmt, system_file

SOURCES = ["Das ist gut.", "Ein Haus.", "Der Hund bellt.", "Ende gut, alles gut."]
REFERENCES = ["That is good.", "A house.", "The dog barks.", "All's well that ends well."]
OUTPUTS = {
    "sysA.1": ["This is good.", "A house.", "The dog barks.", "End good, all good."],
    "sys.B.2": ["That is good.", "A house. ", "The dog is barking.", "All's well that ends well."],
    "online-C.0": ["That is good.", "One house.", "The dog barks.", "End well, all well."],
}


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def wmt(tmp_path: Path) -> dict[str, Path]:
    systems = tmp_path / "systems"
    systems.mkdir()
    for name, lines in OUTPUTS.items():
        write(systems / f"newstest2099.{name}.de-en", lines)
    return {"src": write(tmp_path / "src.de", SOURCES), "ref": write(tmp_path / "ref.en", REFERENCES),
            "systems": systems}


def counts(db: Database) -> dict[str, int]:
    with db.session() as session:
        return {model.__tablename__: cast(int, session.scalar(select(func.count()).select_from(model)))
                for model in (Suite, Item, Reference, System, Output, SystemOutput, HumanScore)}


def test_system_names_come_from_wmt_file_names() -> None:
    assert system_file(Path("newstest2019.Facebook_FAIR.6750.de-en")) == ("Facebook_FAIR.6750", ("de", "en"))
    assert system_file(Path("newstest2019.MSRA.MADL.6910.de-en")) == ("MSRA.MADL.6910", ("de", "en"))
    assert system_file(Path("Facebook_FAIR.txt")) is None
    assert system_file(Path("newstest2019.de-en")) is None


def test_import_wmt_builds_items_references_systems_and_distinct_outputs(db: Database, wmt: dict[str, Path]) -> None:
    result = import_wmt(db, src=wmt["src"], refs=[wmt["ref"]], systems=[wmt["systems"]], name="nt")
    assert result.counts == {"items": 4, "references": 4, "reference_sets": 1, "systems": 3, "system_outputs": 12,
                             "distinct_outputs": 9}
    with db.session() as session:
        suite = session.scalar(select(Suite))
        assert suite is not None
        assert (suite.name, suite.source_lang, suite.target_lang) == ("nt", "de", "en")
        items = session.execute(select(Item.external_id, Item.position, Item.source, Item.phenomenon_id)
                                .order_by(Item.position)).all()
        assert items == [(str(i + 1), i, text, None) for i, text in enumerate(SOURCES)]
        refs = session.execute(select(Item.external_id, Reference.text, Reference.kind).join(Item)
                               .order_by(Item.position)).all()
        assert refs == [(str(i + 1), text, "standard") for i, text in enumerate(REFERENCES)]
        assert sorted(session.scalars(select(System.name))) == sorted(OUTPUTS)
        # "A house." and "A house. " are one output after stripping, shared by two systems.
        shared = session.execute(select(System.name).join(SystemOutput).join(Output)
                                 .where(Output.text == "A house.")).scalars().all()
        assert sorted(shared) == ["sys.B.2", "sysA.1"]


def test_import_wmt_accepts_several_references(db: Database, wmt: dict[str, Path], tmp_path: Path) -> None:
    second = write(tmp_path / "ref2.en", [f"{line} (2)" for line in REFERENCES])
    import_wmt(db, src=wmt["src"], refs=[wmt["ref"], second], systems=[wmt["systems"]], name="nt")
    assert counts(db)["references"] == 8


@pytest.mark.parametrize("damage, message", [
    (lambda p: write(p["systems"] / "newstest2099.sysA.1.de-en", OUTPUTS["sysA.1"][:3]),
     "newstest2099.sysA.1.de-en:4: has 3 lines but the source"),
    (lambda p: write(p["ref"], REFERENCES + ["extra"]), "ref.en:5: has 5 lines but the source"),
    (lambda p: (p["systems"] / "newstest2099.online-C.0.de-en").write_text(""),
     "newstest2099.online-C.0.de-en: the file is empty"),
    (lambda p: write(p["systems"] / "outputs.txt", OUTPUTS["sysA.1"]),
     "outputs.txt: cannot take a system name from the file name"),
    (lambda p: write(p["systems"] / "newstest2018.sysA.1.de-en", OUTPUTS["sysA.1"]),
     "system 'sysA.1' also comes from"),
    (lambda p: write(p["systems"] / "newstest2099.x.1.en-de", OUTPUTS["sysA.1"]), "language pair en-de differs"),
    (lambda p: write(p["src"], SOURCES[:1] + ["  "] + SOURCES[2:]), "src.de:2: empty source line"),
])
def test_import_wmt_rejects_bad_input_and_writes_nothing(db: Database, wmt: dict[str, Path],
                                                         damage: Callable[[dict[str, Path]], object],
                                                         message: str) -> None:
    damage(wmt)
    with pytest.raises(InputFileError) as error:
        import_wmt(db, src=wmt["src"], refs=[wmt["ref"]], systems=[wmt["systems"]], name="nt")
    assert message in str(error.value)
    assert set(counts(db).values()) == {0}


def test_import_wmt_refuses_an_existing_suite_name(db: Database, wmt: dict[str, Path]) -> None:
    import_wmt(db, src=wmt["src"], refs=[wmt["ref"]], systems=[wmt["systems"]], name="nt")
    before = counts(db)
    with pytest.raises(TsqeError, match="already exists"):
        import_wmt(db, src=wmt["src"], refs=[wmt["ref"]], systems=[wmt["systems"]], name="nt")
    assert counts(db) == before


def test_import_wmt_checks_languages_given_as_options(db: Database, wmt: dict[str, Path]) -> None:
    with pytest.raises(InputFileError, match="system files are de-en but the languages given are de-fr"):
        import_wmt(db, src=wmt["src"], refs=[wmt["ref"]], systems=[wmt["systems"]], name="nt", target_lang="fr")


HUMAN = """LP HUMAN SYSTEM
en-de 0.5 other.1
de-en 0.146 sysA.1
de-en -0.2 online-C.0
de-en 0.3 not-in-suite.9
"""


def test_import_human_scores_matches_systems_and_warns_about_the_rest(db: Database, wmt: dict[str, Path],
                                                                      tmp_path: Path) -> None:
    import_wmt(db, src=wmt["src"], refs=[wmt["ref"]], systems=[wmt["systems"]], name="nt")
    path = tmp_path / "DA-syslevel.csv"
    path.write_text(HUMAN)
    result = import_human_scores(db, path, lp="de-en")
    assert result.counts == {"human_scores": 2}
    warnings = [str(w) for w in result.warnings]
    assert any(":5: system 'not-in-suite.9' is not in suite" in w for w in warnings)
    assert any("suite system 'sys.B.2' has no de-en score" in w for w in warnings)
    with db.session() as session:
        scores = dict(session.execute(select(System.name, HumanScore.score).join(HumanScore)).all())
    assert scores == {"sysA.1": 0.146, "online-C.0": -0.2}
    path.write_text(HUMAN.replace("0.146", "0.5"))
    import_human_scores(db, path, lp="de-en")
    assert counts(db)["human_scores"] == 2


@pytest.mark.parametrize("text, message", [
    (HUMAN.replace("-0.2", "-0,2"), ":4: HUMAN '-0,2' is not a number"),
    (HUMAN.replace("0.5 other.1", "0.5"), ":2: expected three fields"),
    (HUMAN.replace("LP HUMAN SYSTEM", "LP SCORE SYSTEM"), ":1: expected the header line"),
    (HUMAN + "de-en 0.1 sysA.1\n", ":6: system 'sysA.1' already has a de-en score at line 3"),
])
def test_import_human_scores_rejects_bad_files_and_writes_nothing(db: Database, wmt: dict[str, Path], tmp_path: Path,
                                                                  text: str, message: str) -> None:
    import_wmt(db, src=wmt["src"], refs=[wmt["ref"]], systems=[wmt["systems"]], name="nt")
    path = tmp_path / "DA-syslevel.csv"
    path.write_text(text)
    with pytest.raises(InputFileError) as error:
        import_human_scores(db, path, lp="de-en")
    assert message in str(error.value)
    assert counts(db)["human_scores"] == 0


def test_import_human_scores_needs_at_least_one_matching_system(db: Database, wmt: dict[str, Path],
                                                                tmp_path: Path) -> None:
    import_wmt(db, src=wmt["src"], refs=[wmt["ref"]], systems=[wmt["systems"]], name="nt")
    path = tmp_path / "DA-syslevel.csv"
    path.write_text(HUMAN)
    with pytest.raises(TsqeError, match="none of the 1 en-de systems"):
        import_human_scores(db, path, lp="en-de")
    with pytest.raises(TsqeError, match="no scores for the language pair 'fr-de'"):
        import_human_scores(db, path, lp="fr-de")
    assert counts(db)["human_scores"] == 0


@pytest.mark.shared
def test_wmt19_de_en_imports_with_its_official_da_scores(db: Database, shared_data: Path) -> None:
    wmt19 = shared_data / "global-explainability-metrics" / "WMT19"
    result = import_wmt(db, src=wmt19 / "source" / "newstest2019-deen-src.de",
                        refs=[wmt19 / "references" / "newstest2019-deen-ref.en"],
                        systems=[wmt19 / "system-outputs" / "de-en"], name="newstest2019")
    assert result.counts["items"] == 2000 and result.counts["systems"] == 16
    assert result.counts["system_outputs"] == 32000
    scores = import_human_scores(db, wmt19 / "DA-syslevel.csv", lp="de-en")
    assert scores.counts == {"human_scores": 16} and scores.warnings == []
    official = {line.split()[2]: float(line.split()[1])
                for line in (wmt19 / "DA-syslevel.csv").read_text().splitlines()[1:] if line.startswith("de-en ")}
    with db.session() as session:
        stored = dict(session.execute(select(System.name, HumanScore.score).join(HumanScore)).all())
        first = session.scalar(select(Item.source).where(Item.external_id == "1"))
    assert stored == official
    assert first == (wmt19 / "source" / "newstest2019-deen-src.de").read_text().split("\n")[0].strip()
