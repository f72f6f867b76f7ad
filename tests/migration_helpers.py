"""Databases built at an old schema revision, for the tests that check an upgrade keeps what was stored."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, text

from alembic import command
from store.engine import make_engine
from store.migrations import alembic_config


@contextmanager
def at_revision(url: str, revision: str) -> Iterator[Connection]:
    """A connection to the database ``url`` migrated to ``revision`` and holding suite 1, inside one transaction
    the test fills with its rows; the engine is disposed afterwards so that opening the database upgrades it."""
    engine = make_engine(url)
    config = alembic_config()
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, revision)
            conn.execute(text("INSERT INTO suites (id, name, source_lang, target_lang, created_at) "
                              "VALUES (1, 's', 'de', 'en', CURRENT_TIMESTAMP)"))
            yield conn
    finally:
        engine.dispose()
