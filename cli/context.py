"""What every command needs: the open database and the chosen suite, opened lazily."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from store import Database


CREATING = frozenset({"init", "demo", "import"})
"""The commands that start a database file where there is none; every other one refuses a missing file rather
than leave an empty database behind a mistyped path (``tsqe --db dfki.sqllite status`` made one)."""


@dataclass
class AppContext:
    db: str | None
    suite_name: str | None
    create: bool = True
    """Whether the command may create the database file (``CREATING``)."""
    _database: Database | None = field(default=None, repr=False)

    @property
    def database(self) -> Database:
        if self._database is None:
            from store import open_database  # here: tsqe --help opens no database and needs no SQLAlchemy
            from store.errors import NoDatabase

            try:
                self._database = open_database(self.db, create=self.create)
            except NoDatabase as missing:
                raise NoDatabase(f"{missing} (`tsqe init` creates an empty one, `tsqe demo` or `tsqe import suite "
                                 f"FILE` one with a suite)") from None
        return self._database

    def name_in_messages(self) -> str | None:
        """The database as error messages name it (a file's path, a URL without its password)."""
        if self._database is not None:
            return self._database.name_in_messages
        from store import resolve_url
        from store.faults import display_url

        try:
            return display_url(resolve_url(self.db))
        except Exception:  # noqa: BLE001 - the name only decorates a message about another failure
            return None


def app_context(ctx: typer.Context) -> AppContext:
    obj = ctx.find_root().obj
    assert isinstance(obj, AppContext)
    return obj
