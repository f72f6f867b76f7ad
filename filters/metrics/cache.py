"""The cache of text metrics' segment scores: one row per (signature, output) in ``metric_scores``."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from store.models import Item, MetricScore, Output
from store.upsert import conflict_insert


def cached_scores(session: Session, suite_id: int, signature: str) -> dict[int, float]:
    rows = session.execute(select(MetricScore.output_id, MetricScore.score)
                           .join(Output, Output.id == MetricScore.output_id)
                           .join(Item, Item.id == Output.item_id)
                           .where(Item.suite_id == suite_id, MetricScore.signature == signature))
    return dict(rows.all())


def store_scores(session: Session, fresh: dict[str, list[tuple[int, float]]]) -> None:
    """Store fresh scores in the caller's transaction. A score cached already (a sibling metric's, or one
    another run stored meanwhile) is left as it is: under one signature it is the same figure."""
    rows = [{"signature": signature, "output_id": o, "score": v}
            for signature, computed in fresh.items() for o, v in computed]
    connection = session.connection()
    for start in range(0, len(rows), 5000):
        connection.execute(conflict_insert(connection, MetricScore).on_conflict_do_nothing(),
                           rows[start:start + 5000])
