from __future__ import annotations

from pathlib import Path

import pytest

from store import Database, open_database

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "external"


@pytest.fixture
def db(tmp_path: Path) -> Database:
    """A fresh, migrated SQLite database in a temporary directory."""
    database = open_database(tmp_path / "tsqe.sqlite")
    yield database
    database.close()


@pytest.fixture
def shared_data() -> Path:
    """The real third-party data beside the checkout; tests using it skip cleanly when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data/external is not present")
    return SHARED_DATA


@pytest.fixture
def encoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every sentence the BERTScore model is asked to embed, in order (to show what a cache saved)."""
    from filters import bertscore

    seen: list[str] = []
    original = bertscore.Encoder.encode

    def counting(self, sentences):  # type: ignore[no-untyped-def]
        seen.extend(sentences)
        return original(self, sentences)

    monkeypatch.setattr(bertscore.Encoder, "encode", counting)
    return seen
