"""Monotonicity of reference sets (Freitag et al. 2020 Table 8) on suites built here, aligned by eflomal."""
from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite_builder import add_reference_set, build_suite
from typer.testing import CliRunner

from cli.main import app
from filters.monotonicity import distance_sum, monotonicity, parse_links
from store import Database, open_database
from suite.errors import TsqeError
from suite.references import RefChoice


def test_links_and_their_distance() -> None:
    links = parse_links("0-0 1-3 4-2")
    assert links == [(0, 0), (1, 3), (4, 2)]
    assert distance_sum(links) == 0 + 2 + 2
    assert parse_links("") == []
    with pytest.raises(TsqeError, match="'1:2' is not a link"):
        parse_links("0-0 1:2", where="line 3")


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    # a word-for-word "translation" (word k -> W<k>) of 60 sentences of 6 distinct words: "same" keeps the
    # source's order, "reversed" reverses it; every word occurs in many sentences, so the links are unambiguous
    rng = random.Random(7)
    sentences = [rng.sample(range(24), 6) for _ in range(60)]
    sources = [" ".join(f"w{k}" for k in words) for words in sentences]
    same = [" ".join(f"W{k}" for k in words) for words in sentences]
    database = open_database(tmp_path / "t.sqlite")  # the CLI test opens it again by this path
    build_suite(database, "s", [[text] for text in same], {}, sources=sources)
    add_reference_set(database, "reversed", "paraphrase", [" ".join(reversed(text.split())) for text in same])
    yield database
    database.close()


def test_the_source_order_is_monotonic_and_the_reversed_order_is_not(db: Database) -> None:
    result = monotonicity(db, [RefChoice.default(), RefChoice.parse("reversed")])
    standard, backwards = result.rows
    assert (standard.pairs, standard.links) == (60, 360)
    assert standard.distance == 0.0
    # reversing 6 positions: |0-5| + |1-4| + |2-3| twice = 18 over 6 links = 3.0 per link
    assert (backwards.pairs, backwards.links, backwards.distance) == (60, 360, 3.0)
    assert [row[0].value for row in result.to_table().body] == ["default", "reversed"]


def test_joined_entries_and_missing_sets_are_refused(db: Database) -> None:
    with pytest.raises(TsqeError, match="per reference set, not on joined entries"):
        monotonicity(db, [RefChoice.parse("standard+reversed")])
    with pytest.raises(TsqeError, match="name at least one"):
        monotonicity(db, [])


def test_the_command_prints_one_row_per_set(db: Database, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["--db", str(tmp_path / "t.sqlite"), "monotonicity", "--refs",
                                      "default,reversed", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rows"]
    assert [(row["refs"], row["distance"]) for row in rows] == [("default", 0.0), ("reversed", 3.0)]
    missing = CliRunner().invoke(app, ["--db", str(tmp_path / "t.sqlite"), "monotonicity", "--refs", "nope"])
    assert missing.exit_code == 2 and "nope" in missing.output
