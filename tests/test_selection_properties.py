"""What a variance-aware selection keeps (Zhan et al. 2021 §4.4) on a six-item suite worked out by hand."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite_builder import add_reference_set, build_suite

from filters.selection_properties import (
    NO_TAGGER,
    edit_distance,
    kept_and_removed,
    metric_by_selection,
    read_kept_positions,
    selection_properties,
)
from store import Database, open_database
from suite.errors import TsqeError

SOURCES = ["eins", "eins zwei", "eins zwei drei", "a b c d", "a b c d e", "a b c d e f"]
REFERENCES = ["a a a b", "a c", "a b", "d", "e", "a"]


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(tmp_path / "t.sqlite")
    build_suite(database, "s", [[r] for r in REFERENCES], {"sys": ["o"] * 6}, sources=SOURCES)
    add_reference_set(database, "para", "paraphrase", ["a b a a", "c a", "a b", None, "x e", "a"])
    yield database
    database.close()


def test_length_thirds_frequency_groups_and_edit_distances(db: Database) -> None:
    result = selection_properties(db, [0, 1, 5], paraphrase="para")
    # lengths 1..6: Short = items 0, 1; Medium = 2, 3; Long = 4, 5; kept 0, 1, 5
    assert [(g.group, g.original, g.kept) for g in result.length] == [("Short", 2, 2), ("Medium", 2, 0),
                                                                       ("Long", 2, 1)]
    assert [round(g.change, 1) for g in result.length] == [33.3, -33.3, 0.0]
    # word counts a 6, b 2, c d e 1: percentiles of [1, 1, 1, 2, 6] are 1 (20th) and 1.4 (60th), so c, d, e are
    # Rare (3 of 11 tokens; 1 of the kept items' 7), none Middle, a and b Frequent (8 of 11; 6 of 7)
    assert [(g.group, g.original, g.kept, g.original_total, g.kept_total) for g in result.frequency] == [
        ("Rare", 3, 1, 11, 7), ("Middle", 0, 0, 11, 7), ("Frequent", 8, 6, 11, 7)]
    # distances: item 0 "a a a b" / "a b a a" 2, item 1 "a c" / "c a" 2, item 2 0, item 4 "e" / "x e" 1, item 5 0;
    # item 3 has no paraphrase. All 5/5 = 1.0; removed (2, 4): 0.5; kept (0, 1, 5): 4/3
    e = result.edit_distances
    assert e is not None and e.items == 5
    assert (e.all, e.removed, round(e.kept, 4)) == (1.0, 0.5, 1.3333)
    assert NO_TAGGER in result.to_table().notes
    assert json.loads(result.to_json())["part_of_speech"] is None


def test_a_corpus_gives_the_frequencies(db: Database) -> None:
    result = selection_properties(db, [0], corpus=["c c c d d e"])
    # corpus counts c 3, d 2, e 1 (a and b absent: once each): percentiles of [1, 2, 3] are 1.4 and 2.2
    assert [(g.group, g.original) for g in result.frequency] == [("Rare", 9), ("Middle", 1), ("Frequent", 1)]
    assert result.frequency_from == "the given corpus"


def test_edit_distance_by_hand() -> None:
    assert edit_distance("a b c".split(), "a c".split()) == 1
    assert edit_distance([], ["a", "b"]) == 2
    assert edit_distance("kitten sat".split(), "sitting sat".split()) == 1


def test_selection_files_are_checked(db: Database, tmp_path: Path) -> None:
    good = tmp_path / "keep.json"
    good.write_text('{"de-en": [0, 5]}', encoding="utf-8")
    assert read_kept_positions(good) == [0, 5]
    bad = tmp_path / "bad.json"
    bad.write_text('{"de-en": [0, -1]}', encoding="utf-8")
    with pytest.raises(TsqeError, match="non-negative whole numbers"):
        read_kept_positions(bad)
    several = tmp_path / "several.json"
    several.write_text('{"de-en": [1], "en-de": [2]}', encoding="utf-8")
    assert read_kept_positions(several, "en-de") == [2]
    with pytest.raises(TsqeError, match="holds the language pairs de-en, en-de: name one"):
        read_kept_positions(several)
    with pytest.raises(TsqeError, match="has 6 items: kept positions \\[6\\]"):
        selection_properties(db, [0, 6])


def test_each_items_mean_score_kept_against_removed() -> None:
    # item 0: (0.2 + 0.4) / 2, item 1: NaN skipped -> 0.5, item 2 kept 0.9, item 3 has no score at all
    scores = [(0, 0.2), (0, 0.4), (1, 0.5), (1, float("nan")), (2, 0.9)]
    assert kept_and_removed(scores, [2, 3]) == {"kept": [0.9], "removed": [pytest.approx(0.3), 0.5]}


def test_the_filtering_metric_of_the_kept_and_removed_items(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app

    database = open_database(tmp_path / "m.sqlite")
    build_suite(database, "s", [["the cat sat"], ["a dog"], ["hello there"]],
                {"x": ["the cat sat", "a dog", "bye"], "y": ["the cat sat", "no", "bye"]})
    found = metric_by_selection(database, [0], "chrf")
    database.close()
    assert found["kept"] == [100.0]  # item 0: both outputs equal the reference
    assert len(found["removed"]) == 2 and all(0 <= value < 100 for value in found["removed"])
    kept = tmp_path / "kept.json"
    kept.write_text(json.dumps({"de-en": [0]}), encoding="utf-8")
    base = ["--db", str(tmp_path / "m.sqlite"), "vat-properties", "--kept", str(kept)]
    drawn = CliRunner().invoke(app, [*base, "--distribution", "chrf", "--figure", str(tmp_path / "f8.svg")])
    assert drawn.exit_code == 0, drawn.output
    assert "<svg" in (tmp_path / "f8.svg").read_text(encoding="utf-8")
    alone = CliRunner().invoke(app, [*base, "--distribution", "chrf"])
    assert alone.exit_code == 2 and "--distribution and --figure go together" in alone.output
