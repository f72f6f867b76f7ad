from __future__ import annotations

import pytest
from qe_testdata import stored_scores, toy_suite

from store import Database
from suite.errors import TsqeError
from suite.qe_scores import list_qe_systems, load_qe_system, remove_qe_system, save_qe_system, set_scores


@pytest.fixture
def outputs(db: Database) -> list[int]:
    ids = toy_suite(db, [("1", "Cat", "A cat.", [("s1", "Eine Katze.", "pass"), ("s2", "Ein Hund.", "fail")]),
                           ("2", "Cat", "A dog.", [("s1", "Ein Hund.", "pass"), ("s2", "Ein Hund.", "pass")])])
    return sorted(ids.values())


def test_save_list_load_and_remove(db: Database, outputs: list[int]) -> None:
    a, b, c = outputs
    system_id = save_qe_system(db, name="len", kind="features-svr", higher_is_better=False,
                               scores={a: 0.1, b: 0.7}, meta={"target": "hter", "data": {"sentences": 10}},
                               model=b"joblib bytes")
    save_qe_system(db, name="bleu", kind="metric", higher_is_better=True, scores={a: 30.0, b: 10.0, c: 50.0},
                   meta={"signature": "nrefs:1|case:mixed"})
    listed = {s.name: s for s in list_qe_systems(db)}
    assert [s for s in listed] == ["bleu", "len"]
    assert listed["len"].id == system_id and listed["len"].scores == 2 and listed["len"].has_model
    assert listed["len"].direction == "lower is better" and listed["bleu"].direction == "higher is better"
    assert listed["bleu"].meta == {"signature": "nrefs:1|case:mixed"} and not listed["bleu"].has_model
    stored = load_qe_system(db, "len")
    assert stored.model == b"joblib bytes" and stored.kind == "features-svr" and not stored.higher_is_better
    assert stored_scores(db) == {"bleu": (True, {a: 30.0, b: 10.0, c: 50.0}), "len": (False, {a: 0.1, b: 0.7})}
    assert stored_scores(db, ["len"]) == {"len": (False, {a: 0.1, b: 0.7})}
    assert remove_qe_system(db, "len") == 2
    assert [s.name for s in list_qe_systems(db)] == ["bleu"]


def test_name_clash_needs_replace_and_replace_drops_old_scores(db: Database, outputs: list[int]) -> None:
    a, b, c = outputs
    save_qe_system(db, name="q", kind="imported", higher_is_better=True, scores={a: 1.0, b: 2.0}, meta={})
    with pytest.raises(TsqeError, match="already exists"):
        save_qe_system(db, name="q", kind="imported", higher_is_better=True, scores={c: 3.0}, meta={})
    assert stored_scores(db, ["q"]) == {"q": (True, {a: 1.0, b: 2.0})}
    save_qe_system(db, name="q", kind="metric", higher_is_better=False, scores={c: 3.0}, meta={}, replace=True)
    assert stored_scores(db, ["q"]) == {"q": (False, {c: 3.0})}


def test_set_scores_replaces_only_the_given_outputs(db: Database, outputs: list[int]) -> None:
    a, b, c = outputs
    save_qe_system(db, name="q", kind="features-svr", higher_is_better=True, scores={a: 1.0, b: 2.0}, meta={})
    assert set_scores(db, "q", {b: 5.0, c: 6.0}) == 2
    assert stored_scores(db, ["q"])["q"][1] == {a: 1.0, b: 5.0, c: 6.0}


def test_unknown_names_and_kinds(db: Database, outputs: list[int]) -> None:
    with pytest.raises(TsqeError, match="no QE system"):
        stored_scores(db, ["nope"])
    with pytest.raises(TsqeError, match="no QE system named 'nope'"):
        remove_qe_system(db, "nope")
    with pytest.raises(TsqeError, match="unknown QE system kind"):
        save_qe_system(db, name="x", kind="magic", higher_is_better=True, scores={}, meta={})
    with pytest.raises(TsqeError):  # an unknown output id violates the foreign key and writes nothing
        save_qe_system(db, name="x", kind="imported", higher_is_better=True, scores={999999: 1.0}, meta={})
    assert list_qe_systems(db) == []
