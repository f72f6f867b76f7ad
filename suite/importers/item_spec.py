"""One test item as read from a suite file, before it is written to the database."""
from __future__ import annotations

from dataclasses import dataclass, field

from store.models import STANDARD_REFERENCE


@dataclass(frozen=True)
class RulePattern:
    """A pattern as a suite file gives it, with the one flag a file can set on it."""

    pattern: str
    ignore_case: bool = False


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
    positive: list[RulePattern] = field(default_factory=list)
    negative: list[RulePattern] = field(default_factory=list)
    references: list[ReferenceText] = field(default_factory=list)
    good: list[str] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)
    comment: str | None = None
