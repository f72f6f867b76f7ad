"""What a database's failures mean to the person who met them, in one sentence each.

SQLAlchemy's own messages print the statement and up to ten rows of its parameters (the user's data), span
dozens of lines and say nothing of what to do; a disk that fills up during an import, a file that cannot be
written, a damaged file and a server that refuses the connection are the user's to fix. Each becomes a
``TsqeError`` subclass here, naming the database (never with its password) and what to do. Every write is one
transaction, so each of these faults leaves the database as it was: the messages say so.
"""
from __future__ import annotations

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from store.engine import sqlite_path
from store.errors import TsqeError


class DatabaseFaultError(TsqeError):
    """The database could not do what was asked for a reason of its own (full disk, damage, read-only)."""


class DatabaseDamagedError(DatabaseFaultError):
    """The file is not a SQLite database, or its pages are damaged."""


class DatabaseReadOnlyError(DatabaseFaultError):
    """The file or its folder cannot be written; reading works."""


class DatabaseUnreachableError(DatabaseFaultError):
    """A database server refused, or did not answer, the connection; or its URL or driver is wrong."""


def display_url(url: str | URL) -> str:
    """A URL as messages show it: a SQLite file as its path, anything else without its password."""
    try:
        parsed = make_url(url) if isinstance(url, str) else url
    except (ArgumentError, ValueError):
        return "the database URL"  # unparsed, so no telling where a password might be in it
    if parsed.get_backend_name() == "sqlite":
        path = sqlite_path(parsed)
        return str(path) if path is not None else "an in-memory SQLite database"
    return parsed.render_as_string(hide_password=True)


def checked_url(url: str) -> str:
    """``url`` once SQLAlchemy can parse it, else the user's error (which repeats no part of it: a password may be
    anywhere in a URL that does not parse)."""
    try:
        make_url(url)
    except (ArgumentError, ValueError) as error:
        raise DatabaseUnreachableError("the database URL is malformed: expected a file path or a URL such as "
                                       "postgresql+psycopg://USER@HOST/DATABASE") from error
    return url


_SQLITE_FAULTS: dict[str, tuple[type[DatabaseFaultError], str]] = {
    "SQLITE_FULL": (DatabaseFaultError, "the disk holding {db} is full: nothing was changed; free some space and "
                                        "try again"),
    "SQLITE_READONLY": (DatabaseReadOnlyError, "{db} is read-only (the file or its folder cannot be written): "
                                               "nothing was changed; reading it works"),
    "SQLITE_CORRUPT": (DatabaseDamagedError, "{db} is damaged ({reason}): nothing was changed; an integrity check "
                                             "lists the damaged pages; restore the file from a backup"),
    "SQLITE_NOTADB": (DatabaseDamagedError, "{db} is not a tsqe database: it is not an SQLite file, or its header "
                                            "is damaged; restore the file from a backup"),
    "SQLITE_CANTOPEN": (DatabaseFaultError, "cannot open {db}: its folder does not exist or cannot be written"),
    "SQLITE_IOERR": (DatabaseFaultError, "reading or writing {db} failed ({reason}): nothing was changed; check "
                                         "the disk"),
    "SQLITE_NOMEM": (DatabaseFaultError, "SQLite ran out of memory working on {db}: nothing was changed"),
}


def database_fault(error: BaseException, database: str | None) -> TsqeError | None:
    """The user's error that ``error`` (raised by SQLAlchemy or a DB-API driver) stands for, or None when it is
    not one a user can fix (a bug, which keeps its traceback)."""
    db = database or "the database"
    if isinstance(error, NoSuchModuleError | ModuleNotFoundError) and _is_driver(error):
        return DatabaseUnreachableError(f"cannot open {db}: its database driver is not installed "
                                        f"({_driver_name(error)}); for PostgreSQL install tsqe with its postgres "
                                        f"extra (psycopg)")
    if isinstance(error, ArgumentError):
        return DatabaseUnreachableError("the database URL is malformed: expected a file path or a URL such as "
                                        "postgresql+psycopg://USER@HOST/DATABASE")
    orig = error.orig if isinstance(error, DBAPIError) and error.orig is not None else error
    name = getattr(orig, "sqlite_errorname", None)
    if isinstance(name, str):
        for prefix, (kind, message) in _SQLITE_FAULTS.items():
            if name.startswith(prefix):
                return kind(message.format(db=db, reason=str(orig)))
    if _is_psycopg(orig):
        return _postgresql_fault(orig, db)
    return None


def _is_driver(error: BaseException) -> bool:
    return isinstance(error, NoSuchModuleError) or getattr(error, "name", "") in {"psycopg", "psycopg2", "pg8000"}


def _driver_name(error: BaseException) -> str:
    return getattr(error, "name", None) or str(error).rsplit(":", 1)[-1].strip() or "unknown"


def _is_psycopg(error: BaseException) -> bool:
    return type(error).__module__.split(".")[0] in {"psycopg", "psycopg2"}


_POSTGRESQL_REASONS = (
    ("password authentication failed", "the server refused the user's password"),
    ("no password supplied", "the server asks for a password and the URL gives none"),
    ("does not exist", "{detail}"),
    ("connection refused", "nothing is listening there (is the server running, on that port?)"),
    ("timeout expired", "it did not answer in time (connect_timeout); is the host right and the server up?"),
    ("could not translate host name", "the host name is unknown"),
    ("no route to host", "the host cannot be reached"),
)


def _postgresql_fault(error: BaseException, db: str) -> TsqeError | None:
    """Connection failures of psycopg: wrong password, nothing listening, unknown database, no answer."""
    text = str(error)
    lowered = text.lower()
    for needle, reason in _POSTGRESQL_REASONS:
        if needle in lowered:
            detail = next((line.split("FATAL:", 1)[-1].strip() for line in text.splitlines() if needle in line),
                          needle)
            return DatabaseUnreachableError(f"cannot connect to {db}: {reason.format(detail=detail)}")
    if "server closed the connection" in lowered or "terminating connection" in lowered:
        return DatabaseUnreachableError(f"the connection to {db} was lost: nothing was changed; try again")
    if "no space left on device" in lowered or "could not extend file" in lowered:
        return DatabaseFaultError(f"the disk of the server holding {db} is full: nothing was changed")
    if "read-only transaction" in lowered:
        return DatabaseReadOnlyError(f"{db} accepts no writes (a read-only server or user): nothing was changed")
    return None
