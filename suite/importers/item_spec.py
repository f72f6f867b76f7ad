"""One test item as read from a suite file, before it is written to the database."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ItemSpec:
    line: int
    external_id: str
    category: str
    phenomenon: str
    source: str
    positive: list[str] = field(default_factory=list)
    negative: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    good: list[str] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)
    comment: str | None = None
