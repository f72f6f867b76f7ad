"""bench/papers.py's Avramidis Tables 3-4: the verb phenomena (``type - tense``) pooled by tense and by type, on a
small suite built here, accuracies worked out by hand."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from qe_testdata import ItemSpec, add_qe, make_suite

from bench.paper_tables.avramidis import VERBS, table_accuracy, verb_part
from qe.evaluation import read_inputs
from store import Database, open_database

PHENOMENA = {"v1": "Modal - perfect", "v2": "Transitive - perfect", "v3": "Modal - present", "v4": "Conditional"}
RIGHT = {"v1": True, "v2": False, "v3": True, "v4": True}
"""Whether the QE system scores the item's passing output above its failing one."""


@pytest.fixture
def verbs(tmp_path: Path) -> Iterator[Database]:
    db = open_database(tmp_path / "verbs.sqlite")
    specs = [ItemSpec(item, VERBS, phenomenon, {f"{item} pass": ("pass", ("a",)), f"{item} fail": ("fail", ("b",))})
             for item, phenomenon in PHENOMENA.items()]
    specs.append(ItemSpec("n1", "Negation", "Negation", {"n1 pass": ("pass", ("a",)), "n1 fail": ("fail", ("b",))}))
    ids = make_suite(db, specs)
    add_qe(db, "avramidis-features-svr", {o: float((" pass" in text) == RIGHT.get(item, True))
                                          for (item, text), o in ids.items()})
    add_qe(db, "avramidis-pairwise-gb", {o: float(" pass" in text) for (item, text), o in ids.items()})
    yield db
    db.close()


def test_tenses_pool_the_types_and_the_phenomena_without_a_tense_are_left_out(verbs: Database) -> None:
    result = table_accuracy(verb_part(read_inputs(verbs, "test"), 1), VERBS)
    rows = {row.name: (row.amount, row.accuracy["avramidis-features-svr"]) for row in result.rows}
    assert rows == {"perfect": (2, 0.5), "present": (1, 1.0)}  # v1 right, v2 wrong; v4 (Conditional) in neither


def test_types_pool_the_tenses(verbs: Database) -> None:
    result = table_accuracy(verb_part(read_inputs(verbs, "test"), 0), VERBS)
    rows = {row.name: (row.amount, row.accuracy["avramidis-features-svr"], row.accuracy["avramidis-pairwise-gb"])
            for row in result.rows}
    assert rows == {"Modal": (2, 1.0, 1.0), "Transitive": (1, 0.0, 1.0)}
