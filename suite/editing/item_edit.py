"""What every edit of an item shares: one transaction, the item relabelled in it, the result it reports.

An edit and the labels it implies are committed together or not at all, so nobody ever sees a changed rule
next to labels it did not make. Manual labels are neither read nor written here.
"""
from __future__ import annotations

import getpass
import os
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from store import Database
from store.models import AUTO_LABELS, Item, Output
from suite.editing.history import Change, Versioned, check_author, checked_row, record
from suite.engine.labelling import relabel_items
from suite.engine.labels import automatic_label, join_labels

AUTHOR_ENV = "TSQE_USER"


def default_author() -> str:
    """Who the history names when no author is given: ``$TSQE_USER``, else the login name, else "unknown"."""
    named = os.environ.get(AUTHOR_ENV, "").strip()
    if named:
        return named
    try:
        return getpass.getuser().strip() or "unknown"
    except (KeyError, OSError):  # no login name (e.g. a container user without a passwd entry)
        return "unknown"


@dataclass(frozen=True)
class EditResult:
    item_id: int
    external_id: str
    entity_id: int | None
    """The added or changed rule, known translation or reference; the item itself for item edits."""
    version: int | None
    """The edited row's version after the edit; None after a removal."""
    labels: dict[str, int]
    """The item's automatic label counts over its distinct outputs after the edit (every key of AUTO_LABELS)."""
    flipped: int
    """How many of the item's labelled outputs have another automatic label than before the edit."""


def automatic_labels(session: Session, item_id: int) -> dict[int, str | None]:
    """Output id -> automatic label (None: not labelled yet) of one item's outputs."""
    query = join_labels(select(Output.id, automatic_label(Output.id)).select_from(Output), Output.id,
                        Output.item_id).where(Output.item_id == item_id)
    return {output_id: label for output_id, label in session.execute(query)}


@dataclass
class ItemEdit:
    """One edit in progress on one item, inside its transaction."""

    session: Session
    item: Item
    author: str
    _before: dict[int, str | None]

    @property
    def suite_id(self) -> int:
        return self.item.suite_id

    def record(self, entity: str, entity_id: int | None, action: str, before: dict[str, Any] | None,
               after: dict[str, Any] | None, version: int | None) -> None:
        record(self.session, [Change(self.item.suite_id, self.item.external_id, entity, entity_id, action,
                                     self.author, before, after, version)])

    def finish(self, entity_id: int | None, version: int | None) -> EditResult:
        """Relabel the item as the edit requires and say what its labels are now."""
        relabel_items(self.session, self.item.suite_id, [self.item.id])
        after = automatic_labels(self.session, self.item.id)
        counts = Counter(label for label in after.values() if label is not None)
        flipped = sum(1 for output_id, label in self._before.items()
                      if label is not None and after.get(output_id, label) != label)
        return EditResult(self.item.id, self.item.external_id, entity_id, version,
                          {label: counts[label] for label in AUTO_LABELS}, flipped)


@contextmanager
def editing(db: Database, model: Versioned, row_id: int, author: str,
            expected_version: int | None = None) -> Iterator[tuple[ItemEdit, Any]]:
    """An edit by ``author`` of the row ``row_id`` of ``model`` (an item, or a rule, known translation or
    reference of one): one transaction, committed when the block ends. Refused (``EditConflict``) when the row
    is gone or ``expected_version`` is given and is not the row's version."""
    with db.transaction() as session:
        yield edit_in(session, model, row_id, author, expected_version)


def edit_in(session: Session, model: Versioned, row_id: int, author: str,
            expected_version: int | None = None) -> tuple[ItemEdit, Any]:
    """``editing`` inside a transaction the caller holds: for a write that edits items as one part of a larger
    whole (a reviewer's decision that also adds the output as a known translation)."""
    author = check_author(author)
    row = checked_row(session, model, row_id, expected_version)
    item = row if model is Item else session.get_one(Item, row.item_id)
    return ItemEdit(session, item, author, automatic_labels(session, item.id)), row
