"""The distinct outputs of a suite with their items' source sentences: what a QE model scores."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy import select

from store import Database
from store.models import Item, Output
from suite.suites import find_suite


@dataclass(frozen=True)
class SuiteOutputs:
    """Parallel arrays, one entry per distinct output, in suite order (item position, then output id)."""

    suite_name: str
    output_ids: np.ndarray  # int64
    item_ids: np.ndarray  # int64 database id of the output's item
    sources: list[str]
    texts: list[str]

    def __len__(self) -> int:
        return int(self.output_ids.size)


def read_suite_outputs(db: Database, suite_name: str | None = None) -> SuiteOutputs:
    with db.session() as session:
        suite = find_suite(session, suite_name)
        rows = session.execute(
            select(Output.id, Output.item_id, Item.source, Output.text)
            .join(Item, Item.id == Output.item_id)
            .where(Item.suite_id == suite.id)
            .order_by(Item.position, Item.id, Output.id)
        ).all()
        name = suite.name
    return SuiteOutputs(
        suite_name=name,
        output_ids=np.fromiter((r.id for r in rows), dtype=np.int64, count=len(rows)),
        item_ids=np.fromiter((r.item_id for r in rows), dtype=np.int64, count=len(rows)),
        sources=[r.source for r in rows],
        texts=[r.text for r in rows],
    )
