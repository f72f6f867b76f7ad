"""No two public classes of the core share a name (issue 32): a reader who meets ``Cell`` or ``Progress`` must not
have to find out which of two it is."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ("store", "suite", "qe", "filters")


def test_no_two_public_core_classes_share_a_name() -> None:
    places: dict[str, list[str]] = defaultdict(list)
    for package in CORE:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    places[node.name].append(str(path.relative_to(ROOT)))
    shared = {name: where for name, where in places.items() if len(where) > 1}
    assert shared == {}
