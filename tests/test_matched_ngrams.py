"""Matched n-grams (Freitag et al. 2020 §7.2), clipped as BLEU clips, on a suite built here."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from suite_builder import add_reference_set, build_suite

from filters.matched_ngrams import matched, matched_ngrams
from store import Database, open_database
from suite.errors import TsqeError
from suite.references import RefChoice


def test_matches_are_clipped_per_segment() -> None:
    # "a a a" against "a a": 2 of the 3 unigrams match; bigram "a a" occurs twice, once in the reference
    assert matched([["a", "a", "a"]], [[["a", "a"]]], 1) == {("a",): 2}
    assert matched([["a", "a", "a"]], [[["a", "a"]]], 2) == {("a", "a"): 1}
    # two references: the clip is the most any one has (2 from the second), not their sum
    assert matched([["a", "a", "a"]], [[["a"], ["a", "a"]]], 1) == {("a",): 2}


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(tmp_path / "t.sqlite")
    build_suite(database, "s", [["Er sagte, er kommt."], ["Sie sagte, er kommt nicht."], ["Nichts."]],
                {"fb": ["Er sagte, er kommt.", "Sie sagte, er kommt.", "Gar nichts."]})
    add_reference_set(database, "para", "paraphrase", ["Kommen werde er, sagte er.", None, "Nichts."])
    yield database
    database.close()


def test_a_systems_four_grams_against_two_reference_sets(db: Database) -> None:
    # 13a tokens: "Er sagte , er kommt ." ; segment 1 matches all three 4-grams of the output, segment 2
    # "Sie sagte , er kommt ." against "Sie sagte , er kommt nicht ." matches "Sie sagte , er" and "sagte , er kommt"
    result = matched_ngrams(db, "fb", n=4)
    assert result.counts == [("sagte , er kommt", 2), ("Er sagte , er", 1), (", er kommt .", 1),
                             ("Sie sagte , er", 1)]
    assert result.segments == 3
    para = matched_ngrams(db, "fb", refs=RefChoice.parse("para"), n=2)
    # bigrams of the outputs (Er sagte / sagte , / , er / er kommt / kommt .; Gar nichts / nichts .) against the
    # paraphrases' (Kommen werde / werde er / er , / , sagte / sagte er / er .; Nichts .): case counts, none match;
    # item 2 has no paraphrase
    assert para.counts == [] and para.segments == 2


def test_an_unknown_system_names_the_systems(db: Database) -> None:
    with pytest.raises(TsqeError, match="no system 'x' \\(systems: fb\\)"):
        matched_ngrams(db, "x")
