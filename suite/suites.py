"""Finding the suite a command is about, and the few properties of a suite itself that can be changed."""
from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from store import Database
from store.models import Suite
from suite.errors import SuiteChoiceError, TsqeError

UNKNOWN_LANGUAGE = ""
"""How an unknown language is stored: the columns are NOT NULL, and a table suite need not name its languages."""
LANGUAGE = re.compile(r"^[a-z]{2,3}([-_][a-z0-9]{2,8})*$")
"""A language code: ISO 639 with optional subtags (``de``, ``pt-br``, ``zh_hant``); lower case as stored."""
UNKNOWN_SHOWN = "?"
"""How an unknown language is shown wherever a language is named."""


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


def set_languages(db: Database, source_lang: str | None, target_lang: str | None, *,
                  suite_name: str | None = None) -> SuiteInfo:
    """Set the suite's source and/or target language (``None`` keeps one as it is).

    Languages are what metrics and human scores are matched by, so a suite imported from a table that did
    not name them gets them here; changing a known language is allowed too (a mislabelled import).
    """
    given = {"source": source_lang, "target": target_lang}
    codes = {side: code.strip().lower() for side, code in given.items() if code is not None}
    bad = [f"{side} language {given[side]!r}" for side, code in codes.items() if not LANGUAGE.match(code)]
    if bad:
        raise TsqeError(f"{' and '.join(bad)} is not a language code such as 'de', 'en' or 'pt-br'")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        suite.source_lang = codes.get("source", suite.source_lang)
        suite.target_lang = codes.get("target", suite.target_lang)
        return SuiteInfo.of(suite)


def rename_suite(db: Database, new_name: str, *, suite_name: str | None = None) -> SuiteInfo:
    """Give the suite another name (suites are chosen by name, so it must be free)."""
    new_name = new_name.strip()
    if not new_name:
        raise TsqeError("a suite needs a non-empty name")
    if len(new_name) > 200:
        raise TsqeError(f"a suite name has at most 200 characters, not {len(new_name)}")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        if new_name != suite.name and session.scalar(select(Suite.id).where(Suite.name == new_name)) is not None:
            raise TsqeError(f"a suite named {new_name!r} exists already")
        suite.name = new_name
        return SuiteInfo.of(suite)
