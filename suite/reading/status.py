"""What a suite holds: the counts behind ``tsqe status``."""
from __future__ import annotations

from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from store import Database
from store.models import AUTO_LABELS, MANUAL_LABELS, Category, Item, Phenomenon, Rule, System, SystemOutput
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


def _count(session: Session, query: Select) -> int:  # type: ignore[type-arg]
    return session.scalar(query) or 0


def _by_label(session: Session, column: Any, labels: tuple[str, ...], missing: str) -> dict[str, int]:
    """Every label value with its count (zeros included, so the shape never changes), plus the
    outputs that have none."""
    counts: dict[str | None, int] = dict(session.execute(select(column, func.count()).group_by(column)).all())
    return {**{label: counts.get(label, 0) for label in labels}, missing: counts.get(None, 0)}
