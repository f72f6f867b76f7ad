"""A metric stored as a QE system: its score cache and the system are written together or not at all."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select
from table_dump import dump

from filters.qe_proxy import store_metric_as_qe
from filters.scoring import score_outputs
from store import Database
from store.models import MetricScore
from suite.demo import create_demo
from suite.errors import TsqeError
from suite.qe_scores import list_qe_systems, save_qe_system
from suite.tasks import Progress, TaskState


@pytest.fixture
def demo(any_db: Database) -> Database:
    create_demo(any_db)
    return any_db


def cached_scores(db: Database) -> int:
    with db.session() as session:
        return session.scalar(select(func.count()).select_from(MetricScore)) or 0


def test_the_cache_and_the_system_are_stored_together(demo: Database) -> None:
    assert cached_scores(demo) == 0
    info = store_metric_as_qe(demo, "chrf", name="chrF")
    scored = score_outputs(demo, "chrf")  # everything is cached now: the same scores as the system's
    assert info.kind == "metric" and info.scores == len({row.output_id for row in scored.rows}) > 0
    assert cached_scores(demo) == info.scores
    assert info.meta == {"metric": "chrf", "signature": str(scored.signature), "refs": "default", "tie_epsilon": 0.0}


def test_a_failed_system_write_leaves_no_cache_behind(demo: Database) -> None:
    """Another process takes the system's name while the metric scores: the whole job is refused, and the
    scores it computed are not cached without the system (as they were when the two were two transactions)."""
    before = dump(demo)

    def colleague_takes_the_name(progress: Progress) -> None:
        if not any(info.name == "chrf" for info in list_qe_systems(demo)):
            save_qe_system(demo, name="chrf", kind="imported", higher_is_better=True, scores={}, meta={})

    with pytest.raises(TsqeError, match="a QE system named 'chrf' already exists"):
        store_metric_as_qe(demo, "chrf", task=TaskState(colleague_takes_the_name))
    after = dump(demo)
    assert after["metric_scores"] == before["metric_scores"] == []
    assert {info.name: info.kind for info in list_qe_systems(demo)}["chrf"] == "imported"  # the colleague's


def test_a_taken_name_is_refused_before_scoring(demo: Database) -> None:
    save_qe_system(demo, name="chrf", kind="imported", higher_is_better=True, scores={}, meta={})
    reports: list[Progress] = []
    with pytest.raises(TsqeError, match="already exists"):
        store_metric_as_qe(demo, "chrf", task=TaskState(reports.append))
    assert reports == [] and cached_scores(demo) == 0
    assert store_metric_as_qe(demo, "chrf", replace=True).kind == "metric"
