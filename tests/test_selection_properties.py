"""What a variance-aware selection keeps (Zhan et al. 2021 §4.4) on a six-item suite worked out by hand."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite_builder import add_reference_set, build_suite

from filters.selection_properties import (
    NOT_ASKED,
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
    assert NOT_ASKED in result.to_table().notes  # part of speech only on request: its tagger takes seconds to load
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


POS_SOURCES = ["Der Hund schläft.", "Anna singt.", "Paris ist groß."]
POS_REFERENCES = ["The dog sleeps.", "Anna sings.", "Paris is big."]
"""PatternTagger: DT NN VBZ . / NNP VBZ . / NNP VBZ JJ . (11 tokens; items 1 and 2 kept: 7 tokens)."""


def pos_suite(path: Path, languages: tuple[str, str]) -> Database:
    from sqlalchemy import update

    from store.models import Suite

    database = open_database(path)
    sources, references = (POS_REFERENCES, POS_SOURCES) if languages[0] == "en" else (POS_SOURCES, POS_REFERENCES)
    build_suite(database, "s", [[r] for r in references], {"sys": ["o"] * 3}, sources=sources)
    with database.transaction() as session:
        session.execute(update(Suite).values(source_lang=languages[0], target_lang=languages[1]))
    return database


@pytest.mark.parametrize(("languages", "side"), [(("de", "en"), "references"), (("en", "de"), "sources")])
def test_part_of_speech_shares_of_the_english_side(tmp_path: Path, languages: tuple[str, str], side: str) -> None:
    database = pos_suite(tmp_path / "p.sqlite", languages)
    result = selection_properties(database, [1, 2], parts_of_speech=True)
    database.close()
    pos = result.part_of_speech
    assert pos is not None and pos.side == side
    # original: VBZ 3, . 3, NNP 2, DT 1, JJ 1, NN 1 of 11; kept (Anna, Paris): VBZ 2, . 2, NNP 2, JJ 1 of 7;
    # removed (the dog): DT, NN, VBZ, . of 4
    assert [(g.group, g.original, g.kept, g.original_total, g.kept_total) for g in pos.tags] == [
        (".", 3, 2, 11, 7), ("VBZ", 3, 2, 11, 7), ("NNP", 2, 2, 11, 7), ("DT", 1, 0, 11, 7), ("JJ", 1, 1, 11, 7),
        ("NN", 1, 0, 11, 7)]
    nnp = pos.tags[2]
    assert (round(nnp.original_share, 4), round(nnp.kept_share, 4), nnp.removed_share) == (0.1818, 0.2857, 0.0)
    assert round(nnp.change, 2) == 10.39  # 100 * (2/7 - 2/11): the paper's "more proper nouns"
    assert pos.tags[3].removed_share == 0.25
    document = json.loads(result.to_json())
    assert document["part_of_speech"]["side"] == side and document["part_of_speech"]["tags"][2]["group"] == "NNP"
    assert ["part of speech", "NNP"] == [c.value for c in result.to_table().body[8][:2]]


def test_typographic_quotes_are_tagged_as_ascii_ones() -> None:
    from filters.selection_properties import part_of_speech_tags

    assert part_of_speech_tags("It\u2019s \u201cbig\u201d.") == part_of_speech_tags("It's \"big\".")


def test_a_suite_without_an_english_side_says_so_and_the_command_draws(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cli.main import app

    pos_suite(tmp_path / "de.sqlite", ("de", "fr")).close()
    pos_suite(tmp_path / "en.sqlite", ("de", "en")).close()
    kept = tmp_path / "kept.json"
    kept.write_text(json.dumps({"de-en": [1, 2]}), encoding="utf-8")
    german = CliRunner().invoke(app, ["--db", str(tmp_path / "de.sqlite"), "vat-properties", "--kept", str(kept),
                                      "--part-of-speech-figure", str(tmp_path / "none.svg"), "--json"])
    assert german.exit_code == 0, german.output
    document = json.loads(german.stdout)
    assert document["part_of_speech"] is None
    assert "de-fr, with no English side" in document["part_of_speech_note"]
    assert not (tmp_path / "none.svg").exists()
    english = CliRunner().invoke(app, ["--db", str(tmp_path / "en.sqlite"), "vat-properties", "--kept", str(kept),
                                       "--part-of-speech-figure", str(tmp_path / "f7.svg")])
    assert english.exit_code == 0, english.output
    assert "NNP" in english.stdout and "<svg" in (tmp_path / "f7.svg").read_text(encoding="utf-8")
