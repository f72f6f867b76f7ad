"""What every command needs: the open database and the chosen suite, opened lazily."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from store import Database


@dataclass
class AppContext:
    db: str | None
    suite_name: str | None
    _database: Database | None = field(default=None, repr=False)

    @property
    def database(self) -> Database:
        if self._database is None:
            from store import open_database  # here: tsqe --help opens no database and needs no SQLAlchemy

            self._database = open_database(self.db)
        return self._database


def app_context(ctx: typer.Context) -> AppContext:
    obj = ctx.find_root().obj
    assert isinstance(obj, AppContext)
    return obj
