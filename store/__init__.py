"""Persistence: the SQLAlchemy models, engine configuration, sessions and the migrations runner."""
from __future__ import annotations

from store.database import Database, open_database
from store.engine import resolve_url

__all__ = ["Database", "open_database", "resolve_url"]
