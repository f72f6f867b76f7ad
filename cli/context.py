"""What every command needs: the open database and the chosen suite, opened lazily."""
from __future__ import annotations

from dataclasses import dataclass, field

import typer

from store import Database, open_database


@dataclass
class AppContext:
    db: str | None
    suite_name: str | None
    _database: Database | None = field(default=None, repr=False)

    @property
    def database(self) -> Database:
        if self._database is None:
            self._database = open_database(self.db)
        return self._database


def app_context(ctx: typer.Context) -> AppContext:
    obj = ctx.find_root().obj
    assert isinstance(obj, AppContext)
    return obj
