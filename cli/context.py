"""What every command needs: the open database and the chosen suite, opened lazily."""
from __future__ import annotations

from dataclasses import dataclass, field

import typer

from store import Database, open_database, resolve_url
from store.faults import display_url


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

    def name_in_messages(self) -> str | None:
        """The database as error messages name it (a file's path, a URL without its password)."""
        if self._database is not None:
            return self._database.name_in_messages
        try:
            return display_url(resolve_url(self.db))
        except Exception:  # noqa: BLE001 - the name only decorates a message about another failure
            return None


def app_context(ctx: typer.Context) -> AppContext:
    obj = ctx.find_root().obj
    assert isinstance(obj, AppContext)
    return obj
