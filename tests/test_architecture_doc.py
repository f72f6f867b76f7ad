"""docs/architecture.md tells a newcomer where things live: every module it names must be there (issue 21: after
the move into rooms it named ten files under a ``suite/editing/api/`` folder that never existed)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GONE = {"tools/rooms.py"}  # named as history: the script that made the rooms, removed once every branch was moved


def test_every_module_the_architecture_page_names_exists() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:gui|cli|qe|filters|suite|store|tools)/[\w/]+\.py)`", text))
    assert len(named) > 30  # the table of where things live, not a page that lost it
    missing = sorted(path for path in named - GONE if not (ROOT / path).is_file())
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"
