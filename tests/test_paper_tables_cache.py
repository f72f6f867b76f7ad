"""bench/papers.py keeps its tables' costly results between runs beside its database, and forgets them with it."""
from __future__ import annotations

from pathlib import Path

from bench.paper_tables.data import Data


def test_a_result_is_computed_once_and_forgotten_with_a_fresh_database(tmp_path: Path) -> None:
    calls: list[int] = []

    def compute() -> dict[str, float]:
        calls.append(1)
        return {"tau": 0.7}

    data = Data(tmp_path / "shared", tmp_path / "cache")
    assert data.kept("correlate x bleu", compute) == {"tau": 0.7}
    data.close()
    again = Data(tmp_path / "shared", tmp_path / "cache")  # the next run: read, not computed
    assert again.kept("correlate x bleu", compute) == {"tau": 0.7} and len(calls) == 1
    assert again.kept("correlate x ter", compute) == {"tau": 0.7} and len(calls) == 2  # another key computes
    again.close()
    (tmp_path / "cache" / "papers.sqlite").unlink()  # a fresh database: its old results go with it
    fresh = Data(tmp_path / "shared", tmp_path / "cache")
    fresh.kept("correlate x bleu", compute)
    fresh.close()
    assert len(calls) == 3
