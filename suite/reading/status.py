"""What a suite holds: the counts behind ``tsqe status``."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from store import Database
from store.models import (
    AUTO_LABELS,
    MANUAL_LABELS,
    Category,
    Item,
    ItemLabelCounts,
    Phenomenon,
    Rule,
    System,
    SystemOutput,
)
from suite.engine.labelling import stale_items
from suite.engine.labels import EFFECTIVE_LABELS, effective_labels_select
from suite.suites import find_suite


def suite_status(db: Database, suite_name: str | None = None) -> dict[str, Any]:
    """Counts of the suite's contents; labels are counted over distinct outputs, like the evaluation."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        labels = effective_labels_select(suite.id).subquery()
        return {
            "suite": suite.name,
            "source_lang": suite.source_lang or None,  # None: not known yet (a table suite)
            "target_lang": suite.target_lang or None,
            "items": _count(session, select(func.count()).select_from(Item).where(Item.suite_id == suite.id)),
            "categories": _count(session, select(func.count()).select_from(Category)
                                 .where(Category.suite_id == suite.id)),
            "phenomena": _count(session, select(func.count()).select_from(Phenomenon)
                                .join(Category, Category.id == Phenomenon.category_id)
                                .where(Category.suite_id == suite.id)),
            "rules": _count(session, select(func.count()).select_from(Rule).join(Item, Item.id == Rule.item_id)
                            .where(Item.suite_id == suite.id)),
            "invalid_rules": _count(session, select(func.count()).select_from(Rule)
                                    .join(Item, Item.id == Rule.item_id)
                                    .where(Item.suite_id == suite.id, Rule.valid.is_(False))),
            "systems": _count(session, select(func.count()).select_from(System).where(System.suite_id == suite.id)),
            "outputs": _count(session, select(func.count()).select_from(labels)),
            "system_outputs": _count(session, select(func.count()).select_from(SystemOutput)
                                     .join(System, System.id == SystemOutput.system_id)
                                     .where(System.suite_id == suite.id)),
            "labels": {
                "auto": _by_label(session, labels.c.auto_label, AUTO_LABELS, "unlabelled"),
                "manual": _by_label(session, labels.c.manual_label, MANUAL_LABELS, "unreviewed"),
                "effective": _by_label(session, labels.c.effective_label, EFFECTIVE_LABELS, "unlabelled"),
            },
        }


@dataclass(frozen=True)
class Unlabelled:
    """How many of a suite's distinct outputs are not labelled yet: new ones, those of items never labelled (a
    labelling that was stopped part-way: it commits chunk by chunk, so that reviews are not held up), and every
    output of an item whose rules, known translations or output policy changed since it was labelled. Every
    report computed meanwhile counts them as unlabelled, and says so (``notice``)."""

    outputs: int
    stale_items: int

    @property
    def notice(self) -> str | None:
        """What a report says above its table while outputs are not labelled; None when all are."""
        if not self.outputs:
            return None
        return f"{self.outputs:,} output{'s are' if self.outputs != 1 else ' is'} not labelled yet"


def unlabelled_outputs(db: Database, suite_name: str | None = None) -> Unlabelled:
    """The suite's outputs not labelled yet (``item_label_counts``, and the items whose labels are stale)."""
    with db.session() as session:
        suite = find_suite(session, suite_name)
        counts = session.execute(select(ItemLabelCounts.item_id, ItemLabelCounts.unlabelled, ItemLabelCounts.outputs)
                                 .join(Item, Item.id == ItemLabelCounts.item_id).where(Item.suite_id == suite.id))
        stale = set(stale_items(session.connection(), suite.id))
        outputs = sum(total if item_id in stale else unlabelled for item_id, unlabelled, total in counts)
    return Unlabelled(outputs, len(stale))


def _count(session: Session, query: Select) -> int:  # type: ignore[type-arg]
    return session.scalar(query) or 0


def _by_label(session: Session, column: Any, labels: tuple[str, ...], missing: str) -> dict[str, int]:
    """Every label value with its count (zeros included, so the shape never changes), plus the
    outputs that have none."""
    counts: dict[str | None, int] = dict(session.execute(select(column, func.count()).group_by(column)).all())
    return {**{label: counts.get(label, 0) for label in labels}, missing: counts.get(None, 0)}
