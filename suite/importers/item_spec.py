"""One test item as read from a suite file, before it is written to the database."""
from __future__ import annotations

from dataclasses import dataclass, field

from store.models import STANDARD_REFERENCE
from suite.engine.rules import RuleSpec


@dataclass(frozen=True)
class ReferenceText:
    text: str
    kind: str = STANDARD_REFERENCE
    set_name: str | None = None
    """The reference set; None: the set named after the kind (``Reference.set_name``'s default)."""

    @property
    def set(self) -> str:
        return self.set_name or self.kind


@dataclass
class ItemSpec:
    line: int
    external_id: str
    category: str
    phenomenon: str
    source: str
    rules: list[RuleSpec] = field(default_factory=list)
    """The positive rules, then the negative ones, each list in the file's order (a file gives each polarity in
    its own column)."""
    references: list[ReferenceText] = field(default_factory=list)
    good: list[str] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)
    comment: str | None = None
