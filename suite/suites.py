"""Finding the suite a command is about."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from store.models import Suite
from suite.errors import SuiteChoiceError, TsqeError


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
