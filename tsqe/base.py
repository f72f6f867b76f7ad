"""The suite as every group of the API's methods sees it: the core's database and the suite's name."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from store import Database as StoreDatabase


class SuiteHandle:
    """One suite of an open database, by name (what ``--suite NAME`` chooses on the command line)."""

    def __init__(self, store: StoreDatabase, name: str) -> None:
        self.store = store
        """The core's ``store.Database``."""
        self.name = name
        """The suite's name; renaming it elsewhere makes this handle refer to no suite."""

    def __repr__(self) -> str:
        return f"tsqe.Suite({self.name!r})"
