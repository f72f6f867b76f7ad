"""Adversarial validation (Xiang et al. 2022, Table 5) on small suites built here, figures worked out by hand."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from suite_builder import build_suite

from filters.adversarial import AdversarialOptions, SuiteTexts, adversarial_validation, classify, separate
from store import Database, open_database
from suite.errors import TsqeError


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(tmp_path / "t.sqlite")
    yield database
    database.close()


def _suite(db: Database, name: str, sources: list[str], outputs: list[str | None]) -> None:
    build_suite(db, name, [["ref"]] * len(sources), {"sys": outputs}, sources=sources)


def test_suites_of_different_words_are_told_apart_every_seed(db: Database) -> None:
    # 20 items against 30: 20 a side (the larger sampled down), 12 train / 4 dev / 4 test each: every test item
    # shares its character n-grams with its own suite only, so each of the 3 seeds scores 8 of 8
    _suite(db, "cats", [f"the cat sat on mat {i}" for i in range(20)], [f"o{i}" for i in range(20)])
    _suite(db, "dogs", [f"ein Hund lief weg {i}" for i in range(30)], [f"o{i}" for i in range(30)])
    result = adversarial_validation(db, AdversarialOptions(("cats", "dogs"), seeds=3))
    pair = next(s for s in result.separations if s.first != s.second)
    assert pair.items == 20 and pair.accuracies == [1.0, 1.0, 1.0]
    names, values = result.matrix()
    assert names == ["cats", "dogs"] and values[0, 1] == values[1, 0] == 1.0
    halves = {s.first: s for s in result.separations if s.first == s.second}
    assert halves["cats"].items == 10 and halves["dogs"].items == 15  # two halves of one suite


def test_identical_texts_are_chance_exactly(db: Database) -> None:
    # every source the same string: every test example has the same features, so the classifier gives all 4 + 4
    # test items one label and is right on exactly half
    _suite(db, "a", ["gleich"] * 20, ["x"] * 20)
    _suite(db, "b", ["gleich"] * 20, ["y"] * 20)
    sources = adversarial_validation(db, AdversarialOptions(("a", "b"), seeds=2))
    assert [s.accuracies for s in sources.separations] == [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]
    # with the outputs, the second line of each example gives the suite away: 8 of 8 between a and b; the diagonal
    # halves of one suite are identical still (10 items a side: 6 train / 2 dev / 2 test): 2 of 4
    outputs = adversarial_validation(db, AdversarialOptions(("a", "b"), with_outputs=True, seeds=2))
    by_pair = {(s.first, s.second): s.accuracies for s in outputs.separations}
    assert by_pair[("a", "b")] == [1.0, 1.0] and by_pair[("a", "a")] == [0.5, 0.5]


def test_items_without_outputs_are_left_out_with_outputs(db: Database) -> None:
    _suite(db, "a", [f"satz {i}" for i in range(48)], [f"out {i}" if i < 24 else None for i in range(48)])
    _suite(db, "b", [f"satz {i}" for i in range(48)], [f"aus {i}" for i in range(48)])
    result = adversarial_validation(db, AdversarialOptions(("a", "b"), with_outputs=True, seeds=1))
    items = {(s.first, s.second): s.items for s in result.separations}
    assert items == {("a", "a"): 12, ("a", "b"): 24, ("b", "b"): 24}


def test_too_few_items_is_one_clear_error(db: Database) -> None:
    _suite(db, "small", [f"s {i}" for i in range(9)], ["o"] * 9)
    _suite(db, "big", [f"s {i}" for i in range(40)], ["o"] * 40)
    with pytest.raises(TsqeError, match="small / small: 4 items a side, too few"):  # its two halves
        adversarial_validation(db, AdversarialOptions(("small", "big"), seeds=1))


def test_table_json_and_heat_map_say_what_the_classifier_is(db: Database, tmp_path: Path) -> None:
    _suite(db, "cats", [f"the cat sat {i}" for i in range(20)], ["o"] * 20)
    _suite(db, "dogs", [f"ein Hund lief {i}" for i in range(20)], ["o"] * 20)
    result = adversarial_validation(db, AdversarialOptions(("cats", "dogs"), seeds=1))
    table = result.to_table()
    assert table.body[0][2].value == 100.0 and "character 1-3-gram TF-IDF" in " ".join(table.notes)
    document = json.loads(result.to_json())
    assert "not the paper's fine-tuned mBERT" in document["classifier"]
    from suite.figures import save_figure

    assert save_figure(result.heat_map(), tmp_path / "av.png").stat().st_size > 1000


def test_classify_is_deterministic_per_seed() -> None:
    rng = np.random.default_rng(0)
    left = ["".join(rng.choice(list("abcdef"), 12)) for _ in range(40)]
    right = ["".join(rng.choice(list("abcdeg"), 12)) for _ in range(40)]
    assert classify(left, right, 3) == classify(left, right, 3)
    texts = SuiteTexts("x", left, [[] for _ in left])
    assert separate(texts, texts, with_outputs=False, seeds=2).items == 20
