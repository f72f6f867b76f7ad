"""tsqe's version, from one source: ``pyproject.toml``'s ``[project] version``.

An installed tsqe (a wheel, pipx) reads it from the distribution's metadata, which the build copied from
``pyproject.toml``. A source tree run from its folder (``PYTHONPATH=.``, a second work tree beside an editable
install) reads ``pyproject.toml`` itself: the metadata found on the path may belong to another checkout, and the
signatures of stored scores must name the code that computed them. Both are cheap (no third-party import), so
``tsqe --version`` and ``import tsqe`` stay fast.
"""
from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

DISTRIBUTION = "tsqe"
UNKNOWN = "0+unknown"
"""What a copy of the packages without ``pyproject.toml`` and without metadata reports (PEP 440's local part
says it is no release)."""


def _source_tree_version(root: Path) -> str | None:
    """The version in ``root/pyproject.toml`` when that file is tsqe's, else None."""
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    found = project.get("version") if project.get("name") == DISTRIBUTION else None
    return found if isinstance(found, str) else None


def tsqe_version() -> str:
    """This code's version: its source tree's ``pyproject.toml``, else the installed distribution's metadata."""
    from_tree = _source_tree_version(Path(__file__).resolve().parent.parent)
    if from_tree is not None:
        return from_tree
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return UNKNOWN


VERSION = tsqe_version()
