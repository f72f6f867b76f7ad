"""The base of every error a user can fix, defined at the bottom layer so that the store can raise one too.

``suite.errors`` is where the rest of the code takes ``TsqeError`` from, alongside the core's other user
errors.
"""
from __future__ import annotations


class TsqeError(Exception):
    """A problem the user can fix (bad input, unknown name, a database busy elsewhere); the message is meant
    for them and speaks of the data, never of one front-end's options."""


class DatabaseBusyError(TsqeError):
    """Another writer held this change up: on SQLite for the whole busy timeout, on PostgreSQL by needing the same
    rows at the same moment (a deadlock); nothing was changed, and trying again works."""


class NoDatabase(TsqeError):
    """There is no database file where one was to be opened, and none was to be created there."""
