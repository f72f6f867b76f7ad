"""Persistence: the SQLAlchemy models, engine configuration, sessions and the migrations runner.

The package's names are loaded when first used: ``store.errors`` (which every layer's errors build on) must not
import SQLAlchemy, so that ``tsqe --help`` starts without it (issue 16).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from store.database import Database, open_database
    from store.engine import resolve_url

__all__ = ["Database", "open_database", "resolve_url"]


def __getattr__(name: str) -> Any:
    if name in ("Database", "open_database"):
        from store import database

        return getattr(database, name)
    if name == "resolve_url":
        from store.engine import resolve_url

        return resolve_url
    raise AttributeError(f"module 'store' has no attribute {name!r}")
