"""Temporary stand-in for ``suite.rules.compile_error`` until the rule engine lands on main."""
from __future__ import annotations

import regex


def compile_error(pattern: str, ignore_case: bool) -> str | None:
    try:
        regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
    except regex.error as error:
        return str(error)
    return None
