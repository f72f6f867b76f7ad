"""docs/architecture.md tells a newcomer where things live: every module it names must be there (issue 21: after
the move into rooms it named ten files under a ``suite/editing/api/`` folder that never existed)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GONE = {"tools/rooms.py"}  # named as history: the script that made the rooms, removed once every branch was moved


def _named(page: str) -> set[str]:
    text = (ROOT / page).read_text(encoding="utf-8")
    return set(re.findall(NAMED, text))


NAMED = r"`((?:gui|cli|qe|filters|suite|store|tsqe|bench|tests|tools|examples)/[\w/-]+\.(?:py|ipynb))`"


PAGES = ["README.md", "BENCHMARKS.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", PAGES)
def test_every_module_a_page_names_exists(page: str) -> None:
    named = _named(page)
    if page in ("docs/architecture.md", "BENCHMARKS.md"):
        assert len(named) > 10  # the page still says where things live
    missing = sorted(path for path in named - GONE if not (ROOT / path).is_file())
    assert not missing, f"{page} names modules that do not exist: {missing}"
