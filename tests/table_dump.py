"""Every row of every table, to show that a refused edit changed nothing."""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from store import Database
from store.models import Base


def dump(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    with db.session() as session:
        return {table.name: sorted(map(tuple, session.execute(select(table))), key=repr)
                for table in Base.metadata.sorted_tables}
