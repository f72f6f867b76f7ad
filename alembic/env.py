"""Alembic environment: tsqe passes an open connection in ``config.attributes`` (see store.migrations)."""
from __future__ import annotations

from sqlalchemy import create_engine

from alembic import context
from store.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection) -> None:  # type: ignore[no-untyped-def]
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True,
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    with create_engine(config.get_main_option("sqlalchemy.url")).connect() as standalone:
        _run(standalone)
        standalone.commit()
