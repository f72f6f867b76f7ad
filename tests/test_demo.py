from __future__ import annotations

from typing import cast

import pytest
from sqlalchemy import func, select

from store import Database
from store.models import Item, Output, Suite
from suite.demo import DEMO_SUITE, create_demo
from suite.errors import TsqeError


@pytest.fixture
def db(any_db: Database) -> Database:
    """Every test of this module that takes a database runs on SQLite and on PostgreSQL."""
    return any_db


def test_create_demo_summarises_what_it_loaded(db: Database) -> None:
    summary = create_demo(db)
    assert summary.suite == DEMO_SUITE
    assert summary.counts == {"items": 78, "categories": 10, "phenomena": 33, "systems": 4, "outputs": 278,
                              "system_outputs": 312, "reviews": 7}
    assert summary.labels == {"pass": 177, "fail": 86, "conflict": 4, "unknown": 6, "error": 5}
    assert sorted(cast(int, w.line) for w in summary.warnings) == [38, 62]  # ne-07 and mwe-05, broken on purpose
    with pytest.raises(TsqeError, match="already holds a suite named"):
        create_demo(db)
    assert create_demo(db, name="second copy").counts["items"] == 78


def test_a_demo_that_fails_part_way_leaves_no_half_built_suite(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr("suite.demo.import_reviews", fail)
    with pytest.raises(RuntimeError):
        create_demo(db)
    with db.session() as session:
        assert session.scalar(select(func.count(Suite.id))) == 0
        assert session.scalar(select(func.count(Item.id))) == 0
        assert session.scalar(select(func.count(Output.id))) == 0


def test_demo_brings_two_qe_systems_and_human_scores(db: Database) -> None:
    from store.models import HumanScore
    from suite.qe_scores import list_qe_systems

    create_demo(db)
    assert {(s.name, s.scores) for s in list_qe_systems(db)} == {("demo-qe", 278), ("demo-chrf", 278)}
    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(HumanScore)) == 4
