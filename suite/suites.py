"""Finding the suite a command is about, and how its name and languages are read (``suite.editing.suite_edit`` changes
them)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from store import Database
from store.models import Suite, System
from suite.errors import SuiteChoiceError, TsqeError

UNKNOWN_LANGUAGE = ""
"""How an unknown language is stored: the columns are NOT NULL, and a table suite need not name its languages."""
LANGUAGE = re.compile(r"^[a-z]{2,3}([-_][a-z0-9]{2,8})*$")
"""A language code: ISO 639 with optional subtags (``de``, ``pt-br``, ``zh_hant``); lower case as stored."""
UNKNOWN_SHOWN = "?"
"""How an unknown language is shown wherever a language is named."""


LANGUAGE_PAIR = re.compile(r"([a-z]{2,3})\s*-\s*([a-z]{2,3})")
"""Two languages as a person writes them (``de-en``): a hyphen between two codes leaves no room for subtags."""


def split_language_pair(text: str) -> tuple[str, str]:
    """``de-en`` (any case, spaces around the hyphen) -> (``de``, ``en``)."""
    match = LANGUAGE_PAIR.fullmatch(text.strip().lower())
    if match is None:
        raise TsqeError(f"languages are written like de-en, not {text!r}")
    return match[1], match[2]


def language_pair(source_lang: str, target_lang: str) -> str:
    """A suite's languages as messages and human scores files name them (``de-en``), an unknown one as ``?``."""
    return f"{source_lang or UNKNOWN_SHOWN}-{target_lang or UNKNOWN_SHOWN}"


@dataclass(frozen=True)
class SuiteInfo:
    """A suite's name and languages, ``None`` where a language is not known yet."""

    name: str
    source_lang: str | None
    target_lang: str | None

    @classmethod
    def of(cls, suite: Suite) -> SuiteInfo:
        return cls(suite.name, suite.source_lang or None, suite.target_lang or None)


def find_suite(session: Session, name: str | None = None) -> Suite:
    """The suite called ``name``, or the only suite in the database when no name is given."""
    if name is not None:
        suite = session.scalar(select(Suite).where(Suite.name == name))
        if suite is None:
            known = ", ".join(session.scalars(select(Suite.name).order_by(Suite.name))) or "none"
            raise TsqeError(f"no suite named {name!r} (suites in this database: {known})")
        return suite
    suites = list(session.scalars(select(Suite).order_by(Suite.name)))
    if not suites:
        raise SuiteChoiceError("the database holds no suite yet: import one, or load the demo suite")
    if len(suites) > 1:
        names = ", ".join(s.name for s in suites)
        raise SuiteChoiceError(f"the database holds several suites: {names}; name the one to work on")
    return suites[0]


def suite_info(db: Database, suite_name: str | None = None) -> SuiteInfo:
    with db.session() as session:
        return SuiteInfo.of(find_suite(session, suite_name))


def suite_systems(session: Session, suite_id: int, systems: Sequence[str] | None) -> list[str]:
    """The requested systems (all of the suite's by default), rejecting names the suite does not have."""
    known = list(session.scalars(select(System.name).where(System.suite_id == suite_id).order_by(System.name)))
    if systems is None:
        return known
    unknown = [s for s in systems if s not in known]
    if unknown:
        raise TsqeError(f"unknown system(s) {', '.join(unknown)} (systems of this suite: {', '.join(known)})")
    return list(dict.fromkeys(systems))
