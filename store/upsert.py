"""INSERT statements that say what to do when the row is there already (``ON CONFLICT``), on either backend.

Writers that run side by side on PostgreSQL (two imports into one suite, two reviewers) may both find a row
missing and both insert it; a plain INSERT then fails the second transaction on the unique key after waiting
for the first. ``ON CONFLICT`` lets the database settle it in the statement itself: do nothing (the caller
reports who came first) or update the row that is there (add to a count). SQLite and PostgreSQL spell it the
same way, but SQLAlchemy builds it from each dialect's own ``insert``.
"""
from __future__ import annotations

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from store.errors import TsqeError
from store.models import Base


def conflict_insert(connection: Connection, model: type[Base]) -> postgresql.Insert | sqlite.Insert:
    """An INSERT into ``model``'s table, for the connection's backend, on which ``on_conflict_do_nothing`` and
    ``on_conflict_do_update`` can be called."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        return postgresql.insert(model)
    if dialect == "sqlite":
        return sqlite.insert(model)
    raise TsqeError(f"tsqe stores its data in SQLite or PostgreSQL, not in {dialect}")
